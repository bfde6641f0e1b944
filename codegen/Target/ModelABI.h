//===- ModelABI.h - the entry point, model info and C header ---------*- C++ -*-===//
//
// What a compiled model looks like from outside (runtime/include/kiln/runtime/abi.h):
// `NAME_run`, `NAME_info`, and the header that declares them.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TARGET_MODELABI_H
#define KILN_CODEGEN_TARGET_MODELABI_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace kiln::codegen {

/// One feed or fetch.
struct TensorSignature {
  std::string name;  // "node:port"
  std::string alias; // config name, or empty
  int dtype = 0;     // kiln_dtype_t
  llvm::SmallVector<int64_t> dims;
  int64_t byteSize = 0;
};

/// The interface of a compiled model.
struct ModelSignature {
  std::string name; // a C identifier, the prefix of every exported symbol
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  int64_t scratchBytes = 0;
};

/// A C identifier made from `text` (invalid characters become '_').
std::string sanitizeIdentifier(llvm::StringRef text);

/// The kiln_dtype_t of a tf-level element type, or 0 if it has none.
int dtypeOf(mlir::Type elementType);

/// One separately compiled function of the model (the whole model, or one partition of
/// it): its name in the lowered module, which takes one pointer per input it reads, per
/// output it writes and its scratch; the positions of those inputs and outputs in the
/// model's signature; and where its scratch starts in the model's arena.
struct EntryPart {
  std::string implName;
  std::vector<int64_t> inputs, outputs;
  int64_t scratchOffset = 0;
  int64_t scratchBytes = 0;
  bool statusArgument = false; // it takes the checks' status last (kiln-lower-checks)
};

/// One check of the model's input values (kiln/runtime/abi.h: kiln_check_info_t).
struct CheckInfo {
  std::string message;
  llvm::SmallVector<int64_t> dims;
  bool isUnsigned = false;
};

/// Everything codegen needs of a model, all of it from the lowered module's kiln.model.
struct ModelInterface {
  ModelSignature signature;
  std::vector<EntryPart> parts;
  std::vector<CheckInfo> checks;
  std::vector<std::string> rendezvousKeys;
  int64_t naiveScratchBytes = 0; // the arena with one slot per buffer (for --stats)
};

/// Reads the model's interface from its kiln.model: the entry point's feeds and fetches
/// (typed by kiln-lower-freeze-interface), its parts (kiln-lower-partitions) with their
/// scratch (kiln-lower-assign-scratch) and status (kiln-lower-checks), and the tables of
/// checks and rendezvous keys. Errors are reported as diagnostics.
llvm::FailureOr<ModelInterface> readModel(mlir::ModuleOp module);

/// Adds `NAME_run` and `NAME_info` to the LLVM IR of the lowered module, and, when
/// `withMain` is set, a C `main` that calls the runtime's runner. One part without
/// rendezvous keys is called directly; otherwise NAME_run starts every part at once through
/// kiln_partitions_run (kiln/runtime/partitions.h), with the rendezvous keys as the keys
/// their transfers refer to by number. With checks, NAME_run gives the parts that take it a
/// status to record a failed check in, and returns kiln_check_failed's code when one did.
llvm::LogicalResult addEntryPoint(llvm::Module &module, const ModelInterface &model,
                                  bool withMain, std::string &error);

/// The C header declaring the entry point with the model's constants.
std::string emitHeader(const ModelSignature &signature, llvm::StringRef source);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGET_MODELABI_H
