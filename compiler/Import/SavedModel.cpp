//===- SavedModel.cpp - reading SavedModel directories --------------------------===//
//
// A SavedModel directory holds saved_model.pb (or .pbtxt): one MetaGraphDef per set of
// tags, each with a GraphDef, a SaverDef (TensorFlow 1) and signatures, whose keys name
// the graph's tensors users feed and fetch; variables/ holds the checkpoint
// (TensorBundle.h). Compiling a signature imports its MetaGraph's graph with the
// function library inlined, the signature's inputs fed and outputs fetched by key, and
// the variables it reads turned into constants (Variables.cpp).
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Convert.h"
#include "compiler/Import/Functions.h"
#include "compiler/Import/GraphImporter.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/ProtoParse.h"
#include "compiler/Import/Variables.h"
#include "dialects/TF/Ops/Infer.h"

#include "saved_model.pb.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <set>

using namespace mlir;

namespace kiln::import {

std::string savedModelFile(StringRef dir) {
  if (!llvm::sys::fs::is_directory(dir))
    return "";
  for (const char *name : {"saved_model.pb", "saved_model.pbtxt"}) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    if (llvm::sys::fs::is_regular_file(path))
      return std::string(path);
  }
  return "";
}

bool looksLikeSavedModel(StringRef bytes) {
  auto hasMetaGraph = [](const tensorflow::SavedModel &model) {
    return llvm::any_of(model.meta_graphs(), [](const tensorflow::MetaGraphDef &m) {
      return m.has_graph_def() || m.signature_def_size() > 0;
    });
  };
  google::protobuf::LogSilencer silencer; // the text parser logs its errors
  tensorflow::SavedModel model;
  if (model.ParseFromArray(bytes.data(), int(bytes.size())) && hasMetaGraph(model))
    return true;
  model.Clear();
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true); // the fields Kiln's schema leaves out
  return parser.ParseFromString(bytes.str(), &model) && hasMetaGraph(model);
}

namespace {

/// The keys of a protobuf map, which has no order, sorted.
template <class Map> std::vector<std::string> sortedKeys(const Map &map) {
  std::vector<std::string> keys;
  for (const auto &entry : map)
    keys.push_back(entry.first);
  llvm::sort(keys);
  return keys;
}

std::string typeName(int dtype, MLIRContext *ctx) {
  if (Type type = convertDataType(dtype, ctx))
    return dataTypeName(type);
  std::string full = dataTypeEnumName(dtype); // DT_STRING -> string
  StringRef text = full;
  return text.consume_front("DT_") ? text.lower() : full;
}

std::string shapeText(const tensorflow::TensorInfo &info) {
  if (!info.has_tensor_shape() || info.tensor_shape().unknown_rank())
    return "unknown shape";
  std::vector<std::string> dims;
  for (const auto &dim : info.tensor_shape().dim())
    dims.push_back(dim.size() < 0 ? "?" : std::to_string(dim.size()));
  return "[" + llvm::join(dims, ",") + "]";
}

void printTensors(llvm::raw_ostream &os, StringRef kind,
                  const google::protobuf::Map<std::string, tensorflow::TensorInfo> &tensors,
                  MLIRContext *ctx) {
  for (const std::string &key : sortedKeys(tensors)) {
    const tensorflow::TensorInfo &info = tensors.at(key);
    os << "  " << kind << " '" << key << "': " << typeName(info.dtype(), ctx) << " "
       << shapeText(info) << " (";
    switch (info.encoding_case()) {
    case tensorflow::TensorInfo::kName:
      os << info.name();
      break;
    case tensorflow::TensorInfo::kCooSparse:
      os << "sparse: " << info.coo_sparse().values_tensor_name();
      break;
    default:
      os << "a composite tensor Kiln does not read";
      break;
    }
    os << ")\n";
  }
}

/// Reads the SavedModel in `dir` into `model`, and its file's path into `path`.
LogicalResult readSavedModel(StringRef dir, tensorflow::SavedModel &model, std::string &path,
                             MLIRContext *ctx) {
  path = savedModelFile(dir);
  if (path.empty())
    return emitError(FileLineColLoc::get(ctx, dir, 0, 0))
           << "not a SavedModel directory (no saved_model.pb or saved_model.pbtxt in it)";
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, "the SavedModel", ctx);
  if (!buffer)
    return failure();
  if (failed(parseProto(buffer->getBuffer(), path, StringRef(path).ends_with(".pbtxt"),
                        "SavedModel", model, ctx, /*partialSchema=*/true)))
    return failure();
  if (model.meta_graphs_size() == 0)
    return emitError(FileLineColLoc::get(ctx, path, 0, 0)) << "the SavedModel has no MetaGraph";
  return success();
}

std::vector<std::string> tagsOf(const tensorflow::MetaGraphDef &meta) {
  return std::vector<std::string>(meta.meta_info_def().tags().begin(),
                                  meta.meta_info_def().tags().end());
}

