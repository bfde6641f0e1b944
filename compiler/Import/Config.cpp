//===- Config.cpp - tfcompile configs (tensorflow.tf2xla.Config) --------------===//
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/ProtoParse.h"

#include "tf2xla.pb.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace kiln::import {

/// A config's output_index is an int64; TensorFlow's ports are int32.
static LogicalResult checkOutputIndex(const tensorflow::tf2xla::TensorId &id, StringRef what,
                                      Location loc) {
  if (id.output_index() >= 0 && id.output_index() <= kMaxPort)
    return success();
  return emitError(loc) << what << " '" << id.node_name() << "' has output_index "
                        << id.output_index() << "; it must be from 0 to " << kMaxPort;
}

LogicalResult loadConfigFile(StringRef path, ImportOptions &options, MLIRContext *ctx) {
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, "the config", ctx);
  if (!buffer)
    return failure();
  tensorflow::tf2xla::Config config;
  if (failed(parseProto(buffer->getBuffer(), path, /*text=*/true, "tf2xla.Config", config, ctx)))
    return failure();
  for (const auto &feed : config.feed()) {
    if (feed.id().node_name().empty())
      return emitError(loc) << "a feed has no id { node_name }";
    if (failed(checkOutputIndex(feed.id(), "feed", loc)))
      return failure();
    FeedSpec spec;
    spec.id = TensorId{feed.id().node_name(), static_cast<int>(feed.id().output_index())};
    spec.alias = feed.name();
    if (feed.type() != tensorflow::DT_INVALID) {
      spec.elementType = convertDataType(feed.type(), ctx);
      if (!spec.elementType)
        return emitError(loc) << "feed '" << spec.id.node << "' has unsupported type "
                              << dataTypeEnumName(feed.type());
    }
    if (feed.has_shape()) {
      std::string error = checkShape(feed.shape());
      if (!error.empty())
        return emitError(loc) << "feed '" << spec.id.node << "': " << error;
      spec.shape = convertShape(feed.shape());
    }
    options.feeds.push_back(std::move(spec));
  }
  for (const auto &fetch : config.fetch()) {
    if (fetch.id().node_name().empty())
      return emitError(loc) << "a fetch has no id { node_name }";
    if (failed(checkOutputIndex(fetch.id(), "fetch", loc)))
      return failure();
    options.fetches.push_back(
        FetchSpec{TensorId{fetch.id().node_name(), static_cast<int>(fetch.id().output_index())},
                  fetch.name(), ""});
  }
  if (config.variable_size() > 0)
    return emitError(loc) << "config variables are not supported yet (variable '"
                          << config.variable(0).node_name() << "')";
  return success();
}

} // namespace kiln::import
