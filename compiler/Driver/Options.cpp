//===- Options.cpp - parsing `kiln compile`'s option values -----------------===//
#include "compiler/Driver/Options.h"
#include "compiler/Driver/Compilation.h"

#include "dialects/TF/Ops/Infer.h"

#include "llvm/ADT/StringSwitch.h"

#include <optional>

using namespace mlir;

namespace kiln::driver {

bool parseEmitKind(StringRef text, EmitKind &kind) {
  auto k = llvm::StringSwitch<std::optional<EmitKind>>(text)
               .Case("exe", EmitKind::Exe)
               .Case("obj", EmitKind::Obj)
               .Case("mlir", EmitKind::Mlir)
               .Case("llvm", EmitKind::Llvm)
               .Case("asm", EmitKind::Asm)
               .Case("ptx", EmitKind::Ptx)
               .Default(std::nullopt);
  if (k)
    kind = *k;
  return k.has_value();
}

bool parseStage(StringRef text, Stage &stage) {
  for (const StageInfo &info : stages())
    if (info.name == text) {
      stage = info.stage;
      return true;
    }
  return false;
}

std::string tensorNameHint() {
  return "(expected NAME or NAME:PORT, PORT from 0 to " + std::to_string(import::kMaxPort) + ")";
}

/// The DTYPE[DIMS] of a --feed (`text` whole, for messages).
static bool parseFeedType(StringRef spec, StringRef text, MLIRContext *ctx, import::FeedSpec &feed,
                          std::string &error) {
  size_t bracket = spec.find('[');
  StringRef dtype = spec.substr(0, bracket).trim();
  if (!dtype.empty()) {
    feed.elementType = import::parseDataType(dtype, ctx);
    if (!feed.elementType) {
      error = "unknown dtype '" + dtype.str() +
              "' (use f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 bool, float32, DT_FLOAT ...)";
      return false;
    }
  }
  if (bracket == StringRef::npos)
    return true;
  StringRef dims = spec.substr(bracket);
  if (!dims.consume_front("[") || !dims.consume_back("]")) {
    error = "bad dimensions '" + spec.substr(bracket).str() + "' (expected [D0,D1,...])";
    return false;
  }
  llvm::SmallVector<int64_t> shape;
  dims = dims.trim();
  if (!dims.empty()) {
    llvm::SmallVector<StringRef> parts;
    dims.split(parts, ',');
    for (StringRef part : parts) {
      int64_t d;
      if (part.trim().getAsInteger(10, d) || d < 0) {
        error = "bad dimension '" + part.trim().str() + "' in '" + text.str() +
                "' (dimensions are non-negative integers)";
        return false;
      }
      shape.push_back(d);
    }
  }
  // Past what a tensor may hold, later passes would see sizes that overflow (a 32-bit shape
  // wraps to a negative dimension): refused here, with the numbers given.
  if (!tf::boundedElementCount(shape)) {
    error = "'" + text.str() + "' has more elements than a tensor may hold (" +
            std::to_string(tf::kMaxTensorElements) + ")";
    return false;
  }
  feed.shape = shape;
  return true;
}

bool parseFeed(StringRef text, MLIRContext *ctx, import::FeedSpec &feed, std::string &error) {
  auto [name, spec] = text.split('=');
  if (name.empty() || spec.empty()) {
    error = "expected NAME[:PORT]=DTYPE[DIMS], got '" + text.str() + "'";
    return false;
  }
  auto id = import::parseTensorId(name);
  if (!id) {
    error = "bad tensor name '" + name.str() + "' " + tensorNameHint();
    return false;
  }
  feed.id = *id;
  return parseFeedType(spec, text, ctx, feed, error);
}

bool parseSignatureFeed(StringRef text, MLIRContext *ctx, import::FeedSpec &feed,
                        std::string &error) {
  auto [key, spec] = text.split('=');
  if (key.empty() || spec.empty()) {
    error = "expected KEY=DTYPE[DIMS] (KEY an input of the signature), got '" + text.str() + "'";
    return false;
  }
  feed.key = key.str();
  return parseFeedType(spec, text, ctx, feed, error);
}

} // namespace kiln::driver
