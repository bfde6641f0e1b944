//===- KernelCalls.cpp - large matrix products call the runtime's kernels -----===//
#include "passes/Lower/Passes.h"
#include "passes/Lower/CallOperands.h"

#include "kiln/runtime/abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace kiln::lower {
#define GEN_PASS_DEF_KERNELCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct MatmulMatch {
  Value a, b, c;
  int64_t m, n, k;
  int32_t flags;
};

bool isContiguousF32(Value v, int64_t rank) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getRank() == rank && t.hasStaticShape() && t.getLayout().isIdentity() &&
         t.getElementType().isF32();
}

/// Matches the generic the MatMul lowering makes (loops m, k, n; C += A * B).
std::optional<MatmulMatch> matchMatmul(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  if (iterators.size() != 3 || iterators[0] != utils::IteratorType::parallel ||
      iterators[1] != utils::IteratorType::reduction ||
      iterators[2] != utils::IteratorType::parallel)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m, k, n;
  bindDims(ctx, m, k, n);
  auto map = [&](AffineExpr r, AffineExpr c) { return AffineMap::get(3, 0, {r, c}, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MatmulMatch match{op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0], 0, 0, 0, 0};
  if (maps[0] == map(k, m))
    match.flags |= KILN_MATMUL_TRANSPOSE_A;
  else if (maps[0] != map(m, k))
    return std::nullopt;
  if (maps[1] == map(n, k))
    match.flags |= KILN_MATMUL_TRANSPOSE_B;
  else if (maps[1] != map(k, n))
    return std::nullopt;
  if (maps[2] != map(m, n))
    return std::nullopt;
  if (!isContiguousF32(match.a, 2) || !isContiguousF32(match.b, 2) ||
      !isContiguousF32(match.c, 2))
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
  bool mulOk = (mul.getLhs() == in0 && mul.getRhs() == in1) ||
               (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  if (!mulOk || !addOk)
    return std::nullopt;
  auto cType = cast<MemRefType>(match.c.getType());
  auto aType = cast<MemRefType>(match.a.getType());
  match.m = cType.getDimSize(0);
  match.n = cType.getDimSize(1);
  match.k = aType.getDimSize((match.flags & KILN_MATMUL_TRANSPOSE_A) ? 0 : 1);
  return match;
}

struct WindowMatch {
  Value input, filter, output;
  ArrayRef<int64_t> window; // the marker attribute's values
};

/// Matches a window generic the convolution and pooling lowerings mark with `attr`
/// (kDepthwiseAttr, kConvDirectAttr or kMaxPoolAttr, with 6 values, kConv3x3Attr, with 2):
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
  if (!match.input || !isContiguousF32(match.input, 4) ||
      !isContiguousF32(match.filter, filterRank) ||
      !isContiguousF32(match.output, outRank))
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
/// scale + bias, lo), hi) per channel (the last dimension), where scale and bias are
/// per-channel buffers or scalar constants (see kiln_kernel_matmul_epilogue_f32).
struct EpilogueMatch {
  linalg::GenericOp op;
  Value output;                  // where the result goes instead of the kernel's buffer
  Value scale, bias;             // per-channel buffers, or null
  float scaleValue = 1.0f, biasValue = 0.0f;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  SmallVector<Operation *> deadViews; // views of the kernel's buffer only `op` read
};

std::optional<float> constantF32(Value v) {
  FloatAttr attr;
  if (!v.getType().isF32() || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return static_cast<float>(attr.getValueAsDouble());
}

/// Finds the epilogue that follows the kernel writing `result` (a fresh buffer, written
/// whole by `kernel`): the only reader of `result`, through reshapes, is an all-parallel
/// generic of the form above writing a separate buffer of the same size, with nothing in
/// between using that buffer.
std::optional<EpilogueMatch> matchEpilogue(linalg::GenericOp kernel, Value result,
                                           int64_t channels) {
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
  if (!g || !g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumDpsInputs() < 1 || g.getDpsInputs()[0] != read ||
      g.getNumParallelLoops() != g.getNumLoops() || g->getBlock() != kernel->getBlock())
    return std::nullopt;
  match.output = g.getDpsInits()[0];
  auto outType = dyn_cast<MemRefType>(match.output.getType());
  auto readType = cast<MemRefType>(read.getType());
  int64_t rank = readType.getRank();
  if (!outType || outType != readType || !isContiguousF32(match.output, rank) ||
      readType.getShape().back() != channels)
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, g.getContext());
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, g.getContext()));
  if (maps[0] != id || maps.back() != id)
    return std::nullopt;
  for (unsigned i = 1; i < g.getNumDpsInputs(); ++i)
    if (maps[i] != channel || !isContiguousF32(g.getDpsInputs()[i], 1))
      return std::nullopt;
  // The output must be free until the kernel: defined before it (or an allocation that can
  // move there) and untouched in between.
  Operation *def = match.output.getDefiningOp();
  if (def && !isa<memref::AllocOp>(def) && !def->isBeforeInBlock(kernel))
    return std::nullopt;
  for (Operation *op = kernel->getNextNode(); op && op != g; op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), match.output))
      return std::nullopt;

  // The body: v = in, then in order at most one each of v * p, v + p, max(v, lo),
  // min(v, hi), with p a per-channel input or a constant.
  Block &body = g.getRegion().front();
  Value v = body.getArgument(0);
  auto parameter = [&](Value p, Value &buffer, float &value) {
    if (auto arg = dyn_cast<BlockArgument>(p); arg && arg.getOwner() == &body &&
                                                arg.getArgNumber() >= 1 &&
                                                arg.getArgNumber() < g.getNumDpsInputs()) {
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
  int stage = 0; // 0: mul, 1: add, 2: max, 3: min, 4: done
  for (Operation &op : body.without_terminator()) {
    Value p = other(&op);
    if (!p || !v.hasOneUse())
      return std::nullopt;
    if (isa<arith::MulFOp>(op) && stage <= 0 && parameter(p, match.scale, match.scaleValue))
      stage = 1;
    else if (isa<arith::AddFOp>(op) && stage <= 1 && parameter(p, match.bias, match.biasValue))
      stage = 2;
    else if (isa<arith::MaximumFOp>(op) && stage <= 2 && constantF32(p))
      match.lo = *constantF32(p), stage = 3;
    else if (isa<arith::MinimumFOp>(op) && stage <= 3 && constantF32(p))
      match.hi = *constantF32(p), stage = 4;
    else
      return std::nullopt;
    v = op.getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getOperand(0) != v)
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
  if (!isContiguousF32(output, 4) ||
      cast<MemRefType>(output.getType()).getShape() !=
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

struct KernelCallsPass : kiln::lower::impl::KernelCallsPassBase<KernelCallsPass> {
  using KernelCallsPassBase::KernelCallsPassBase;

  // A module pass: it declares the kernels in the module, which passes on the functions,
  // running in parallel, may not do.
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        rewrite(func);
  }

  void rewrite(func::FuncOp func) {
    SmallVector<std::pair<linalg::GenericOp, MatmulMatch>> matmuls;
    SmallVector<std::pair<linalg::GenericOp, WindowMatch>> depthwise, conv3x3, direct, maxPools;
    func.walk([&](linalg::GenericOp op) {
      if (auto m = matchMatmul(op); m && m->m * m->n * m->k >= minFlops)
        matmuls.push_back({op, *m});
      else if (auto d = matchWindow(op, kiln::lower::kDepthwiseAttr, 6, 5))
        depthwise.push_back({op, *d});
      else if (auto c = matchWindow(op, kiln::lower::kConv3x3Attr, 2, 4))
        conv3x3.push_back({op, *c});
      else if (auto c = matchWindow(op, kiln::lower::kConvDirectAttr, 6, 4))
        direct.push_back({op, *c});
      else if (auto p = matchWindow(op, kiln::lower::kMaxPoolAttr, 6, 4, 2))
        maxPools.push_back({op, *p});
    });
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    auto declare = [&](StringRef name, ArrayRef<Type> args) {
      kiln::lower::declareRuntimeFunction(func->getParentOfType<ModuleOp>(), name, args);
    };
    // Emits the call replacing `op`: buffers by address, integer arguments, the flags if
    // given, then the epilogue's arguments if `epilogue` is set. If it holds a matched op,
    // that op goes too and its output takes the place of the kernel's buffer; an empty one
    // passes the identity (for kernels whose signature always has the arguments).
    auto call = [&](linalg::GenericOp op, StringRef name, SmallVector<Value> buffers,
                    ArrayRef<int64_t> sizes, std::optional<int32_t> flags,
                    EpilogueMatch *epilogue) {
      Location loc = op.getLoc();
      bool fused = epilogue && epilogue->op;
      if (fused) {
        if (Operation *def = epilogue->output.getDefiningOp(); def && !def->isBeforeInBlock(op))
          def->moveBefore(op);
        buffers.back() = epilogue->output;
      }
      b.setInsertionPoint(op);
      auto address = [&](Value v) -> Value {
        if (!v)
          return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 0));
        Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
        return arith::IndexCastOp::create(b, loc, i64, p);
      };
      auto f32 = [&](float v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
      };
      SmallVector<Value> args;
      for (Value v : buffers)
        args.push_back(address(v));
      for (int64_t s : sizes)
        args.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, s)));
      if (flags)
        args.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, *flags)));
      if (epilogue)
        args.append({address(epilogue->scale), f32(epilogue->scaleValue),
                     address(epilogue->bias), f32(epilogue->biasValue), f32(epilogue->lo),
                     f32(epilogue->hi)});
      func::CallOp::create(b, loc, name, TypeRange{}, args);
      op.erase();
      if (fused) {
        epilogue->op.erase();
        for (Operation *view : llvm::reverse(epilogue->deadViews))
          view->erase();
      }
    };
    // The kernel's own output, when an epilogue writes elsewhere, is then unused.
    auto eraseIfUnused = [](Value buffer) {
      if (auto alloc = buffer.getDefiningOp<memref::AllocOp>(); alloc && alloc->use_empty())
        alloc.erase();
    };
    Type f32 = b.getF32Type();
    SmallVector<Type> epilogueArgs = {i64, f32, i64, f32, f32, f32};
    for (auto &[op, m] : matmuls) {
      std::optional<EpilogueMatch> epilogue;
      if (linalg::FillOp fill = zeroFillBefore(op, m.c)) {
        m.flags |= KILN_MATMUL_OVERWRITE;
        fill.erase();
        epilogue = matchEpilogue(op, m.c, m.n);
      }
      SmallVector<Type> args = {i64, i64, i64, i64, i64, i64, i32};
      StringRef name = KILN_KERNEL_MATMUL_F32;
      if (epilogue) {
        name = KILN_KERNEL_MATMUL_EPILOGUE_F32;
        llvm::append_range(args, epilogueArgs);
      }
      declare(name, args);
      call(op, name, {m.a, m.b, m.c}, {m.m, m.n, m.k}, m.flags,
           epilogue ? &*epilogue : nullptr);
      if (epilogue)
        eraseIfUnused(m.c);
    }
    llvm::SmallPtrSet<Operation *, 4> fusedPools;
    // A convolution kernel: overwrite and epilogue flags share their values (1 and 2)
    // between the depthwise, 3x3 and direct kernels; `sizes` come after the three buffers.
    auto convolution = [&](linalg::GenericOp op, const WindowMatch &d, StringRef name,
                           SmallVector<int64_t> sizes, int64_t channels) {
      static_assert(KILN_DEPTHWISE_OVERWRITE == KILN_CONV2D_OVERWRITE &&
                    KILN_DEPTHWISE_EPILOGUE == KILN_CONV2D_EPILOGUE, "shared flag values");
      int32_t flags = 0;
      std::optional<EpilogueMatch> epilogue;
      if (linalg::FillOp fill = zeroFillBefore(op, d.output)) {
        flags |= KILN_CONV2D_OVERWRITE;
        fill.erase();
        epilogue = matchEpilogue(op, d.output, channels);
      }
      SmallVector<Type> args(3 + sizes.size(), i64);
      args.push_back(i32);
      llvm::append_range(args, epilogueArgs);
      declare(name, args);
      EpilogueMatch none;
      if (epilogue)
        flags |= KILN_CONV2D_EPILOGUE;
      // A 2x2/2 max pool that alone reads the result: the 3x3 and direct kernels write the
      // pool's output instead (the result never reaches memory).
      Value result = epilogue ? epilogue->output : d.output;
      std::optional<PoolMatch> pool;
      if ((flags & KILN_CONV2D_OVERWRITE) && name != KILN_KERNEL_DEPTHWISE_CONV2D_F32)
        pool = matchPoolAfter(op, epilogue ? epilogue->op.getOperation() : nullptr, result);
      SmallVector<Value> buffers = {d.input, d.filter, d.output};
      if (pool) {
        flags |= KILN_CONV2D_MAX_POOL;
        if (Operation *def = pool->output.getDefiningOp(); def && !def->isBeforeInBlock(op))
          def->moveBefore(op);
        if (epilogue)
          epilogue->output = pool->output;
        else
          buffers.back() = pool->output;
      }
      call(op, name, buffers, sizes, flags, epilogue ? &*epilogue : &none);
      if (epilogue)
        eraseIfUnused(d.output);
      if (pool) {
        fusedPools.insert(pool->op);
        if (linalg::FillOp fill = fillBefore(pool->op, pool->output))
          fill.erase();
        Value window = pool->op.getDpsInputs()[0];
        pool->op.erase();
        eraseIfUnused(window);
        eraseIfUnused(result);
      }
    };
    for (auto &[op, d] : depthwise) {
      auto in = cast<MemRefType>(d.input.getType()).getShape();
      auto f = cast<MemRefType>(d.filter.getType()).getShape();
      auto out = cast<MemRefType>(d.output.getType()).getShape();
      // n, h, w, c, m, kh, kw, oh, ow, then the window.
      SmallVector<int64_t> sizes = {in[0], in[1], in[2], in[3], f[3], f[0], f[1], out[1], out[2]};
      llvm::append_range(sizes, d.window);
      convolution(op, d, KILN_KERNEL_DEPTHWISE_CONV2D_F32, sizes, out[3] * out[4]);
    }
    for (auto &[op, d] : conv3x3) {
      auto in = cast<MemRefType>(d.input.getType()).getShape();
      auto out = cast<MemRefType>(d.output.getType()).getShape();
      // n, h, w, c, f, oh, ow, then pad top and left.
      SmallVector<int64_t> sizes = {in[0], in[1], in[2], in[3], out[3], out[1], out[2]};
      llvm::append_range(sizes, d.window);
      convolution(op, d, KILN_KERNEL_CONV2D_3X3_F32, sizes, out[3]);
    }
    for (auto &[op, d] : direct) {
      auto in = cast<MemRefType>(d.input.getType()).getShape();
      auto f = cast<MemRefType>(d.filter.getType()).getShape();
      auto out = cast<MemRefType>(d.output.getType()).getShape();
      // n, h, w, c, f, kh, kw, oh, ow, then the window.
      SmallVector<int64_t> sizes = {in[0], in[1], in[2], in[3], f[3], f[0], f[1], out[1], out[2]};
      llvm::append_range(sizes, d.window);
      convolution(op, d, KILN_KERNEL_CONV2D_DIRECT_F32, sizes, out[3]);
    }
    for (auto &[op, p] : maxPools) {
      if (fusedPools.contains(op.getOperation()))
        continue; // erased, its pool computed by the convolution before it
      // The kernel writes every output element: the fill before it goes.
      if (linalg::FillOp fill = fillBefore(op, p.output))
        fill.erase();
      auto in = cast<MemRefType>(p.input.getType()).getShape();
      auto out = cast<MemRefType>(p.output.getType()).getShape();
      // n, h, w, c, oh, ow, then the window.
      SmallVector<int64_t> sizes = {in[0], in[1], in[2], in[3], out[1], out[2]};
      llvm::append_range(sizes, p.window);
      declare(KILN_KERNEL_MAX_POOL2D_F32, SmallVector<Type>(2 + sizes.size(), i64));
      Value window = p.filter;
      call(op, KILN_KERNEL_MAX_POOL2D_F32, {p.input, p.output}, sizes, std::nullopt, nullptr);
      eraseIfUnused(window);
    }
  }
};

} // namespace
