//===- KernelCalls.cpp - large matrix products call the runtime's kernels -----===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>
#include <numeric>

namespace kiln::lower {
#define GEN_PASS_DEF_KERNELCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct MatmulMatch {
  Value a, b, c;
  int64_t m, n, k;
  bool transposeA, transposeB;
  // Products with leading batch loops: how many (the batch loops' sizes multiplied; 0 for
  // a plain product), and whether a or b is one matrix all of them read.
  int64_t batch = 0;
  bool broadcastA = false, broadcastB = false;
};

using kiln::dialect::KernelElement;

/// Whether `v` is a static buffer of `rank` and `element`s a kernel can read
/// (kiln.kernel_call's rule).
bool isKernelInput(Value v, int64_t rank, KernelElement element = KernelElement::F32) {
  return kiln::dialect::isKernelBuffer(v.getType(), rank, element);
}

/// Whether `v` can be a kernel's output: a static buffer of `rank` and `element`s,
/// contiguous or any strided view (a channel slice of a concatenation, say): the kernel
/// then writes a contiguous buffer of its own, copied into the view (`call` below).
bool isKernelOutput(Value v, int64_t rank, KernelElement element = KernelElement::F32) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getRank() == rank && t.hasStaticShape() &&
         kiln::dialect::isKernelElement(t.getElementType(), element) &&
         (t.getLayout().isIdentity() || isa<StridedLayoutAttr>(t.getLayout()));
}

/// Matches the generic the MatMul and BatchMatMul lowerings make: loops (batch..., m, k, n),
/// C += A * B, A read as (m, k) or (k, m) and B as (k, n) or (n, k) after batch indices that
/// are either the batch loops themselves or all 0 (one matrix for the whole batch).
std::optional<MatmulMatch> matchMatmul(linalg::GenericOp op,
                                       KernelElement element = KernelElement::F32) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  int64_t loops = iterators.size(), batchLoops = loops - 3;
  if (loops < 3 || iterators[batchLoops] != utils::IteratorType::parallel ||
      iterators[batchLoops + 1] != utils::IteratorType::reduction ||
      iterators[batchLoops + 2] != utils::IteratorType::parallel)
    return std::nullopt;
  for (int64_t i = 0; i < batchLoops; ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(batchLoops, ctx), k = getAffineDimExpr(batchLoops + 1, ctx),
             n = getAffineDimExpr(batchLoops + 2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Whether `map` reads (batch..., r, c) of `v`, a contiguous f32 buffer; `broadcast` says
  // whether its batch indices are all 0.
  auto reads = [&](AffineMap map, Value v, AffineExpr r, AffineExpr c, bool &broadcast) {
    ArrayRef<AffineExpr> results = map.getResults();
    int64_t lead = int64_t(results.size()) - 2;
    if (lead < 0 || results[lead] != r || results[lead + 1] != c ||
        !(v == op.getDpsInits()[0] ? isKernelOutput(v, lead + 2, element)
                                   : isKernelInput(v, lead + 2, element)))
      return false;
    bool loopsInOrder = lead == batchLoops, zeros = true;
    for (int64_t i = 0; i < lead; ++i) {
      loopsInOrder &= results[i] == getAffineDimExpr(i, ctx);
      zeros &= results[i] == getAffineConstantExpr(0, ctx);
    }
    broadcast = batchLoops > 0 && !loopsInOrder;
    return loopsInOrder || zeros;
  };
  MatmulMatch match{
      op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0], 0, 0, 0, false, false};
  bool outBroadcast = true;
  match.transposeA = reads(maps[0], match.a, k, m, match.broadcastA);
  match.transposeB = reads(maps[1], match.b, n, k, match.broadcastB);
  if ((!match.transposeA && !reads(maps[0], match.a, m, k, match.broadcastA)) ||
      (!match.transposeB && !reads(maps[1], match.b, k, n, match.broadcastB)) ||
      !reads(maps[2], match.c, m, n, outBroadcast) || outBroadcast)
    return std::nullopt;
  // Body: yield(out + in0 * in1).
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = dyn_cast<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  if (!mul || !add)
    return std::nullopt;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1), out = body.getArgument(2);
  bool mulOk =
      (mul.getLhs() == in0 && mul.getRhs() == in1) || (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  if (!mulOk || !addOk)
    return std::nullopt;
  auto cShape = cast<MemRefType>(match.c.getType()).getShape();
  auto aShape = cast<MemRefType>(match.a.getType()).getShape();
  match.m = cShape[batchLoops];
  match.n = cShape[batchLoops + 1];
  match.k = aShape[aShape.size() - (match.transposeA ? 2 : 1)];
  if (batchLoops > 0) {
    match.batch = 1;
    for (int64_t i = 0; i < batchLoops; ++i)
      match.batch *= cShape[i];
  }
  return match;
}

struct WindowMatch {
  Value input, filter, output;
  ArrayRef<int64_t> window; // the marker attribute's values
};

/// Matches a window generic the convolution and pooling lowerings mark with `attr`
/// (kDepthwiseAttr, kConvDirectAttr, kConvGemmAttr or kMaxPoolAttr, with 6 values,
/// kConv3x3Attr, with 2):
/// the filter (a max pool's window, never read, of rank 2) is its input, the output its init
/// (of rank `outRank`), and the image the one buffer its body loads from.
std::optional<WindowMatch> matchWindow(linalg::GenericOp op, StringRef attr, size_t values,
                                       int64_t outRank, int64_t filterRank = 4) {
  auto window = op->getAttrOfType<DenseI64ArrayAttr>(attr);
  if (!window || window.size() != static_cast<int64_t>(values) || !op.hasPureBufferSemantics() ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return std::nullopt;
  WindowMatch match{Value(), op.getDpsInputs()[0], op.getDpsInits()[0], window.asArrayRef()};
  for (auto load : op.getRegion().front().getOps<memref::LoadOp>()) {
    if (match.input && match.input != load.getMemRef())
      return std::nullopt;
    match.input = load.getMemRef();
  }
  if (!match.input || !isKernelInput(match.input, 4) || !isKernelInput(match.filter, filterRank) ||
      !isKernelOutput(match.output, outRank))
    return std::nullopt;
  return match;
}

/// The linalg.fill that initialises `c` just before `op` (only ops without memory effects,
/// or allocations of other buffers, in between), if there is one.
linalg::FillOp fillBefore(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill)
      if (isMemoryEffectFree(prev) || isa<memref::AllocOp>(prev))
        continue;
    return fill && fill.getOutputs()[0] == c ? fill : nullptr;
  }
  return nullptr;
}

/// The fill of zeros that initialises `c` just before `op`, if there is one: the kernel can
/// then overwrite C instead.
linalg::FillOp zeroFillBefore(Operation *op, Value c) {
  linalg::FillOp fill = fillBefore(op, c);
  return fill && matchPattern(fill.getInputs()[0], m_PosZeroFloat()) ? fill : nullptr;
}

