//===- ImportStage.cpp - the import stage: a graph file as a tf module ------===//
//
// A GraphDef (.pb, .pbtxt, with --feed/--fetch or a tfcompile --config), a SavedModel
// directory's signature, or an MLIR module that names its own feeds and fetches.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Driver/Compilation.h"
#include "compiler/Driver/Options.h"
#include "compiler/Driver/Stats.h"

#include "compiler/Import/Import.h"

using namespace mlir;

namespace kiln::driver {

LogicalResult Compilation::importGraph() {
  bool isSavedModel = !savedModel.empty();
  bool isModule = StringRef(options.graphPath).ends_with(".mlir");
  if (isModule &&
      (!options.feeds.empty() || !options.fetches.empty() || !options.configPath.empty()))
    return error("--feed, --fetch and --config apply to GraphDefs; '", options.graphPath,
                 "' is an MLIR module, whose kiln.model names its feeds and fetches");
  import::ImportOptions importOptions;
  importOptions.importAllWithoutFetches = false;
  if (!options.configPath.empty() &&
      failed(import::loadConfigFile(options.configPath, importOptions, &context)))
    return failure();
  import::SavedModelOptions savedModelOptions{options.tags, options.signature, {}};
  for (const std::string &text : options.feeds) {
    import::FeedSpec feed;
    std::string message;
    if (isSavedModel ? !parseSignatureFeed(text, &context, feed, message)
                     : !parseFeed(text, &context, feed, message))
      return error("--feed: ", message);
    (isSavedModel ? savedModelOptions.feeds : importOptions.feeds).push_back(std::move(feed));
  }
  for (const std::string &text : options.fetches) {
    auto id = import::parseTensorId(text);
    if (!id)
      return error("--fetch: bad tensor name '", text, "' ", tensorNameHint());
    importOptions.fetches.push_back(import::FetchSpec{*id, "", ""});
  }
  module = isModule       ? import::importModuleFile(options.graphPath, &context)
           : isSavedModel ? import::importSavedModel(options.graphPath, savedModelOptions, &context)
                          : import::importGraphDefFile(options.graphPath, importOptions, &context);
  if (!module)
    return failure();
  // The model takes its name from --name or the output file (a module without a
  // kiln.model gets one when it is lowered).
  nameModel();
  importedOps = countOps(*module);
  return success();
}

} // namespace kiln::driver