/// Builds the signature's feeds and fetches, by key.
class SignatureReader {
public:
  SignatureReader(const tensorflow::SignatureDef &signature, StringRef name, StringRef path,
                  const tensorflow::GraphDef &graph, MLIRContext *ctx)
      : signature(signature), name(name.str()), path(path.str()), graph(graph), ctx(ctx) {}

  LogicalResult read(ArrayRef<FeedSpec> given, ImportOptions &options);

private:
  InFlightDiagnostic error() {
    return emitError(FileLineColLoc::get(ctx, path, 0, 0)) << "signature '" << name << "': ";
  }
  std::optional<TensorId> tensorOf(StringRef kind, StringRef key,
                                   const tensorflow::TensorInfo &info);

  std::optional<SmallVector<int64_t>> declaredShape(const TensorId &id);

  const tensorflow::SignatureDef &signature;
  std::string name, path;
  const tensorflow::GraphDef &graph;
  MLIRContext *ctx;
};

/// The shape the graph's node declares for a fed tensor (a Placeholder's `shape`), when
/// the signature gives none.
std::optional<SmallVector<int64_t>> SignatureReader::declaredShape(const TensorId &id) {
  if (id.port != 0)
    return std::nullopt;
  for (const tensorflow::NodeDef &node : graph.node()) {
    if (node.name() != id.node)
      continue;
    auto it = node.attr().find("shape");
    if (it == node.attr().end() || !it->second.has_shape() ||
        !checkShape(it->second.shape()).empty())
      return std::nullopt;
    return convertShape(it->second.shape());
  }
  return std::nullopt;
}

std::optional<TensorId> SignatureReader::tensorOf(StringRef kind, StringRef key,
                                                  const tensorflow::TensorInfo &info) {
  if (info.encoding_case() != tensorflow::TensorInfo::kName) {
    error() << kind << " '" << key << "' is a " << (info.has_coo_sparse() ? "sparse" : "composite")
            << " tensor, which Kiln does not compile";
    return std::nullopt;
  }
  std::optional<TensorId> id = parseTensorId(info.name());
  if (!id)
    error() << kind << " '" << key << "' names tensor '" << info.name()
            << "', which is not NODE or NODE:PORT";
  return id;
}

LogicalResult SignatureReader::read(ArrayRef<FeedSpec> given, ImportOptions &options) {
  std::vector<std::string> inputs = sortedKeys(signature.inputs());
  llvm::StringSet<> fed;
  for (const FeedSpec &feed : given) {
    if (!signature.inputs().count(feed.key))
      return error() << "--feed names '" << feed.key << "', which is not one of its inputs ("
                     << (inputs.empty() ? "it has none" : llvm::join(inputs, ", ")) << ")";
    if (!fed.insert(feed.key).second)
      return error() << "input '" << feed.key << "' is fed twice (--feed)";
  }
  for (const std::string &key : inputs) {
    const tensorflow::TensorInfo &info = signature.inputs().at(key);
    std::optional<TensorId> id = tensorOf("input", key, info);
    if (!id)
      return failure();
    FeedSpec feed;
    feed.id = *id;
    feed.key = key;
    feed.elementType = convertDataType(info.dtype(), ctx);
    if (!feed.elementType)
      return error() << "input '" << key << "' is of type " << typeName(info.dtype(), ctx)
                     << ", which Kiln does not compile";
    if (info.has_tensor_shape() && !checkShape(info.tensor_shape()).empty())
      return error() << "input '" << key << "': " << checkShape(info.tensor_shape());
    if (info.has_tensor_shape())
      feed.shape = convertShape(info.tensor_shape());
    if (!feed.shape)
      feed.shape = declaredShape(*id);
    auto override = llvm::find_if(given, [&](const FeedSpec &f) { return f.key == key; });
    if (override != given.end()) {
      if (override->elementType && override->elementType != feed.elementType)
        return error() << "input '" << key << "' is " << dataTypeName(feed.elementType) << ", not "
                       << dataTypeName(override->elementType) << " (--feed)";
      if (override->shape && feed.shape) {
        auto a = RankedTensorType::get(*override->shape, feed.elementType);
        auto b = RankedTensorType::get(*feed.shape, feed.elementType);
        if (failed(verifyCompatibleShape(a, b)))
          return error() << "input '" << key << "' has shape " << tf::describeDims(*feed.shape)
                         << "; --feed gives " << tf::describeDims(*override->shape);
      }
      if (override->shape)
        feed.shape = override->shape;
    }
    if (!feed.shape || llvm::any_of(*feed.shape, ShapedType::isDynamic)) {
      std::string example = key + "=" + dataTypeName(feed.elementType);
      if (feed.shape)
        example += tf::describeDims(*feed.shape);
      else
        example += "[D0,D1,...]";
      return error() << "input '" << key << "' has "
                     << (feed.shape ? "shape " + tf::describeDims(*feed.shape) : "an unknown shape")
                     << ": give its shape with --feed " << example
                     << (feed.shape ? " (each ? a number)" : "");
    }
    options.feeds.push_back(std::move(feed));
  }
  for (const std::string &key : sortedKeys(signature.outputs())) {
    std::optional<TensorId> id = tensorOf("output", key, signature.outputs().at(key));
    if (!id)
      return failure();
    options.fetches.push_back(FetchSpec{*id, "", key});
  }
  if (options.fetches.empty())
    return error() << "it has no outputs, so there is nothing to compile";
  return success();
}

} // namespace