/// An elementwise op after a kernel that the kernel can apply itself: out = min(max(in *
/// scale + bias (+ residual), lo), hi) per channel (the last dimension), where scale and
/// bias are per-channel buffers or scalar constants (see kiln_kernel_matmul_epilogue_f32)
/// and residual a tensor of the output's type (kiln_kernel_matmul_residual_f32).
struct EpilogueMatch {
  linalg::GenericOp op;
  Value output;      // where the result goes instead of the kernel's buffer
  Value scale, bias; // per-channel buffers, or null
  Value residual;    // the output's type, or null
  float scaleValue = 1.0f, biasValue = 0.0f;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  bool swish = false;
  SmallVector<Operation *> deadViews; // views of the kernel's buffer only `op` read
};

std::optional<float> constantF32(Value v) {
  FloatAttr attr;
  if (!v.getType().isF32() || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return static_cast<float>(attr.getValueAsDouble());
}

/// Whether `buffer`, read through `map` by a generic whose loops have the sizes `loops`, holds
/// one value per channel (the last loop) where a kernel's epilogue can read it: contiguous
/// f32, read at the last loop only, of rank 1 or shaped [1, ..., 1, channels] (as a batch
/// norm's parameters broadcast to NHWC are), its leading indices 0 or loops of size 1.
bool isChannelVector(Value buffer, AffineMap map, ArrayRef<int64_t> loops) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !isKernelInput(buffer, type.getRank()) || map.getNumResults() != type.getRank() ||
      type.getShape().back() != loops.back() ||
      map.getResults().back() != getAffineDimExpr(loops.size() - 1, map.getContext()))
    return false;
  for (int64_t i = 0; i + 1 < type.getRank(); ++i) {
    AffineExpr index = map.getResult(i);
    auto constant = dyn_cast<AffineConstantExpr>(index);
    auto dim = dyn_cast<AffineDimExpr>(index);
    if (type.getShape()[i] != 1 ||
        !((constant && constant.getValue() == 0) || (dim && loops[dim.getPosition()] == 1)))
      return false;
  }
  return true;
}

/// The op computing swish(x) = x / (1 + exp(-x)) from `x` as the Sigmoid and Mul lowerings
/// leave it in a fused body (n = -x, e = exp(n), d = e + 1, s = 1 / d, r = x * s, each
/// read once, x twice), or with r = x / d; null if x's users are not that.
Operation *matchSwish(Value x) {
  if (!x.hasNUses(2))
    return nullptr;
  arith::NegFOp neg;
  Operation *last = nullptr;
  for (Operation *user : x.getUsers()) {
    if (auto n = dyn_cast<arith::NegFOp>(user); n && !neg)
      neg = n;
    else
      last = user;
  }
  auto only = [](Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; };
  auto exp = neg ? dyn_cast_or_null<math::ExpOp>(only(neg)) : nullptr;
  auto add = exp ? dyn_cast_or_null<arith::AddFOp>(only(exp)) : nullptr;
  if (!add || constantF32(add->getOperand(add.getLhs() == exp ? 1 : 0)) != 1.0f)
    return nullptr;
  auto div = dyn_cast_or_null<arith::DivFOp>(only(add));
  if (!div || div.getRhs() != add)
    return nullptr;
  if (div.getLhs() == x)
    return div == last ? div.getOperation() : nullptr;
  auto mul =
      constantF32(div.getLhs()) == 1.0f ? dyn_cast_or_null<arith::MulFOp>(only(div)) : nullptr;
  return mul && mul == last ? mul.getOperation() : nullptr;
}

/// The buffer `v` is a view of (through every view-like op), or `v` itself.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// What a kernel's epilogue may add as a residual connection (matchEpilogue).
enum class Residual {
  None,      // no residual
  Separate,  // a buffer that does not overlap the output
  OrInPlace, // that, or the output itself (the kernel stores each element once)
};

