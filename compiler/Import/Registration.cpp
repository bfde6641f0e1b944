//===- Registration.cpp - the --import-graphdef translation -------------------===//
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/TensorBundle.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

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
          options.feeds.push_back(FeedSpec{*id, {}, {}, "", ""});
        }
        for (const std::string &fetch : clFetches) {
          auto id = parseTensorId(fetch);
          if (!id) {
            emitError(UnknownLoc::get(ctx)) << "bad --graphdef-fetch '" << fetch << "'";
            return nullptr;
          }
          options.fetches.push_back(FetchSpec{*id, "", ""});
        }
        options.feedPlaceholders = !options.fetches.empty();
        StringRef name = buffer->getBufferIdentifier();
        return importGraphDefBuffer(buffer->getBuffer(), name, options, ctx);
      },
      [](DialectRegistry &registry) { registry.insert<tf::TFDialect, func::FuncDialect>(); });
}

namespace {

/// Up to 8 elements of a tensor's bytes as numbers, or its strings, for
/// --dump-tensor-bundle.
std::string describeValues(const TensorBundle::Entry &e, llvm::StringRef bytes) {
  const int64_t count = e.elements();
  std::string out;
  auto list = [&](size_t width, auto print) {
    for (int64_t i = 0; i < count && i < 8 && size_t(i + 1) * width <= bytes.size(); ++i)
      out += (i ? " " : "") + print(bytes.data() + i * width);
    if (count > 8)
      out += " ...";
  };
  auto as = [](auto zero) {
    return [](const char *p) {
      decltype(zero) v;
      std::memcpy(&v, p, sizeof v);
      if constexpr (std::is_floating_point_v<decltype(zero)>) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", double(v));
        return std::string(text);
      } else
        return std::to_string(v);
    };
  };
  switch (e.dtype) {
  case 1:
    list(4, as(float()));
    break; // DT_FLOAT
  case 2:
    list(8, as(double()));
    break; // DT_DOUBLE
  case 3:
    list(4, as(int32_t()));
    break; // DT_INT32
  case 9:
    list(8, as(int64_t()));
    break; // DT_INT64
  case 10:
    list(1, as(bool()));
    break; // DT_BOOL
  case TensorBundle::kStringType: {
    auto strings = TensorBundle::decodeStrings(bytes, count);
    if (!strings)
      return llvm::toString(strings.takeError());
    for (size_t i = 0; i < strings->size() && i < 8; ++i) {
      // At most 48 bytes, printable ASCII as is (but quotes and backslashes), the rest as
      // \xNN.
      const std::string &text = (*strings)[i];
      out += i ? " \"" : "\"";
      for (size_t b = 0; b < text.size() && b < 48; ++b) {
        auto c = static_cast<unsigned char>(text[b]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
          out += char(c);
        else
          out += llvm::formatv("\\x{0:x-2}", unsigned(c)).str();
      }
      out += text.size() > 48 ? "...\"" : "\"";
    }
    break;
  }
  default:
    out = llvm::formatv("{0} bytes", bytes.size()).str();
  }
  return out;
}

} // namespace

void registerTensorBundleTranslation() {
  TranslateRegistration registration(
      "dump-tensor-bundle",
      "Print the tensors of a TensorFlow checkpoint (the input is its PREFIX.index): name, "
      "dtype, shape and the first 8 values, checking every checksum",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr, llvm::raw_ostream &os,
         MLIRContext *ctx) -> LogicalResult {
        StringRef path =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID())->getBufferIdentifier();
        if (!path.consume_back(".index"))
          return emitError(UnknownLoc::get(ctx))
                 << "'" << path << "': give a checkpoint's PREFIX.index file";
        llvm::Expected<TensorBundle> bundle = TensorBundle::open(path);
        if (!bundle)
          return emitError(UnknownLoc::get(ctx)) << llvm::toString(bundle.takeError());
        for (const auto &[key, e] : bundle->entries()) {
          os << key << " " << dataTypeEnumName(e.dtype) << " [";
          llvm::interleave(e.shape, os, ",");
          os << "]";
          llvm::Expected<std::string> bytes = bundle->read(key);
          if (!bytes)
            return emitError(UnknownLoc::get(ctx)) << llvm::toString(bytes.takeError());
          os << ": " << describeValues(e, *bytes) << "\n";
        }
        return success();
      });
}

} // namespace kiln::import
