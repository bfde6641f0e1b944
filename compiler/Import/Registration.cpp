//===- Registration.cpp - the --import-graphdef translation -------------------===//
#include "compiler/Import/Import.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace kiln::import {

namespace {
llvm::cl::list<std::string> clFeeds("graphdef-feed",
                                    llvm::cl::desc("Tensor to feed, NAME[:PORT] (repeatable)"));
llvm::cl::list<std::string> clFetches("graphdef-fetch",
                                      llvm::cl::desc("Tensor to fetch, NAME[:PORT] (repeatable)"));
} // namespace

void registerImportTranslation() {
  TranslateToMLIRRegistration registration(
      "import-graphdef", "Import a TensorFlow GraphDef (binary .pb or text .pbtxt)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ImportOptions options;
        for (const std::string &feed : clFeeds) {
          auto id = parseTensorId(feed);
          if (!id) {
            emitError(UnknownLoc::get(ctx)) << "bad --graphdef-feed '" << feed << "'";
            return nullptr;
          }
          options.feeds.push_back(FeedSpec{*id, {}, {}, ""});
        }
        for (const std::string &fetch : clFetches) {
          auto id = parseTensorId(fetch);
          if (!id) {
            emitError(UnknownLoc::get(ctx)) << "bad --graphdef-fetch '" << fetch << "'";
            return nullptr;
          }
          options.fetches.push_back(FetchSpec{*id, ""});
        }
        options.feedPlaceholders = !options.fetches.empty();
        StringRef name = buffer->getBufferIdentifier();
        return importGraphDefBuffer(buffer->getBuffer(), name, options, ctx);
      },
      [](DialectRegistry &registry) {
        registry.insert<tf::TFDialect, func::FuncDialect>();
      });
}

} // namespace kiln::import