/// Finds the epilogue that follows the kernel writing `result` (a fresh buffer, written
/// whole by `kernel`): the only reader of `result`, through reshapes, is an all-parallel
/// generic of the form above writing a separate buffer of the same size, with nothing in
/// between using that buffer. With `residual`, the generic may also add a tensor of the
/// output's type after the bias (a residual connection), itself untouched in between.
std::optional<EpilogueMatch> matchEpilogue(linalg::GenericOp kernel, Value result, int64_t channels,
                                           bool swish, Residual residual = Residual::None) {
  if (!result.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  EpilogueMatch match;
  Value read = result;
  while (true) {
    SmallVector<Operation *> users;
    for (Operation *user : read.getUsers())
      if (user != kernel)
        users.push_back(user);
    if (users.size() != 1)
      return std::nullopt;
    Operation *user = users.front();
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      match.deadViews.push_back(user);
      read = user->getResult(0);
      continue;
    }
    match.op = dyn_cast<linalg::GenericOp>(user);
    break;
  }
  linalg::GenericOp g = match.op;
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 || g.getNumDpsInputs() < 1 ||
      g.getNumParallelLoops() != g.getNumLoops() || g->getBlock() != kernel->getBlock())
    return std::nullopt;
  // The kernel's result: input 0, or with a residual, any one input.
  unsigned resultInput = 0;
  while (resultInput < g.getNumDpsInputs() && g.getDpsInputs()[resultInput] != read)
    ++resultInput;
  if (resultInput == g.getNumDpsInputs() || (resultInput != 0 && residual == Residual::None))
    return std::nullopt;
  match.output = g.getDpsInits()[0];
  auto outType = dyn_cast<MemRefType>(match.output.getType());
  auto readType = cast<MemRefType>(read.getType());
  int64_t rank = readType.getRank();
  if (!outType || outType != readType || !isKernelInput(match.output, rank) ||
      readType.getShape().back() != channels)
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, g.getContext());
  if (maps[resultInput] != id || maps.back() != id)
    return std::nullopt;
  int64_t residualInput = -1;
  for (unsigned i = 0; i < g.getNumDpsInputs(); ++i) {
    Value in = g.getDpsInputs()[i];
    if (i == resultInput || isChannelVector(in, maps[i], readType.getShape()))
      continue;
    // One residual, read where the output goes, contiguous: the output itself or a
    // buffer that cannot overlap it.
    if (residual == Residual::None || residualInput >= 0 || maps[i] != id ||
        in.getType() != outType || !cast<MemRefType>(outType).getLayout().isIdentity())
      return std::nullopt;
    if (rootBuffer(in) == rootBuffer(result) ||
        (in != match.output && rootBuffer(in) == rootBuffer(match.output)) ||
        (in == match.output && residual != Residual::OrInPlace))
      return std::nullopt;
    residualInput = i;
    match.residual = in;
  }
  // The output must be free until the kernel: defined before it (or an allocation that can
  // move there) and untouched in between; so must the residual, which the kernel reads.
  Operation *def = match.output.getDefiningOp();
  if (def && !isa<memref::AllocOp>(def) && !def->isBeforeInBlock(kernel))
    return std::nullopt;
  // The residual must hold its values at the kernel already: defined before it, and no op
  // in between touching its buffer through any view.
  if (match.residual) {
    Operation *rdef = match.residual.getDefiningOp();
    if (rdef && (rdef->getBlock() != kernel->getBlock() || !rdef->isBeforeInBlock(kernel)))
      return std::nullopt;
  }
  for (Operation *op = kernel->getNextNode(); op && op != g; op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), match.output) ||
        (match.residual && llvm::any_of(op->getOperands(), [&](Value v) {
           return rootBuffer(v) == rootBuffer(match.residual);
         })))
      return std::nullopt;
  // Written in place over the residual, the output must not be what the kernel reads.
  if (match.residual)
    for (Value in : kernel.getDpsInputs())
      if (rootBuffer(in) == rootBuffer(match.output) ||
          rootBuffer(in) == rootBuffer(match.residual))
        return std::nullopt;

  // The body: v = in, then in order at most one each of v * p, v + p, max(v, lo),
  // min(v, hi), with p a per-channel input or a constant, then (with `swish`) swish(v).
  Block &body = g.getRegion().front();
  Value v = body.getArgument(resultInput);
  auto parameter = [&](Value p, Value &buffer, float &value) {
    if (auto arg = dyn_cast<BlockArgument>(p);
        arg && arg.getOwner() == &body && arg.getArgNumber() < g.getNumDpsInputs() &&
        arg.getArgNumber() != resultInput && int64_t(arg.getArgNumber()) != residualInput) {
      buffer = g.getDpsInputs()[arg.getArgNumber()];
      return true;
    }
    if (auto c = constantF32(p)) {
      value = *c;
      return true;
    }
    return false;
  };
  auto other = [&](Operation *op) -> Value {
    if (op->getNumOperands() != 2)
      return Value();
    if (op->getOperand(0) == v)
      return op->getOperand(1);
    return op->getOperand(1) == v ? op->getOperand(0) : Value();
  };
  auto isResidual = [&](Value p) {
    return residualInput >= 0 && p == body.getArgument(residualInput);
  };
  // 0: mul, 1: add, 2: residual, 3: max, 4: min, 5: swish, 6: done
  int stage = 0;
  for (Operation &op : body.without_terminator()) {
    if (stage == 6) // the rest of the body is swish's (or dead)
      continue;
    if (Operation *last = swish && isa<arith::NegFOp>(op) ? matchSwish(v) : nullptr) {
      match.swish = true, stage = 6;
      v = last->getResult(0);
      continue;
    }
    Value p = other(&op);
    if (!p || !v.hasOneUse())
      return std::nullopt;
    if (isa<arith::MulFOp>(op) && stage <= 0 && parameter(p, match.scale, match.scaleValue))
      stage = 1;
    else if (isa<arith::AddFOp>(op) && stage <= 1 && parameter(p, match.bias, match.biasValue))
      stage = 2;
    else if (isa<arith::AddFOp>(op) && stage <= 2 && isResidual(p))
      stage = 3;
    else if (isa<arith::MaximumFOp>(op) && stage <= 3 && constantF32(p))
      match.lo = *constantF32(p), stage = 4;
    else if (isa<arith::MinimumFOp>(op) && stage <= 4 && constantF32(p))
      match.hi = *constantF32(p), stage = 5;
    else
      return std::nullopt;
    v = op.getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // A residual input the body does not add as above is not an epilogue's.
  if (yield->getOperand(0) != v || (residualInput >= 0 && stage < 3))
    return std::nullopt;
  return match;
}

/// A 2x2, stride 2 VALID max pool (the generic the MaxPool lowering marks kMaxPoolAttr) that
/// alone reads `result`, a fresh buffer the kernel `kernel` writes whole (through its
/// epilogue `epilogue`, if any): the kernel can write the pool's output instead.
struct PoolMatch {
  linalg::GenericOp op;
  Value output;
};

