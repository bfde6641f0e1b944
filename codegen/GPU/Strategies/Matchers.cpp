//===- Matchers.cpp - op shapes shared by the GPU kernel strategies -----------===//
#include "codegen/GPU/Strategies/Matchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln::codegen::gpu {

FloatType plainProductType(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return nullptr;
  Block &body = op.getRegion().front();
  if (!llvm::hasNItems(body.without_terminator(), 2))
    return nullptr;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add =
      yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp<arith::AddFOp>() : nullptr;
  if (!add)
    return nullptr;
  Value out = body.getArgument(2), a = body.getArgument(0), b = body.getArgument(1);
  Value other = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : nullptr;
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
  bool product =
      mul && ((mul.getLhs() == a && mul.getRhs() == b) || (mul.getLhs() == b && mul.getRhs() == a));
  return product ? dyn_cast<FloatType>(add.getType()) : nullptr;
}

bool isHalfProduct(linalg::GenericOp op) {
  FloatType type = plainProductType(op);
  return type && (type.isF16() || type.isBF16());
}

bool vectorRows(Type type, int64_t elements) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() == 0)
    return false;
  unsigned bits = memref.getElementTypeBitWidth();
  if ((bits != 16 && bits != 32) || !memref.getElementType().isIntOrFloat())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || strides.back() != 1 ||
      ShapedType::isDynamic(offset) || offset % elements != 0)
    return false;
  for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % elements != 0)
      return false;
  return memref.getShape().back() % elements == 0;
}

std::optional<ProductMatch> matchProduct(linalg::GenericOp op, int64_t least, int64_t tile) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      op.getNumParallelLoops() < 2 || !op.getRegion().front().getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t loops = int64_t(iterators.size()), di = loops - 3, dj = loops - 2, dk = loops - 1;
  if (iterators[dk] != utils::IteratorType::reduction)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t m = ranges[di], n = ranges[dj], k = ranges[dk], batch = 1;
  for (int64_t d = 0; d < di; ++d)
    batch *= ranges[d];
  if (m < least || n < least || k < least || batch > 65535 || (m + tile - 1) / tile > 65535 ||
      (n + tile - 1) / tile > INT32_MAX)
    return std::nullopt;
  auto uses = [](AffineMap map, int64_t d) {
    return llvm::any_of(map.getResults(),
                        [&](AffineExpr e) { return e.isFunctionOfDim(unsigned(d)); });
  };
  // Which input is read at (i, k) and which at (k, j).
  OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
  if (uses(op.getMatchingIndexingMap(a), dj))
    std::swap(a, b);
  AffineMap mapA = op.getMatchingIndexingMap(a), mapB = op.getMatchingIndexingMap(b);
  OpOperand *c = op.getDpsInitOperand(0);
  AffineMap mapC = op.getMatchingIndexingMap(c);
  if (uses(mapA, dj) || !uses(mapA, dk) || uses(mapB, di) || !uses(mapB, dk) || uses(mapC, dk))
    return std::nullopt;
  return ProductMatch{a, b, c, mapA, mapB, mapC, std::move(ranges), m, n, k, di};
}

} // namespace kiln::codegen::gpu
