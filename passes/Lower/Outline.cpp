//===- Outline.cpp - generated loops in functions of their own ------------------===//
#include "passes/Lower/Outline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln::lower {

bool isBarePointer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  SmallVector<int64_t> strides;
  int64_t offset;
  return memref && memref.hasStaticShape() &&
         succeeded(memref.getStridesAndOffset(strides, offset)) && !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

namespace {

/// The bytes a bare-pointer buffer spans: [begin, end) from the start of `root`, the
/// value (or global) its views come from.
struct Extent {
  Value root;
  StringAttr global;
  /// The root is an object of its own (a global, an allocation): it overlaps nothing
  /// else. Two different function arguments may be the same memory.
  bool distinctObject = false;
  int64_t begin = 0, end = 0;

  bool sameRoot(const Extent &other) const {
    return global ? global == other.global : root == other.root;
  }
  bool sameBytes(const Extent &other) const {
    return sameRoot(other) && begin == other.begin && end == other.end;
  }
  bool mayOverlap(const Extent &other) const {
    if (begin == end || other.begin == other.end)
      return false;
    if (sameRoot(other))
      return begin < other.end && other.begin < end;
    return !distinctObject && !other.distinctObject;
  }
};

/// The object `value` is a view of (root, global, distinctObject), and in `shift` the bytes
/// from that object's start to the aligned pointer `value`'s type counts its offset from.
std::optional<Extent> rootOf(Value value, int64_t &shift) {
  Extent extent;
  shift = 0;
  Value base = value;
  // Views keep the offset from their source's aligned pointer in their type; memref.view
  // starts a new one, `byte_shift` past its source's.
  while (Operation *def = base.getDefiningOp()) {
    if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
            memref::ReinterpretCastOp>(def)) {
      base = def->getOperand(0);
      continue;
    }
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> bytes = getConstantIntValue(view.getByteShift());
      auto source = cast<MemRefType>(view.getSource().getType());
      SmallVector<int64_t> sourceStrides;
      int64_t sourceOffset;
      if (!bytes || failed(source.getStridesAndOffset(sourceStrides, sourceOffset)) ||
          sourceOffset != 0)
        return std::nullopt;
      shift += *bytes;
      base = view.getSource();
      continue;
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(def)) {
      extent.global = global.getNameAttr().getAttr();
      extent.distinctObject = true;
    } else if (isa<memref::AllocOp, memref::AllocaOp>(def)) {
      extent.distinctObject = true;
    }
    break;
  }
  extent.root = base;
  return extent;
}

/// The bytes an element of `type` takes, its strides and offset (in elements), or failure.
LogicalResult layoutOf(MemRefType type, int64_t &elementBytes, SmallVectorImpl<int64_t> &strides,
                       int64_t &offset) {
  if (!type.getElementType().isIntOrIndexOrFloat() || type.getElementType().isIndex())
    return failure();
  elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  return type.getStridesAndOffset(strides, offset);
}

std::optional<Extent> extentOf(Value value) {
  auto type = cast<MemRefType>(value.getType());
  int64_t elementBytes, offset;
  SmallVector<int64_t> strides;
  if (failed(layoutOf(type, elementBytes, strides, offset)))
    return std::nullopt;
  int64_t low = offset, high = offset;
  bool empty = false;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size == 0)
      empty = true;
    else if (stride >= 0)
      high += (size - 1) * stride;
    else
      low += (size - 1) * stride;
  }
  int64_t shift;
  std::optional<Extent> extent = rootOf(value, shift);
  if (!extent)
    return std::nullopt;
  extent->begin = empty ? 0 : shift + low * elementBytes;
  extent->end = empty ? 0 : shift + (high + 1) * elementBytes;
  return extent;
}

/// The bytes of a buffer's slices along one dimension: slice i spans
/// [begin + i * step, begin + i * step + size) of `root`'s object.
struct Slices {
  Extent root;
  int64_t begin, step, size;
};

std::optional<Slices> slicesOf(Value value, unsigned dim) {
  auto type = cast<MemRefType>(value.getType());
  int64_t elementBytes, offset;
  SmallVector<int64_t> strides;
  if (!isBarePointer(type) || failed(layoutOf(type, elementBytes, strides, offset)) ||
      dim >= strides.size())
    return std::nullopt;
  int64_t last = 0; // the last element of slice 0, from its first
  for (auto [d, size, stride] : llvm::enumerate(type.getShape(), strides)) {
    if (size == 0 || stride < 0)
      return std::nullopt;
    if (d != dim)
      last += (size - 1) * stride;
  }
  int64_t shift;
  std::optional<Extent> root = rootOf(value, shift);
  if (!root)
    return std::nullopt;
  return Slices{*root, shift + offset * elementBytes, strides[dim] * elementBytes,
                (last + 1) * elementBytes};
}

} // namespace

