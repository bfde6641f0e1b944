//===- FuseAttention.cpp - softmax(scale * q k^T) v becomes one kiln.attention --===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using namespace kiln;

namespace {

/// A batched product's operands and adjoint flags (tf.BatchMatMul or tf.BatchMatMulV2).
struct Product {
  Operation *op = nullptr;
  Value x, y;
  bool adjX = false, adjY = false;
};

std::optional<Product> product(Operation *op) {
  if (auto m = dyn_cast_or_null<tf::BatchMatMulV2Op>(op))
    return Product{op, m.getX(), m.getY(), m.getAdjX(), m.getAdjY()};
  if (auto m = dyn_cast_or_null<tf::BatchMatMulOp>(op))
    return Product{op, m.getX(), m.getY(), m.getAdjX(), m.getAdjY()};
  return std::nullopt;
}

/// Whether `use` is a control input of its op (TensorFlow's `^node`): such edges order
/// ops, which sequential code does not need.
bool isControlUse(OpOperand &use) {
  auto op = dyn_cast<tf::GraphOpInterface>(use.getOwner());
  return op &&
         use.getOperandNumber() >= use.getOwner()->getNumOperands() - op.getControlInputs().size();
}

/// The one op that reads `v` as data (control inputs aside), if there is exactly one.
Operation *onlyDataUser(Value v) {
  Operation *found = nullptr;
  for (OpOperand &use : v.getUses()) {
    if (isControlUse(use))
      continue;
    if (found)
      return nullptr;
    found = use.getOwner();
  }
  return found;
}

/// The value of a constant f32 tensor of one element, if `v` is one.
std::optional<float> scalarConstant(Value v) {
  auto c = v.getDefiningOp<tf::ConstOp>();
  auto values = c ? dyn_cast<DenseFPElementsAttr>(c.getValue()) : nullptr;
  if (!values || values.getNumElements() != 1 || !values.getElementType().isF32())
    return std::nullopt;
  return (*values.begin()).convertToFloat();
}

/// A static f32 tensor of rank 3 or 4.
bool isOperand(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32() &&
         (t.getRank() == 3 || t.getRank() == 4);
}

/// `v` is tf.Transpose(x, [0, 2, 1, 3]): x, a [batch, seq, heads, width] tensor.
Value seqMajorSource(Value v) {
  auto t = v.getDefiningOp<tf::TransposeOp>();
  DenseIntElementsAttr perm;
  if (!t || !matchPattern(t.getPerm(), m_Constant(&perm)))
    if (auto c = t ? t.getPerm().getDefiningOp<tf::ConstOp>() : nullptr)
      perm = dyn_cast<DenseIntElementsAttr>(c.getValue());
  if (!perm || perm.getNumElements() != 4)
    return Value();
  SmallVector<int64_t> p;
  for (const APInt &i : perm)
    p.push_back(i.getSExtValue());
  return p == SmallVector<int64_t>{0, 2, 1, 3} && isOperand(t.getX()) ? t.getX() : Value();
}

struct Match {
  Product scores, values;
  Operation *mask = nullptr; // the AddV2 or Add of a mask, if any
  Value maskValue;
  Operation *scale = nullptr; // the Mul or RealDiv, if any
  Operation *softmax;
  float scaleValue = 1.0f;
};

/// softmax(s * c + mask) v, with s = q k^T, the scaling (* c or / c) and the mask each
/// optional: the root is the product of the weights with v; s, its scaled and masked forms
/// and the weights have no other reader.
std::optional<Match> match(Operation *op) {
  Match m;
  std::optional<Product> values = product(op);
  if (!values || values->adjX || values->adjY || !isOperand(values->x) || !isOperand(values->y) ||
      !isOperand(op->getResult(0)))
    return std::nullopt;
  m.values = *values;
  auto softmax = values->x.getDefiningOp<tf::SoftmaxOp>();
  if (!softmax || onlyDataUser(softmax.getResult()) != op)
    return std::nullopt;
  m.softmax = softmax;
  Value logits = softmax.getLogits();
  Operation *def = logits.getDefiningOp();
  Operation *reader = softmax; // the one reader of `logits`
  if (isa_and_nonnull<tf::AddV2Op, tf::AddOp>(def)) {
    if (onlyDataUser(logits) != reader)
      return std::nullopt;
    // The scores' side is the product or a scaling of it; the other operand is the mask
    // (which may be a product or a scaling itself: BERT's (1 - m) * -10000).
    Value a = def->getOperand(0), b = def->getOperand(1);
    auto scoresSide = [](Value v) {
      Operation *d = v.getDefiningOp();
      if (isa_and_nonnull<tf::MulOp, tf::RealDivOp>(d)) {
        Operation *x = d->getOperand(0).getDefiningOp(), *y = d->getOperand(1).getDefiningOp();
        d = product(x) ? x : y;
      }
      std::optional<Product> p = product(d);
      return p && p->adjY && !p->adjX;
    };
    if (!scoresSide(a))
      std::swap(a, b);
    auto maskType = dyn_cast<RankedTensorType>(b.getType());
    if (!scoresSide(a) || a.getType() != logits.getType() || !maskType ||
        !maskType.hasStaticShape() || !maskType.getElementType().isF32() ||
        maskType.getRank() < 1 || maskType.getRank() > cast<ShapedType>(a.getType()).getRank())
      return std::nullopt;
    m.mask = def;
    m.maskValue = b;
    reader = def;
    logits = a;
    def = logits.getDefiningOp();
  }
  if (isa_and_nonnull<tf::MulOp, tf::RealDivOp>(def)) {
    if (onlyDataUser(logits) != reader)
      return std::nullopt;
    Value a = def->getOperand(0), b = def->getOperand(1);
    std::optional<float> c = scalarConstant(b);
    if (!c && isa<tf::MulOp>(def) && (c = scalarConstant(a)))
      std::swap(a, b);
    if (!c || a.getType() != logits.getType())
      return std::nullopt;
    m.scale = def;
    m.scaleValue = isa<tf::MulOp>(def) ? *c : 1.0f / *c;
    reader = def;
    logits = a;
  }
  std::optional<Product> scores = product(logits.getDefiningOp());
  if (!scores || scores->adjX || !scores->adjY || onlyDataUser(logits) != reader ||
      !isOperand(scores->x) || !isOperand(scores->y))
    return std::nullopt;
  m.scores = *scores;
  // q [batch..., sq, d], k [batch..., sk, d], v [batch..., sk, dv]: the same batch
  // dimensions (no broadcasting), all of rank 3 or all of rank 4.
  auto shape = [](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };
  auto q = shape(scores->x), k = shape(scores->y), v = shape(values->y);
  if (q.size() != k.size() || q.size() != v.size() || q.drop_back(2) != k.drop_back(2) ||
      q.drop_back(2) != v.drop_back(2) || q.back() != k.back() ||
      k[k.size() - 2] != v[v.size() - 2])
    return std::nullopt;
  // The mask broadcasts to the scores NumPy-style, but along the keys (the kernel reads a
  // row of it in place).
  if (m.mask) {
    auto s = shape(logits), mask = shape(m.maskValue);
    for (size_t i = 0; i < mask.size(); ++i) {
      int64_t full = s[s.size() - mask.size() + i];
      if (mask[i] != full && (mask[i] != 1 || i + 1 == mask.size()))
        return std::nullopt;
    }
  }
  return m;
}

struct FuseAttentionPass : kiln::lower::impl::FuseAttentionPassBase<FuseAttentionPass> {
  void runOnOperation() override {
    SmallVector<Operation *> roots;
    getOperation().walk([&](Operation *op) {
      if (isa<tf::BatchMatMulV2Op, tf::BatchMatMulOp>(op) && !kiln::dialect::isOnGpu(op))
        roots.push_back(op);
    });
    for (Operation *root : roots)
      if (std::optional<Match> m = match(root))
        fuse(*m);
  }

