//===- Module.cpp - models written as MLIR ------------------------------------===//
#include "compiler/Import/Import.h"
#include "compiler/Import/ProtoParse.h"

#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace kiln::import {

OwningOpRef<ModuleOp> importModuleFile(StringRef path, MLIRContext *ctx) {
  ctx->loadDialect<tf::TFDialect, func::FuncDialect, dialect::KilnDialect>();
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, "the module", ctx);
  if (!buffer)
    return nullptr;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sources, ParserConfig(ctx));
}

} // namespace kiln::import
