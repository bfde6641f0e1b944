//===- Import.h - GraphDef to tf dialect -----------------------------*- C++ -*-===//
//
// Reads TensorFlow GraphDefs (binary .pb or text .pbtxt) and tfcompile configs, and builds
// a module with one function whose arguments are the feeds and whose results are the
// fetches, holding one tf op per needed node. Protobuf stays behind this header.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_IMPORT_IMPORT_H
#define KILN_COMPILER_IMPORT_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::import {

/// A tensor of the graph: output `port` of node `node`.
struct TensorId {
  std::string node;
  int port = 0;
  /// "node:port".
  std::string str() const { return node + ":" + std::to_string(port); }
};

/// The largest port a tensor name may give (TensorFlow's ports are int32).
inline constexpr int kMaxPort = 2147483647;

/// Parses "node" or "node:port"; fails on an empty name or a port that is not a number
/// from 0 to kMaxPort.
std::optional<TensorId> parseTensorId(llvm::StringRef text);

/// A tensor to feed: it becomes a function argument, and what computes it is not needed.
struct FeedSpec {
  TensorId id;
  mlir::Type elementType;                          // null: from the node's dtype attribute
  std::optional<llvm::SmallVector<int64_t>> shape; // none: from the node; kDynamic unknown
  std::string alias;                               // a config's `name`, or empty
  /// A SavedModel signature's key: the name the compiled model gives the input instead of
  /// the tensor's (empty for a GraphDef's feeds).
  std::string key;
};

/// A tensor to fetch: it becomes a function result.
struct FetchSpec {
  TensorId id;
  std::string alias;
  std::string key; // a SavedModel signature's output key (see FeedSpec::key)
};

struct ImportOptions {
  std::vector<FeedSpec> feeds;
  std::vector<FetchSpec> fetches;
  /// With no fetches: true imports every node (kiln-translate); false fetches the graph's
  /// sinks, the data outputs nobody consumes (kiln compile without --fetch).
  bool importAllWithoutFetches = true;
  /// Without explicit feeds, feed every needed Placeholder with its declared shape.
  bool feedPlaceholders = true;
  std::string functionName = "main";
};

/// The MLIR element type of a TensorFlow dtype, given by name: f32, float32, float,
/// DT_FLOAT ... (case-insensitive). Null if unknown.
mlir::Type parseDataType(llvm::StringRef name, mlir::MLIRContext *context);
/// The short name of an element type (f32, i32, ui8, bool ...).
std::string dataTypeName(mlir::Type type);

/// Every TensorFlow op a graph may hold, sorted by name: the tf dialect's graph ops and
/// the ops the importer rewrites into them (functional and TensorFlow 1 control flow,
/// function calls, TensorArrays, a SavedModel's variables). `context` must have the tf
/// dialect loaded. `kiln ops` prints this list.
std::vector<std::string> supportedOps(mlir::MLIRContext *context);

/// Imports a GraphDef from `path` (text if the extension is .pbtxt/.pbtext/.txt/
/// .prototxt or if binary parsing fails on text-looking content). Errors are reported
/// through the context's diagnostics, naming the file and the node.
mlir::OwningOpRef<mlir::ModuleOp>
importGraphDefFile(llvm::StringRef path, const ImportOptions &options, mlir::MLIRContext *context);

/// Same, from bytes already in memory; `fileName` is used in messages.
mlir::OwningOpRef<mlir::ModuleOp> importGraphDefBuffer(llvm::StringRef bytes,
                                                       llvm::StringRef fileName,
                                                       const ImportOptions &options,
                                                       mlir::MLIRContext *context);

/// Reads a model written as MLIR (tf ops in functions, and a kiln.model naming its entry
/// points, their feeds and fetches, and its state; without one, the first public function
/// is the entry point). Errors are reported through the context's diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> importModuleFile(llvm::StringRef path,
                                                   mlir::MLIRContext *context);

/// Reads a tfcompile config (text tensorflow.tf2xla.Config) and appends its feeds and
/// fetches to `options`.
llvm::LogicalResult loadConfigFile(llvm::StringRef path, ImportOptions &options,
                                   mlir::MLIRContext *context);

/// The SavedModel file (saved_model.pb or saved_model.pbtxt) in directory `dir`, or ""
/// when `dir` is not a directory holding one.
std::string savedModelFile(llvm::StringRef dir);

/// Whether `bytes` parse, binary or text, as a SavedModel with a MetaGraph (a
/// saved_model.pb passed where a GraphDef was expected).
bool looksLikeSavedModel(llvm::StringRef bytes);

/// What of a SavedModel to compile.
struct SavedModelOptions {
  /// The MetaGraph's tags (all of them, as TensorFlow's loader matches them); empty is
  /// {"serve"}.
  std::vector<std::string> tags;
  /// The signature; empty is "serving_default".
  std::string signature;
  /// Dtypes and shapes for the signature's inputs, by key (FeedSpec::key; `id` unused):
  /// needed where the signature leaves dimensions unknown.
  std::vector<FeedSpec> feeds;
};

/// Imports signature `options.signature` of the MetaGraph tagged `options.tags` of the
/// SavedModel in directory `dir`: its function library inlined, its inputs the feeds and
/// its outputs the fetches, both named by key (sorted), and every variable the outputs
/// read a constant holding its value in the checkpoint variables/ (restored as the
/// MetaGraph's saver restores it). Errors go to the context's diagnostics, naming the
/// file, the signature and the key, variable or node.
mlir::OwningOpRef<mlir::ModuleOp>
importSavedModel(llvm::StringRef dir, const SavedModelOptions &options, mlir::MLIRContext *context);

/// Prints every MetaGraph of the SavedModel in `dir` with its tags and each signature:
/// its name and method, then its inputs and outputs by key, with dtype, shape and the
/// graph tensor behind each. Errors go to the context's diagnostics.
llvm::LogicalResult listSavedModelSignatures(llvm::StringRef dir, llvm::raw_ostream &os,
                                             mlir::MLIRContext *context);

/// Registers the `--import-graphdef` translation (binary or text) for kiln-translate.
void registerImportTranslation();

/// Registers `--dump-tensor-bundle` (TensorBundle.h) for kiln-translate.
void registerTensorBundleTranslation();

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_IMPORT_H