  void fuse(Match &m) {
    Operation *root = m.values.op;
    OpBuilder b(root);
    Location loc = root->getLoc();
    auto f32 = b.getF32Type();
    // `v` with dimensions of 1 inserted, its dimension i going to dimension to[i] of 4.
    auto expand = [&](Value v, ArrayRef<int64_t> to) -> Value {
      auto shape = cast<RankedTensorType>(v.getType()).getShape();
      if (shape.size() == 4)
        return v;
      SmallVector<int64_t> target(4, 1);
      SmallVector<ReassociationIndices> groups(shape.size());
      for (size_t i = 0; i < shape.size(); ++i) {
        target[to[i]] = shape[i];
        int64_t first = i == 0 ? 0 : to[i - 1] + 1;
        int64_t last = i + 1 == shape.size() ? 3 : to[i];
        for (int64_t d = first; d <= last; ++d)
          groups[i].push_back(d);
      }
      return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(target, f32), v, groups);
    };
    // Rank 3 operands get a heads dimension of 1.
    auto rank4 = [&](Value v) { return expand(v, {0, 2, 3}); };
    auto operand = [&](Value v, bool &seqMajor) -> Value {
      if (Value source = seqMajorSource(v)) {
        seqMajor = true;
        return source;
      }
      return rank4(v);
    };
    bool qs = false, ks = false, vs = false, os = false;
    Value q = operand(m.scores.x, qs), k = operand(m.scores.y, ks), v = operand(m.values.y, vs);
    // The result: [batch, sq, heads, dv] when a Transpose to that layout alone reads it.
    Value result = root->getResult(0);
    Operation *replaced = root;
    auto resultType = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> outShape(resultType.getShape());
    if (outShape.size() == 3)
      outShape.insert(outShape.begin() + 1, 1);
    Operation *user = onlyDataUser(result);
    if (user && isa<tf::TransposeOp>(user) && user->getOperand(0) == result &&
        seqMajorSource(user->getResult(0)) == result) {
      os = true;
      replaced = user;
      std::swap(outShape[1], outShape[2]);
    }
    auto outType = RankedTensorType::get(outShape, f32);
    Value init = tensor::EmptyOp::create(b, loc, outShape, f32);
    // The mask aligned with the scores' last dimensions, then placed in [batch, heads, sq,
    // sk] (rank 3 scores have no heads).
    Value mask;
    if (m.mask) {
      int64_t rank = cast<ShapedType>(m.scores.op->getResult(0).getType()).getRank();
      int64_t maskRank = cast<ShapedType>(m.maskValue.getType()).getRank();
      SmallVector<int64_t> to;
      for (int64_t i = 0; i < maskRank; ++i) {
        int64_t p = rank - maskRank + i;
        to.push_back(rank == 4 || p == 0 ? p : p + 1);
      }
      mask = expand(m.maskValue, to);
    }
    auto unit = [&](bool set) { return set ? b.getUnitAttr() : UnitAttr(); };
    Value out = kiln::dialect::AttentionOp::create(b, loc, outType, q, k, v, mask, init,
                                                   b.getF32FloatAttr(m.scaleValue), unit(qs),
                                                   unit(ks), unit(vs), unit(os));
    Value old = replaced->getResult(0);
    if (old.getType() != outType) // rank 3: drop the heads dimension again
      out = tensor::CollapseShapeOp::create(b, loc, old.getType(), out,
                                            ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    // The fused ops go, and with them the control edges from them:
    // the code is sequential.
    llvm::SmallSetVector<Operation *, 6> fused;
    for (Operation *op : {replaced, root, m.softmax, m.mask, m.scale, m.scores.op})
      if (op)
        fused.insert(op);
    old.replaceAllUsesWith(out);
    for (Operation *op : fused)
      for (OpOperand &use : llvm::make_early_inc_range(op->getResult(0).getUses())) {
        if (!isControlUse(use))
          continue; // one of the fused ops, erased below
        Operation *owner = use.getOwner();
        auto graphOp = cast<tf::GraphOpInterface>(owner);
        unsigned data = owner->getNumOperands() - graphOp.getControlInputs().size();
        graphOp.getControlInputsMutable().erase(use.getOperandNumber() - data);
      }
    for (Operation *op : fused)
      op->erase();
    ++numFused;
  }
};

} // namespace
