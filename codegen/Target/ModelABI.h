//===- ModelABI.h - the entry point, model info and C header ---------*- C++ -*-===//
//
// What a compiled model looks like from outside (runtime/include/kiln/runtime/abi.h):
// its entry points (`NAME_run`, or `NAME_<entry>` each), `NAME_info`, and the header that
// declares them.
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
  int32_t shapeOutput = -1; // the output holding its actual shape (a value-dependent size)
};

/// A C identifier made from `text` (invalid characters become '_').
std::string sanitizeIdentifier(llvm::StringRef text);

/// The kiln_dtype_t of a tf-level element type, or 0 if it has none.
int dtypeOf(mlir::Type elementType);

/// One separately compiled function of an entry point (its whole function, or one
/// partition of it): its name in the lowered module, which takes one pointer per input it
/// reads, per state the entry reads (a whole function only), per output and per state the
/// entry writes, then its scratch; the positions of those inputs and outputs among the
/// entry's; and where its scratch starts in the entry's arena.
struct EntryPart {
  std::string implName;
  std::vector<int64_t> inputs, outputs;
  int64_t scratchOffset = 0;
  int64_t scratchBytes = 0;
  bool statusArgument = false; // it takes the checks' status last (kiln-lower-checks)
  bool gpu = false;            // placed on a GPU: its errors are pending in kiln/runtime/mgpu.h
  int gpuOrdinal = 0;          // which GPU (N of .../device:GPU:N)
};

/// One check of the model's input values (kiln/runtime/abi.h: kiln_check_info_t).
struct CheckInfo {
  std::string message;
  llvm::SmallVector<int64_t> dims;
  bool isUnsigned = false;
};

/// One entry point: NAME_<name>, or NAME_run for a model of one stateless entry `run`.
struct EntryInterface {
  std::string name;
  std::vector<TensorSignature> inputs, outputs;
  std::vector<int32_t> reads, writes; // the state it reads and writes: positions in states
  std::vector<EntryPart> parts;
  /// Its scratch: the parts' arenas, then each state it writes, computed there and copied
  /// into the state buffer once the call has succeeded.
  int64_t scratchBytes = 0;
  std::vector<int64_t> writeOffsets;
  int64_t naiveScratchBytes = 0; // the parts' arenas with one slot per buffer (--stats)
  /// Per input and output, the GPU whose partition alone reads or writes it, through
  /// copies that may come from or go to that GPU's memory; -1 where the host touches it.
  std::vector<int32_t> inputGpus, outputGpus;
};

/// One tensor of the model's state, at `offset` in the state buffer.
struct StateInterface {
  TensorSignature tensor;
  int64_t offset = 0;
};

/// Everything codegen needs of a model, all of it from the lowered module's kiln.model.
struct ModelInterface {
  std::string name; // a C identifier, the prefix of every exported symbol
  std::vector<EntryInterface> entries;
  std::vector<StateInterface> states;
  int64_t stateBytes = 0;
  std::vector<CheckInfo> checks;
  std::vector<std::string> rendezvousKeys;

  /// One stateless entry point named "run": NAME_run keeps the signature of ABI 1 and the
  /// header its layout.
  bool isSingleRun() const;
  /// Enough scratch for any entry point.
  int64_t scratchBytes() const;
};

/// Reads the model's interface from its kiln.model: each entry point's feeds and fetches
/// (typed by kiln-lower-freeze-interface), the state it reads and writes, its parts
/// (kiln-lower-partitions) with their scratch (kiln-lower-assign-scratch) and status
/// (kiln-lower-checks); the state; the tables of checks and rendezvous keys. Errors are
/// reported as diagnostics.
llvm::FailureOr<ModelInterface> readModel(mlir::ModuleOp module);

/// Adds the entry points and `NAME_info` to the LLVM IR of the lowered module, and, when
/// `withMain` is set, a C `main` that calls the runtime's runner. An entry point of one
/// part without rendezvous keys calls it directly; otherwise it starts every part at once
/// through kiln_partitions_run (kiln/runtime/partitions.h), with the rendezvous keys as the
/// keys their transfers refer to by number. With checks, it gives the parts that take it a
/// status to record a failed check in, and returns kiln_check_failed's code when one did.
llvm::LogicalResult addEntryPoints(llvm::Module &module, const ModelInterface &model, bool withMain,
                                   std::string &error);

/// The C header declaring the entry points with the model's constants.
std::string emitHeader(const ModelInterface &model, llvm::StringRef source);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGET_MODELABI_H