FailureOr<OutlinedOperands> collectOutlinedOperands(ArrayRef<Value> used) {
  OutlinedOperands result;
  // The extent of each buffer argument (std::nullopt: unknown, overlapping anything).
  SmallVector<std::optional<Extent>> extents;
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>()) {
      result.constants.push_back(def);
      continue;
    }
    if (!isa<MemRefType>(v.getType())) {
      if (!v.getType().isIntOrIndexOrFloat())
        return failure();
      result.argumentOf[v] = result.arguments.size();
      result.arguments.push_back(v);
      extents.push_back(std::nullopt);
      continue;
    }
    if (!isBarePointer(v.getType()))
      return failure();
    std::optional<Extent> extent = extentOf(v);
    // The same bytes seen through the same type: one argument.
    std::optional<unsigned> same;
    for (auto [i, arg] : llvm::enumerate(result.arguments))
      if (!same && extent && extents[i] && arg.getType() == v.getType() &&
          extents[i]->sameBytes(*extent))
        same = i;
    if (same) {
      result.argumentOf[v] = *same;
      continue;
    }
    result.argumentOf[v] = result.arguments.size();
    result.arguments.push_back(v);
    extents.push_back(extent);
  }
  for (auto [i, arg] : llvm::enumerate(result.arguments)) {
    bool disjoint = isa<MemRefType>(arg.getType()) && extents[i].has_value();
    for (auto [j, other] : llvm::enumerate(result.arguments)) {
      if (!disjoint)
        break;
      if (i != j && isa<MemRefType>(other.getType()))
        disjoint = extents[j] && !extents[i]->mayOverlap(*extents[j]);
    }
    result.noalias.push_back(disjoint);
  }
  return result;
}

bool buffersMayOverlap(Value a, Value b, bool distinctArguments) {
  if (a == b)
    return true;
  if (!isBarePointer(a.getType()) || !isBarePointer(b.getType()))
    return true;
  std::optional<Extent> x = extentOf(a), y = extentOf(b);
  if (!x || !y)
    return true;
  if (distinctArguments && isa<BlockArgument>(x->root) && isa<BlockArgument>(y->root) &&
      x->root != y->root)
    return false;
  return x->mayOverlap(*y);
}

bool slicesAligned(Value a, unsigned dimA, Value b, unsigned dimB) {
  std::optional<Slices> x = slicesOf(a, dimA), y = slicesOf(b, dimB);
  return x && y && x->root.sameRoot(y->root) && x->begin == y->begin && x->step == y->step &&
         x->step > 0 && x->size <= x->step && y->size <= y->step;
}

bool sameBuffer(Value a, Value b) {
  if (a == b)
    return true;
  if (a.getType() != b.getType() || !isBarePointer(a.getType()))
    return false;
  std::optional<Extent> x = extentOf(a), y = extentOf(b);
  return x && y && x->sameBytes(*y);
}

void reassociateReductions(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0)
    return;
  Block *body = op.getBody();
  for (BlockArgument init : body->getArguments().drop_front(op.getNumDpsInputs()))
    for (Operation *user : init.getUsers())
      if (isa<arith::AddFOp, arith::MulFOp>(user)) {
        auto flags = cast<arith::ArithFastMathInterface>(user);
        arith::FastMathFlags fm = flags.getFastMathFlagsAttr().getValue();
        user->setAttr(
            flags.getFastMathAttrName(),
            arith::FastMathFlagsAttr::get(op.getContext(), fm | arith::FastMathFlags::reassoc));
      }
}

func::FuncOp createOutlinedFunction(OpBuilder &b, Operation *after, Location loc, StringRef name,
                                    TypeRange leading, const OutlinedOperands &operands,
                                    IRMapping &map) {
  SmallVector<Type> types(leading);
  for (Value v : operands.arguments)
    types.push_back(v.getType());
  b.setInsertionPointAfter(after);
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  func.setPrivate();
  func->setAttr(kOutlinedAttr, b.getUnitAttr());
  for (auto [i, noalias] : llvm::enumerate(operands.noalias))
    if (noalias)
      func.setArgAttr(leading.size() + i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  for (Operation *c : operands.constants)
    b.clone(*c, map);
  for (auto [v, index] : operands.argumentOf)
    map.map(v, entry->getArgument(leading.size() + index));
  return func;
}

} // namespace kiln::lower