std::optional<PoolMatch> matchPoolAfter(Operation *kernel, Operation *epilogue, Value result) {
  if (!result.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp pool;
  for (Operation *user : result.getUsers()) {
    if (user == kernel || user == epilogue)
      continue;
    auto load = dyn_cast<memref::LoadOp>(user);
    auto parent = load ? dyn_cast<linalg::GenericOp>(load->getParentOp()) : nullptr;
    if (!parent || (pool && parent != pool))
      return std::nullopt;
    pool = parent;
  }
  if (!pool || pool->getBlock() != kernel->getBlock())
    return std::nullopt;
  auto window = pool->getAttrOfType<DenseI64ArrayAttr>(kiln::lower::kMaxPoolAttr);
  if (!window || window.asArrayRef() != ArrayRef<int64_t>{2, 2, 2, 2, 0, 0} ||
      pool.getNumDpsInits() != 1)
    return std::nullopt;
  Value output = pool.getDpsInits()[0];
  auto in = cast<MemRefType>(result.getType()).getShape();
  if (!isKernelInput(output, 4) || cast<MemRefType>(output.getType()).getShape() !=
                                       ArrayRef<int64_t>{in[0], in[1] / 2, in[2] / 2, in[3]})
    return std::nullopt;
  // The pool's output must be free from the kernel on: defined before it (or an allocation
  // that can move there) and untouched until the pool, but for its fill.
  Operation *def = output.getDefiningOp();
  if (def && !(isa<memref::AllocOp>(def) && def->getNumOperands() == 0) &&
      !def->isBeforeInBlock(kernel))
    return std::nullopt;
  linalg::FillOp fill = fillBefore(pool, output);
  for (Operation *op = kernel->getNextNode(); op && op != pool; op = op->getNextNode())
    if (op != fill && llvm::is_contained(op->getOperands(), output))
      return std::nullopt;
  return PoolMatch{pool, output};
}

/// The parameters of a kernel call, as the kernel table names them.
struct Params {
  Builder &b;
  NamedAttrList list;
  Params &i64(StringRef name, int64_t v) {
    list.set(name, b.getI64IntegerAttr(v));
    return *this;
  }
  Params &pair(StringRef name, ArrayRef<int64_t> v) {
    list.set(name, b.getDenseI64ArrayAttr(v.take_front(2)));
    return *this;
  }
  Params &flag(StringRef name, bool present = true) {
    if (present)
      list.set(name, b.getUnitAttr());
    return *this;
  }
  /// A product's sizes and storage orders (and a batch's size and broadcast operands).
  Params &product(const MatmulMatch &m) {
    if (m.batch)
      i64("batch", m.batch).flag("broadcast_a", m.broadcastA).flag("broadcast_b", m.broadcastB);
    return i64("m", m.m)
        .i64("n", m.n)
        .i64("k", m.k)
        .flag("transpose_a", m.transposeA)
        .flag("transpose_b", m.transposeB);
  }
};

/// Removes the fill of `c` with +0.0 right before `op` (if there is one) and gives the call
/// `overwrite` instead, so that `c` is written once; whether it did.
bool foldZeroFill(Operation *op, Value c, Params &params) {
  linalg::FillOp fill = zeroFillBefore(op, c);
  if (!fill)
    return false;
  params.flag("overwrite");
  fill.erase();
  return true;
}

/// The epilogue of `match` as the call's `epilogue` parameter, its per-channel buffers
/// appended to `inputs` (as rank-1 views made before `kernel`, where they are [1, ..., C]).
kiln::dialect::EpilogueAttr epilogueOf(const EpilogueMatch &match, Operation *kernel,
                                       SmallVector<Value> &inputs) {
  MLIRContext *ctx = match.output.getContext();
  auto f32 = [&](float v) { return FloatAttr::get(Float32Type::get(ctx), v); };
  auto input = [&](Value v) -> int64_t {
    if (!v)
      return -1;
    if (int64_t rank = cast<MemRefType>(v.getType()).getRank(); rank > 1) {
      OpBuilder b(kernel);
      ReassociationIndices all(rank);
      std::iota(all.begin(), all.end(), 0);
      v = memref::CollapseShapeOp::create(b, kernel->getLoc(), v,
                                          ArrayRef<ReassociationIndices>{all});
    }
    inputs.push_back(v);
    return static_cast<int64_t>(inputs.size()) - 1;
  };
  int64_t scale = input(match.scale);
  int64_t bias = input(match.bias);
  return kiln::dialect::EpilogueAttr::get(ctx, scale, f32(match.scaleValue), bias,
                                          f32(match.biasValue), f32(match.lo), f32(match.hi),
                                          match.swish);
}

/// A window kernel: the generic the convolution or pooling lowering marks, and how its
/// shapes and the marker's values become the kernel's parameters.
struct WindowKernel {
  StringLiteral marker;
  size_t values;      // in the marker
  int64_t outRank;    // of the generic's init
  int64_t filterRank; // of its input (a max pool's window buffer: rank 2)
  StringLiteral kernel;
  void (*params)(Params &, ArrayRef<int64_t> in, ArrayRef<int64_t> filter, ArrayRef<int64_t> out,
                 ArrayRef<int64_t> window);
};

/// The parameters of the general convolution kernels (direct and windows-times-filter).
void convParams(Params &p, ArrayRef<int64_t> in, ArrayRef<int64_t> f, ArrayRef<int64_t> out,
                ArrayRef<int64_t> window) {
  p.i64("n", in[0]).i64("h", in[1]).i64("w", in[2]).i64("c", in[3]).i64("f", f[3]);
  p.i64("kh", f[0]).i64("kw", f[1]).i64("oh", out[1]).i64("ow", out[2]);
  p.pair("strides", window).pair("dilations", window.drop_front(2));
  p.pair("pad", window.drop_front(4));
}

const WindowKernel windowKernels[] = {
    {kiln::lower::kDepthwiseAttr, 6, 5, 4, "depthwise_conv2d_f32",
     [](Params &p, ArrayRef<int64_t> in, ArrayRef<int64_t> f, ArrayRef<int64_t> out,
        ArrayRef<int64_t> window) {
       p.i64("n", in[0]).i64("h", in[1]).i64("w", in[2]).i64("c", in[3]).i64("m", f[3]);
       p.i64("kh", f[0]).i64("kw", f[1]).i64("oh", out[1]).i64("ow", out[2]);
       p.pair("strides", window).pair("dilations", window.drop_front(2));
       p.pair("pad", window.drop_front(4));
     }},
    {kiln::lower::kConv3x3Attr, 2, 4, 4, "conv2d_3x3_f32",
     [](Params &p, ArrayRef<int64_t> in, ArrayRef<int64_t>, ArrayRef<int64_t> out,
        ArrayRef<int64_t> window) {
       p.i64("n", in[0]).i64("h", in[1]).i64("w", in[2]).i64("c", in[3]).i64("f", out[3]);
       p.i64("oh", out[1]).i64("ow", out[2]).pair("pad", window);
     }},
    {kiln::lower::kConvDirectAttr, 6, 4, 4, "conv2d_direct_f32", convParams},
    {kiln::lower::kConvGemmAttr, 6, 4, 4, "conv2d_gemm_f32", convParams},
    {kiln::lower::kMaxPoolAttr, 6, 4, 2, "max_pool2d_f32",
     [](Params &p, ArrayRef<int64_t> in, ArrayRef<int64_t>, ArrayRef<int64_t> out,
        ArrayRef<int64_t> window) {
       p.i64("n", in[0]).i64("h", in[1]).i64("w", in[2]).i64("c", in[3]);
       p.i64("oh", out[1]).i64("ow", out[2]).pair("window", window);
       p.pair("strides", window.drop_front(2)).pair("pad", window.drop_front(4));
     }},
};

/// The kernel's own output, when an epilogue or a pool writes elsewhere, is then unused.
void eraseIfUnused(Value buffer) {
  if (auto alloc = buffer.getDefiningOp<memref::AllocOp>(); alloc && alloc->use_empty())
    alloc.erase();
}

struct KernelCallsPass : kiln::lower::impl::KernelCallsPassBase<KernelCallsPass> {
  using KernelCallsPassBase::KernelCallsPassBase;

  void runOnOperation() override {
    transposedGlobals.clear(); // a pass instance may run on several modules
    replacedFilters.clear();
    // The runtime's kernels run on the CPU; a GPU's partition calls cuBLAS for its matrix
    // products and keeps its other linalg ops (kiln-gpu-kernels makes them kernels).
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (kiln::dialect::isOnGpu(func))
        rewriteGpu(func);
      else
        rewrite(func);
    }
  }

  /// A GPU function's matrix products, batched or not, as cuBLAS calls, and its
  /// convolutions with constant filters as cuDNN calls, whatever their size: the GPU's own
  /// kernel for either is one thread per output element. Depthwise convolutions stay
  /// generated kernels (one thread per output, its taps read coalesced along the channels):
  /// cuDNN's grouped NHWC convolution in f32 took 4.5 ms of MobileNetV2's call at batch 32
  /// on an H200, where PyTorch's own depthwise kernel takes 0.75 ms.
  void rewriteGpu(func::FuncOp func) {
    SmallVector<std::tuple<linalg::GenericOp, MatmulMatch, bool>> matmuls; // f16?
    SmallVector<std::tuple<linalg::GenericOp, WindowMatch, GpuConv>> convs;
    func.walk([&](linalg::GenericOp op) {
      if (auto m = matchMatmul(op)) {
        matmuls.push_back({op, *m, false});
        return;
      }
      if (auto m = matchMatmul(op, KernelElement::F16)) {
        matmuls.push_back({op, *m, true});
        return;
      }
      if (auto c = matchGpuConv(op))
        convs.push_back({op, c->first, c->second});
    });
    for (auto &[op, m, f16] : matmuls) {
      Builder b(op.getContext());
      Params params{b, {}};
      bool overwrite = foldZeroFill(op, m.c, params);
      // cuBLASLt takes 1x1 convolutions too when both libraries' epilogues are on.
      if (overwrite && !f16 && gpuEpilogues && !cublasltEpilogues && lowerGpuPointwiseConv(op, m))
        continue;
      if (allowTf32 && !f16)
        params.flag("tf32");
      if (overwrite && !f16 && !m.batch && cublasltEpilogues && lowerBlasLtProduct(op, m, params))
        continue;
      params.product(m);
      std::string name =
          std::string(m.batch ? "gpu_batch_matmul_" : "gpu_matmul_") + (f16 ? "f16" : "f32");
      call(op, name, {m.a, m.b}, m.c, params);
    }
    for (auto &[op, w, conv] : convs)
      lowerGpuConv(op, w, conv);
    // The filters' HWIO globals nothing reads any more (the calls read their transposes).
    ModuleOp module = getOperation();
    for (StringRef name : replacedFilters) {
      auto global = module.lookupSymbol<memref::GlobalOp>(name);
      if (global && SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    }
    replacedFilters.clear();
  }

  /// A convolution the lowering marked, as cuDNN takes it: the image and sizes of the
  /// window match.
  struct GpuConv {
    int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  };

  /// The convolution `op` is, if cuDNN can compute it: f32, its filter a constant global
  /// (transposed at compile time to cuDNN's layout).
  std::optional<std::pair<WindowMatch, GpuConv>> matchGpuConv(linalg::GenericOp op) {
    struct Marker {
      StringRef attr;
      size_t values;
    };
    const Marker markers[] = {{kiln::lower::kConv3x3Attr, 2},
                              {kiln::lower::kConvDirectAttr, 6},
                              {kiln::lower::kConvGemmAttr, 6}};
    for (const Marker &marker : markers) {
      std::optional<WindowMatch> w = matchWindow(op, marker.attr, marker.values, 4);
      if (!w || !constantFilter(w->filter))
        continue;
      auto filter = cast<MemRefType>(w->filter.getType()).getShape();
      GpuConv conv{filter[0], filter[1], 1, 1, 1, 1, 0, 0};
      if (marker.values == 2) {
        conv.pt = w->window[0], conv.pl = w->window[1];
      } else {
        conv.sh = w->window[0], conv.sw = w->window[1], conv.dh = w->window[2];
        conv.dw = w->window[3], conv.pt = w->window[4], conv.pl = w->window[5];
      }
      return std::make_pair(*w, conv);
    }
    return std::nullopt;
  }

  /// The constant global `filter` reads (through memref.get_global), with dense f32
  /// contents, or null.
  memref::GlobalOp constantFilter(Value filter) {
    auto get = filter.getDefiningOp<memref::GetGlobalOp>();
    auto global =
        get ? SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr())
            : nullptr;
    if (!global || !global.getConstant() || !global.getInitialValue())
      return nullptr;
    auto data = dyn_cast<DenseElementsAttr>(*global.getInitialValue());
    return data && data.getElementType().isF32() ? global : nullptr;
  }

  /// A global holding `filter`'s constant (kh x kw x c x f) as cuDNN's NHWC filter,
  /// f x kh x kw x c, each output channel o multiplied by scale[o] when `scale` (a constant
  /// global, `scaleValues` its values) is given; made once per filter and scale.
  /// `hwio` gives the filter's shape (a 1x1 convolution's k x n weights are 1 x 1 x k x n).
  Value transposedFilter(OpBuilder &b, Location loc, Value filter, ArrayRef<int64_t> hwio,
                         memref::GlobalOp scale = nullptr, ArrayRef<float> scaleValues = {}) {
    memref::GlobalOp global = constantFilter(filter);
    int64_t kh = hwio[0], kw = hwio[1], depth = hwio[2], f = hwio[3];
    std::string name = global.getSymName().str();
    if (scale)
      name += "_x_" + scale.getSymName().str();
    return derivedGlobal(b, loc, global, name + "_krsc", {f, kh, kw, depth},
                         [&](DenseElementsAttr data, RankedTensorType type) {
                           if (data.isSplat() && !scale)
                             return DenseElementsAttr::get(type, data.getSplatValue<Attribute>());
                           SmallVector<float> in = floatValues(data), out(kh * kw * depth * f);
                           for (int64_t y = 0; y < kh; ++y)
                             for (int64_t x = 0; x < kw; ++x)
                               for (int64_t c = 0; c < depth; ++c)
                                 for (int64_t o = 0; o < f; ++o)
                                   out[((o * kh + y) * kw + x) * depth + c] =
                                       in[((y * kw + x) * depth + c) * f + o] *
                                       (scale ? scaleValues[o] : 1.0f);
                           return DenseElementsAttr::get(type, ArrayRef<float>(out));
                         });
  }

  /// The f32 values of `data`, a splat's repeated.
  static SmallVector<float> floatValues(DenseElementsAttr data) {
    return data.isSplat() ? SmallVector<float>(data.getNumElements(), data.getSplatValue<float>())
                          : SmallVector<float>(data.getValues<float>());
  }

  /// A private constant global `name` of f32 `shape` (a unique name: SymbolTable renames a
  /// clash) beside the constant global `source`, holding `values(source's data, the
  /// tensor type of shape)`; made once per name, `source` then recorded as replaced (erased
  /// at the end when nothing else reads it). Its memref.get_global at `b`.
  Value derivedGlobal(OpBuilder &b, Location loc, memref::GlobalOp source, StringRef name,
                      ArrayRef<int64_t> shape,
                      function_ref<DenseElementsAttr(DenseElementsAttr, RankedTensorType)> values) {
    auto [it, fresh] = transposedGlobals.try_emplace(name, nullptr);
    if (fresh) {
      auto data = cast<DenseElementsAttr>(*source.getInitialValue());
      auto type = MemRefType::get(shape, b.getF32Type());
      OpBuilder gb(source);
      auto made =
          memref::GlobalOp::create(gb, source.getLoc(), name, gb.getStringAttr("private"), type,
                                   values(data, RankedTensorType::get(shape, b.getF32Type())),
                                   /*constant=*/true, source.getAlignmentAttr());
      SymbolTable(getOperation()).insert(made); // unique name
      it->second = made;
      replacedFilters.push_back(source.getSymName());
    }
    return memref::GetGlobalOp::create(b, loc, it->second.getType(), it->second.getSymName());
  }

  /// The per-channel values of the constant global `buffer` reads (through views), if it
  /// holds `channels` f32 values; with that global.
  std::optional<std::pair<memref::GlobalOp, SmallVector<float>>>
  constantChannels(Value buffer, int64_t channels) {
    memref::GlobalOp global = constantFilter(rootBuffer(buffer));
    auto type = global ? dyn_cast<MemRefType>(global.getType()) : nullptr;
    if (!type || type.getNumElements() != channels)
      return std::nullopt;
    return std::make_pair(global, floatValues(cast<DenseElementsAttr>(*global.getInitialValue())));
  }

  /// `filter` (hwio, a constant) as cuDNN's filter (transposedFilter), with the constant
  /// per-channel scale of `e`, if it has one, multiplied in (an inference batch norm's):
  /// `e` then has no scale left.
  Value cudnnFilter(OpBuilder &b, Location loc, Value filter, ArrayRef<int64_t> hwio,
                    EpilogueMatch *e) {
    if (!e || !e->scale)
      return transposedFilter(b, loc, filter, hwio);
    auto [global, values] = *constantChannels(e->scale, hwio[3]);
    e->scale = nullptr;
    e->scaleValue = 1.0f;
    return transposedFilter(b, loc, filter, hwio, global, values);
  }

  /// Whether cuDNN can apply `e` in the convolution's call (kiln_gpu_conv2d_fused_f32): a
  /// scalar scale (or, outside --strict-float, a constant per-channel one, which goes into
  /// the filter), a bias buffer or none, a Relu or nothing, and a contiguous residual.
  bool cudnnEpilogue(const EpilogueMatch &e, int64_t channels) {
    auto inf = std::numeric_limits<float>::infinity();
    if (e.swish || (e.lo != 0.0f && e.lo != -inf) || e.hi != inf ||
        (!e.bias && e.biasValue != 0.0f))
      return false;
    if (e.scale && (strictFloat || !constantChannels(e.scale, channels)))
      return false;
    return !e.residual || isKernelInput(e.residual, 4);
  }

  /// Replaces the convolution `op` by a call of cuDNN (gpu_conv2d_f32), with the epilogue
  /// after it that cuDNN can apply in the same call (gpu_conv2d_residual_f32 when it adds
  /// a residual connection). cuDNN pads both
  /// sides alike: padding that differs below or right (SAME with an odd total, say) makes
  /// a zero-padded copy of the image first (a fill and a copy, kernels of their own).
  void lowerGpuConv(linalg::GenericOp op, const WindowMatch &w, const GpuConv &conv) {
    OpBuilder b(op);
    Params params{b, {}};
    std::optional<EpilogueMatch> epilogue;
    int64_t channels = cast<MemRefType>(w.output.getType()).getShape().back();
    if (foldZeroFill(op, w.output, params) && // first: the padded copy goes between them
        gpuEpilogues)
      epilogue = matchEpilogue(op, w.output, channels, /*swish=*/false, Residual::Separate);
    if (epilogue && !cudnnEpilogue(*epilogue, channels))
      epilogue.reset();
    Location loc = op.getLoc();
    auto shape = [](Value v) { return cast<MemRefType>(v.getType()).getShape(); };
    auto in = shape(w.input), out = shape(w.output);
    int64_t n = in[0], h = in[1], wd = in[2], c = in[3], oh = out[1], ow = out[2];
    int64_t extentH = (conv.kh - 1) * conv.dh + 1, extentW = (conv.kw - 1) * conv.dw + 1;
    // The rows and columns cuDNN gives with the top and left padding on both sides.
    int64_t cudnnH = (h + 2 * conv.pt - extentH) / conv.sh + 1;
    int64_t cudnnW = (wd + 2 * conv.pl - extentW) / conv.sw + 1;
    Value input = w.input;
    int64_t padH = conv.pt, padW = conv.pl;
    if (cudnnH != oh || cudnnW != ow) {
      // Zero padding as TensorFlow places it, in a buffer of its own: rows pt above and
      // what the last window needs below (none where VALID leaves rows unread).
      int64_t below = std::max<int64_t>(0, (oh - 1) * conv.sh + extentH - h - conv.pt);
      int64_t right = std::max<int64_t>(0, (ow - 1) * conv.sw + extentW - wd - conv.pl);
      auto padded =
          MemRefType::get({n, conv.pt + h + below, conv.pl + wd + right, c}, b.getF32Type());
      input = memref::AllocOp::create(b, loc, padded);
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
      linalg::FillOp::create(b, loc, zero, input);
      Value interior =
          memref::SubViewOp::create(b, loc, input, ArrayRef<int64_t>{0, conv.pt, conv.pl, 0}, in,
                                    ArrayRef<int64_t>{1, 1, 1, 1});
      memref::CopyOp::create(b, loc, w.input, interior);
      h = padded.getShape()[1], wd = padded.getShape()[2];
      padH = padW = 0;
    }
    Value filter = cudnnFilter(b, loc, w.filter, shape(w.filter), epilogue ? &*epilogue : nullptr);
    int64_t f = shape(filter)[0]; // f x kh x kw x c
    params.i64("n", n).i64("h", h).i64("w", wd).i64("c", c).i64("f", f);
    params.i64("kh", conv.kh).i64("kw", conv.kw).i64("oh", oh).i64("ow", ow);
    params.pair("strides", {conv.sh, conv.sw}).pair("dilations", {conv.dh, conv.dw});
    params.pair("pad", {padH, padW}).i64("groups", 1);
    if (allowTf32)
      params.flag("tf32");
    Value oldFilter = w.filter;
    if (!epilogue) {
      call(op, "gpu_conv2d_f32", {input, filter}, w.output, params);
    } else {
      callWithEpilogue(op, "gpu_conv2d_f32", "gpu_conv2d_residual_f32", {input, filter}, *epilogue,
                       params, w.output);
    }
    if (auto get = oldFilter.getDefiningOp<memref::GetGlobalOp>(); get && get->use_empty())
      get.erase();
  }

  /// Replaces the product `op` (its zero fill folded away) by a 1x1 convolution of cuDNN
  /// with the epilogue after it, where the product is one (a 1x1 Conv2D's: constant
  /// weights, k x n, not transposed, the rows an NHWC image collapsed) and the epilogue
  /// ends in a Relu cuDNN applies in the same call (gpu_conv2d_f32 or gpu_conv2d_residual_f32; a
  /// ResNet's 1x1 convolutions with their batch norms, shortcuts and Relus, as TensorFlow and
  /// PyTorch run them); whether it did. Other products stay cuBLAS calls and their epilogues
  /// kernels.
  bool lowerGpuPointwiseConv(linalg::GenericOp op, const MatmulMatch &m) {
    if (m.batch || m.transposeA || m.transposeB || !constantFilter(m.b))
      return false;
    std::optional<EpilogueMatch> epilogue =
        matchEpilogue(op, m.c, m.n, /*swish=*/false, Residual::Separate);
    if (!epilogue || epilogue->lo != 0.0f || !cudnnEpilogue(*epilogue, m.n))
      return false;
    // The image: the buffer the product's rows collapse, n x h x w x k (or n x h x w x
    // c x m, a depthwise convolution's, whose last two make k). A product of other rows (a
    // dense layer's) stays cuBLAS's, which suits GEMV-like shapes better.
    auto collapse = m.a.getDefiningOp<memref::CollapseShapeOp>();
    if (!collapse || collapse.getSrcType().getRank() < 4 ||
        !isKernelInput(collapse.getSrc(), collapse.getSrcType().getRank()) ||
        collapse.getReassociationIndices().front() != ReassociationIndices{0, 1, 2})
      return false;
    OpBuilder b(op);
    Location loc = op.getLoc();
    ArrayRef<int64_t> source = collapse.getSrcType().getShape();
    SmallVector<int64_t> image = {source[0], source[1], source[2], m.k};
    Value input = collapse.getSrc();
    if (source.size() > 4) {
      ReassociationIndices channels;
      for (int64_t d = 3; d < static_cast<int64_t>(source.size()); ++d)
        channels.push_back(d);
      input = memref::CollapseShapeOp::create(
          b, loc, input, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, channels});
    }
    Value filter = cudnnFilter(b, loc, m.b, {1, 1, m.k, m.n}, &*epilogue);
    Params params{b, {}};
    params.flag("overwrite");
    params.i64("n", image[0]).i64("h", image[1]).i64("w", image[2]).i64("c", m.k);
    params.i64("f", m.n).i64("kh", 1).i64("kw", 1).i64("oh", image[1]).i64("ow", image[2]);
    params.pair("strides", {1, 1}).pair("dilations", {1, 1}).pair("pad", {0, 0});
    params.i64("groups", 1);
    if (allowTf32)
      params.flag("tf32");
    Value weights = m.b;
    callWithEpilogue(op, "gpu_conv2d_f32", "gpu_conv2d_residual_f32", {input, filter}, *epilogue,
                     params, m.c);
    if (auto get = weights.getDefiningOp<memref::GetGlobalOp>(); get && get->use_empty())
      get.erase();
    if (collapse->use_empty())
      collapse.erase();
    return true;
  }

  /// Whether cuBLASLt can apply `e` in the product's call (kiln_gpu_gemm_epilogue): a
  /// scalar scale (or, outside --strict-float, a constant per-channel one where the weights
  /// are constant: it goes into them), a bias buffer or none, a Relu or nothing, and a
  /// contiguous residual (the output itself too: cuBLASLt reads C before it writes D; not
  /// with a bias under --strict-float, which cuBLASLt adds after the residual).
  bool blasltEpilogue(const EpilogueMatch &e, const MatmulMatch &m) {
    auto inf = std::numeric_limits<float>::infinity();
    if (e.swish || (e.lo != 0.0f && e.lo != -inf) || e.hi != inf ||
        (!e.bias && e.biasValue != 0.0f))
      return false;
    if (e.scale && (strictFloat || !constantFilter(m.b) || !constantChannels(e.scale, m.n)))
      return false;
    // cuBLASLt adds the residual before the bias (beta C, then the epilogue's bias): the
    // rounding of a different order.
    if (e.residual && strictFloat && e.bias)
      return false;
    return !e.residual || isKernelInput(e.residual, -1);
  }

  /// Replaces the product `op` (its zero fill folded away, `params` with it) and the
  /// epilogue after it by one call of cuBLASLt (gpu_matmul_epilogue_f32, or
  /// gpu_matmul_residual_f32 with a residual), where cuBLASLt can apply that epilogue; a
  /// constant per-channel scale is multiplied into the constant weights (a global
  /// `NAME_x_SCALE`). Whether it did; other products stay cuBLAS calls.
  bool lowerBlasLtProduct(linalg::GenericOp op, const MatmulMatch &m, Params &params) {
    if (m.k < 1)
      return false;
    std::optional<EpilogueMatch> e =
        matchEpilogue(op, m.c, m.n, /*swish=*/false, Residual::OrInPlace);
    if (!e || !blasltEpilogue(*e, m))
      return false;
    Value weights = m.b;
    if (e->scale) {
      OpBuilder b(op);
      auto [scale, values] = *constantChannels(e->scale, m.n);
      weights = scaledWeights(b, op.getLoc(), m.b, m.transposeB, scale, values);
      e->scale = nullptr;
      e->scaleValue = 1.0f;
    }
    params.product(m);
    Value old = m.b;
    callWithEpilogue(op, "gpu_matmul_epilogue_f32", "gpu_matmul_residual_f32", {m.a, weights}, *e,
                     params, m.c);
    if (auto get = old.getDefiningOp<memref::GetGlobalOp>(); get && get->use_empty())
      get.erase();
    return true;
  }

  /// A global holding the constant weights `weights` reads (k x n, n x k when
  /// `transposed`) with each output column j multiplied by `values[j]` (the constant global
  /// `scale`'s); made once per weights and scale.
  Value scaledWeights(OpBuilder &b, Location loc, Value weights, bool transposed,
                      memref::GlobalOp scale, ArrayRef<float> values) {
    memref::GlobalOp global = constantFilter(weights);
    ArrayRef<int64_t> shape = cast<MemRefType>(weights.getType()).getShape();
    return derivedGlobal(b, loc, global,
                         global.getSymName().str() + "_x_" + scale.getSymName().str(), shape,
                         [&](DenseElementsAttr data, RankedTensorType type) {
                           SmallVector<float> w = floatValues(data);
                           for (int64_t r = 0; r < shape[0]; ++r)
                             for (int64_t c = 0; c < shape[1]; ++c)
                               w[r * shape[1] + c] *= values[transposed ? r : c];
                           return DenseElementsAttr::get(type, ArrayRef<float>(w));
                         });
  }

  llvm::StringMap<memref::GlobalOp> transposedGlobals;
  SmallVector<StringRef> replacedFilters;

  void rewrite(func::FuncOp func) {
    // Matrix products first, then each window kernel in the table's order: a convolution
    // may absorb the pool after it before the pools become calls of their own.
    SmallVector<std::pair<linalg::GenericOp, MatmulMatch>> matmuls;
    SmallVector<SmallVector<std::pair<linalg::GenericOp, WindowMatch>>> windows(
        std::size(windowKernels));
    func.walk([&](linalg::GenericOp op) {
      if (auto m = matchMatmul(op)) {
        if (std::max<int64_t>(m->batch, 1) * m->m * m->n * m->k >= minFlops) {
          matmuls.push_back({op, *m});
          return;
        }
        op->setAttr(kiln::lower::kSmallProductAttr, UnitAttr::get(op.getContext()));
        return;
      }
      for (auto [i, kernel] : llvm::enumerate(windowKernels))
        if (auto w =
                matchWindow(op, kernel.marker, kernel.values, kernel.outRank, kernel.filterRank)) {
          windows[i].push_back({op, *w});
          return;
        }
    });
    for (auto &[op, m] : matmuls)
      lowerMatmul(op, m);
    for (auto [kernel, matches] : llvm::zip(windowKernels, windows))
      for (auto &[op, w] : matches)
        if (!fusedPools.contains(op.getOperation()))
          lowerWindow(op, w, kernel);
  }

  /// Replaces `op` by the call, first moving `output`'s allocation before it if needed. An
  /// output that is a strided view gets a contiguous buffer of its own, which the kernel
  /// writes and a copy then moves into the view (after a copy in, if the kernel reads it).
  void call(linalg::GenericOp op, StringRef kernel, ValueRange inputs, Value output,
            Params &params) {
    if (Operation *def = output.getDefiningOp(); def && !def->isBeforeInBlock(op))
      def->moveBefore(op);
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value target = output;
    auto type = cast<MemRefType>(output.getType());
    if (!type.getLayout().isIdentity()) {
      target =
          memref::AllocOp::create(b, loc, MemRefType::get(type.getShape(), type.getElementType()));
      const kiln::dialect::KernelInfo *info = kiln::dialect::lookupKernel(kernel);
      if (!info->overwriteFlag.empty() && !params.list.get(info->overwriteFlag))
        memref::CopyOp::create(b, loc, output, target);
    }
    kiln::dialect::KernelCallOp::create(b, loc, b.getStringAttr(kernel), inputs, ValueRange{target},
                                        params.list.getDictionary(b.getContext()));
    if (target != output)
      memref::CopyOp::create(b, loc, target, output);
    op.erase();
  }

  /// Erases the epilogue `match`'s generic and the views of the kernel's buffer it read.
  static void eraseEpilogue(EpilogueMatch &match) {
    match.op.erase();
    for (Operation *view : llvm::reverse(match.deadViews))
      view->erase();
  }

  /// Replaces `op` and its epilogue `e` by a call of `kernel` (`residualKernel` when the
  /// epilogue adds a residual, which becomes the call's input after `inputs`) writing the
  /// epilogue's output; `buffer`, the kernel's own result, goes if nothing else reads it.
  void callWithEpilogue(linalg::GenericOp op, StringRef kernel, StringRef residualKernel,
                        SmallVector<Value> inputs, EpilogueMatch &e, Params &params, Value buffer) {
    if (e.residual)
      inputs.push_back(e.residual);
    params.list.set("epilogue", epilogueOf(e, op, inputs));
    call(op, e.residual ? residualKernel : kernel, inputs, e.output, params);
    eraseEpilogue(e);
    eraseIfUnused(buffer);
  }

  void lowerMatmul(linalg::GenericOp op, MatmulMatch &m) {
    Builder b(op.getContext());
    Params params{b, {}};
    params.product(m);
    if (m.batch) {
      // A batch of products: no epilogue (an attention's scores go on to a softmax).
      foldZeroFill(op, m.c, params);
      call(op, "batch_matmul_f32", {m.a, m.b}, m.c, params);
      return;
    }
    // A product of a few rows (a dense layer at batch 1) takes the few-row kernel where it
    // reads B in place or packed: B not transposed, or constant (kiln-lower-pack-weights
    // packs it).
    params.flag("few_rows",
                m.m <= kiln::dialect::matmulFewRows() && (!m.transposeB || constantFilter(m.b)));
    std::optional<EpilogueMatch> epilogue;
    if (foldZeroFill(op, m.c, params)) {
      // A residual read in place must be read before the product's sum is stored over it:
      // one depth slice (kiln_kernel_matmul_residual_f32).
      epilogue = matchEpilogue(op, m.c, m.n, /*swish=*/!strictFloat,
                               m.k <= kiln::dialect::matmulDepthSlice() ? Residual::OrInPlace
                                                                        : Residual::Separate);
    }
    if (!epilogue) {
      call(op, "matmul_f32", {m.a, m.b}, m.c, params);
      return;
    }
    callWithEpilogue(op, "matmul_epilogue_f32", "matmul_residual_f32", {m.a, m.b}, *epilogue,
                     params, m.c);
  }

  void lowerWindow(linalg::GenericOp op, const WindowMatch &d, const WindowKernel &kernel) {
    Builder b(op.getContext());
    Params params{b, {}};
    auto shape = [](Value v) { return cast<MemRefType>(v.getType()).getShape(); };
    kernel.params(params, shape(d.input), shape(d.filter), shape(d.output), d.window);
    const kiln::dialect::KernelInfo *info = kiln::dialect::lookupKernel(kernel.kernel);
    if (info->overwriteFlag.empty()) {
      // The kernel writes every output element: the fill before it goes.
      Value window = d.filter;
      if (linalg::FillOp fill = fillBefore(op, d.output))
        fill.erase();
      call(op, kernel.kernel, {d.input}, d.output, params);
      eraseIfUnused(window);
      return;
    }
    std::optional<EpilogueMatch> epilogue;
    auto outShape = shape(d.output);
    int64_t channels = outShape.back() * (kernel.outRank == 5 ? outShape[3] : 1);
    if (foldZeroFill(op, d.output, params))
      epilogue = matchEpilogue(op, d.output, channels, /*swish=*/!strictFloat);
    // A 2x2/2 max pool that alone reads the result: kernels with a max_pool flag write the
    // pool's output instead (the result never reaches memory).
    Value result = epilogue ? epilogue->output : d.output;
    std::optional<PoolMatch> pool;
    if (params.list.get("overwrite") && info->findParam("max_pool"))
      pool = matchPoolAfter(op, epilogue ? epilogue->op.getOperation() : nullptr, result);
    Value output = pool ? pool->output : result;
    params.flag("max_pool", bool(pool));
    SmallVector<Value> inputs = {d.input, d.filter};
    if (epilogue)
      params.list.set("epilogue", epilogueOf(*epilogue, op, inputs));
    call(op, kernel.kernel, inputs, output, params);
    if (epilogue) {
      eraseEpilogue(*epilogue);
      eraseIfUnused(d.output);
    }
    if (pool) {
      fusedPools.insert(pool->op);
      if (linalg::FillOp fill = fillBefore(pool->op, pool->output))
        fill.erase();
      Value window = pool->op.getDpsInputs()[0];
      pool->op.erase();
      eraseIfUnused(window);
      eraseIfUnused(result);
    }
  }

  llvm::SmallPtrSet<Operation *, 4> fusedPools;
};

} // namespace