OwningOpRef<ModuleOp> importSavedModel(StringRef dir, const SavedModelOptions &options,
                                       MLIRContext *ctx) {
  tensorflow::SavedModel model;
  std::string path;
  if (failed(readSavedModel(dir, model, path, ctx)))
    return nullptr;
  auto fileError = [&]() { return emitError(FileLineColLoc::get(ctx, path, 0, 0)); };

  // The MetaGraph whose tags are exactly those asked for, as TensorFlow's loader finds it.
  std::vector<std::string> wanted =
      options.tags.empty() ? std::vector<std::string>{"serve"} : options.tags;
  std::set<std::string> wantedSet(wanted.begin(), wanted.end());
  const tensorflow::MetaGraphDef *meta = nullptr;
  std::vector<std::string> tagSets;
  for (const tensorflow::MetaGraphDef &m : model.meta_graphs()) {
    std::vector<std::string> tags = tagsOf(m);
    tagSets.push_back(tags.empty() ? "(none)" : llvm::join(tags, ","));
    if (std::set<std::string>(tags.begin(), tags.end()) == wantedSet && !meta)
      meta = &m;
  }
  if (!meta) {
    fileError() << "no MetaGraph has the tags " << llvm::join(wanted, ",")
                << " (the SavedModel's: " << llvm::join(tagSets, "; ") << "); give --tag";
    return nullptr;
  }
  std::string signatureName = options.signature.empty() ? "serving_default" : options.signature;
  auto found = meta->signature_def().find(signatureName);
  if (found == meta->signature_def().end()) {
    std::vector<std::string> names = sortedKeys(meta->signature_def());
    fileError() << "the MetaGraph tagged " << llvm::join(wanted, ",") << " has no signature '"
                << signatureName
                << "' (its signatures: " << (names.empty() ? "none" : llvm::join(names, ", "))
                << "); give --signature, or see --list-signatures";
    return nullptr;
  }

  ImportOptions importOptions;
  importOptions.importAllWithoutFetches = false;
  importOptions.feedPlaceholders = false;
  if (failed(SignatureReader(found->second, signatureName, path, meta->graph_def(), ctx)
                 .read(options.feeds, importOptions)))
    return nullptr;

  tensorflow::GraphDef graph = meta->graph_def();
  llvm::SmallString<256> prefix(dir);
  llvm::sys::path::append(prefix, "variables", "variables");
  std::string what = "signature '" + signatureName + "'";
  FailureOr<std::map<std::string, std::string>> captured =
      capturedVariableKeys(graph, meta->object_graph_def(), prefix, path, what, ctx);
  if (failed(captured) || failed(inlineFunctionCalls(graph, path, ctx)))
    return nullptr;
  std::vector<std::string> roots, stops;
  for (const FetchSpec &fetch : importOptions.fetches)
    roots.push_back(fetch.id.node);
  for (const FeedSpec &feed : importOptions.feeds)
    stops.push_back(feed.id.node);
  if (failed(freezeVariables(graph, meta->saver_def().restore_op_name(), prefix, roots, stops,
                             *captured, path, what, ctx)))
    return nullptr;
  return importInlinedGraph(graph, path, importOptions, ctx);
}

LogicalResult listSavedModelSignatures(StringRef dir, llvm::raw_ostream &os, MLIRContext *ctx) {
  tensorflow::SavedModel model;
  std::string path;
  if (failed(readSavedModel(dir, model, path, ctx)))
    return failure();
  for (const tensorflow::MetaGraphDef &meta : model.meta_graphs()) {
    std::vector<std::string> tags = tagsOf(meta);
    std::vector<std::string> names = sortedKeys(meta.signature_def());
    os << "MetaGraph with tags " << (tags.empty() ? "(none)" : llvm::join(tags, ",")) << ": "
       << names.size() << " signature" << (names.size() == 1 ? "" : "s") << "\n";
    for (const std::string &name : names) {
      const tensorflow::SignatureDef &signature = meta.signature_def().at(name);
      os << "signature '" << name << "'";
      if (!signature.method_name().empty())
        os << " (" << signature.method_name() << ")";
      os << "\n";
      printTensors(os, "input", signature.inputs(), ctx);
      printTensors(os, "output", signature.outputs(), ctx);
    }
  }
  return success();
}

} // namespace kiln::import
