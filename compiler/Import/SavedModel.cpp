//===- SavedModel.cpp - reading SavedModel directories --------------------------===//
//
// A SavedModel directory holds saved_model.pb (or .pbtxt): one MetaGraphDef per set of
// tags, each with a GraphDef, a SaverDef (TensorFlow 1) and signatures, whose keys name
// the graph's tensors users feed and fetch; variables/ holds the checkpoint
// (TensorBundle.h). This file reads the protos; compiling a signature is the next step.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/ProtoParse.h"

#include "saved_model.pb.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

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
template <class Map>
std::vector<std::string> sortedKeys(const Map &map) {
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
    case tensorflow::TensorInfo::kName: os << info.name(); break;
    case tensorflow::TensorInfo::kCooSparse:
      os << "sparse: " << info.coo_sparse().values_tensor_name();
      break;
    default: os << "a composite tensor Kiln does not read"; break;
    }
    os << ")\n";
  }
}

} // namespace

LogicalResult listSavedModelSignatures(StringRef dir, llvm::raw_ostream &os,
                                       MLIRContext *ctx) {
  std::string path = savedModelFile(dir);
  if (path.empty())
    return emitError(FileLineColLoc::get(ctx, dir, 0, 0))
           << "not a SavedModel directory (no saved_model.pb or saved_model.pbtxt in it)";
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, "the SavedModel", ctx);
  if (!buffer)
    return failure();
  tensorflow::SavedModel model;
  if (failed(parseProto(buffer->getBuffer(), path, StringRef(path).ends_with(".pbtxt"),
                        "SavedModel", model, ctx, /*partialSchema=*/true)))
    return failure();
  if (model.meta_graphs_size() == 0)
    return emitError(FileLineColLoc::get(ctx, path, 0, 0)) << "the SavedModel has no MetaGraph";
  for (const tensorflow::MetaGraphDef &meta : model.meta_graphs()) {
    std::vector<std::string> tags(meta.meta_info_def().tags().begin(),
                                  meta.meta_info_def().tags().end());
    std::vector<std::string> names = sortedKeys(meta.signature_def());
    os << "MetaGraph with tags " << (tags.empty() ? "(none)" : llvm::join(tags, ","))
       << ": " << names.size() << " signature" << (names.size() == 1 ? "" : "s") << "\n";
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
