//===- KernelShapes.cpp - the shape relations of the kernel table's rows -------===//
#include "dialects/Kiln/KernelShapes.h"
#include "dialects/Kiln/KernelTable.h"
#include "dialects/Kiln/KilnDialect.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;

namespace kiln::dialect::shapes {
namespace {

/// The checks a family's relations are made of, with the op's messages.
class Shapes {
public:
  explicit Shapes(KernelCallOp op) : op(op) {}

  int64_t p(StringRef name) { return op.getInt(name); }
  bool flag(StringRef name) { return op.hasFlag(name); }

  /// The input or output `role` is exactly `expected`.
  LogicalResult exactly(StringRef role, Value v, ArrayRef<int64_t> expected) {
    if (shape(v) == expected)
      return success();
    InFlightDiagnostic d = op.emitOpError() << "expects its " << role << " buffer to be ";
    llvm::interleave(expected, d, "x");
    d << " (from its parameters), but it is " << v.getType();
    return d;
  }
  LogicalResult input(StringRef role, ArrayRef<int64_t> expected) {
    return exactly(role, op.getInput(role), expected);
  }

  /// The output `role` is `expected`, or a view of it with as many elements and the same
  /// `channels` in its last dimension (a depthwise output's last two): the buffer of the
  /// elementwise op an epilogue replaced.
  LogicalResult output(StringRef role, ArrayRef<int64_t> expected, int64_t channels) {
    return view(role, op.getOutput(role), expected, channels);
  }

  /// The buffer `out` of `role` is `expected` or a view of it as `output` allows (a
  /// residual an epilogue reads where the output goes, say).
  LogicalResult view(StringRef role, Value out, ArrayRef<int64_t> expected, int64_t channels) {
    auto type = cast<MemRefType>(out.getType());
    int64_t elements = 1;
    for (int64_t d : expected)
      elements *= d;
    if (type.getShape() == expected || (type.getRank() > 0 && type.getNumElements() == elements &&
                                        type.getShape().back() == channels))
      return success();
    InFlightDiagnostic d = op.emitOpError() << "expects its " << role << " buffer to be ";
    llvm::interleave(expected, d, "x");
    d << " (from its parameters), or a view of it with " << channels << " channels, but it is "
      << out.getType();
    return d;
  }

  LogicalResult depthwiseOutput(int64_t c, int64_t m) {
    return output("output", {p("n"), p("oh"), p("ow"), c, m}, c * m);
  }

  LogicalResult conv(int64_t kh, int64_t kw) {
    bool pooled = flag("max_pool");
    if (pooled && !flag("overwrite"))
      return op.emitOpError() << "has max_pool without overwrite";
    int64_t oh = pooled ? p("oh") / 2 : p("oh"), ow = pooled ? p("ow") / 2 : p("ow");
    return failure(failed(input("input", {p("n"), p("h"), p("w"), p("c")})) ||
                   failed(input("filter", {kh, kw, p("c"), p("f")})) ||
                   failed(output("output", {p("n"), oh, ow, p("f")}, p("f"))));
  }

  /// The input `role` holds a k x n matrix packed as KILN_MATMUL_PACKED_B reads it.
  LogicalResult packed(StringRef role, int64_t k, int64_t n) {
    auto type = cast<MemRefType>(op.getInput(role).getType());
    if (type.getRank() == 1 && type.getShape()[0] >= packedMatmulBSize(k, n))
      return success();
    return op.emitOpError() << "expects its packed " << role << " buffer to hold "
                            << packedMatmulBSize(k, n) << " floats, but it is " << type;
  }

  KernelCallOp op;

private:
  static ArrayRef<int64_t> shape(Value v) { return cast<MemRefType>(v.getType()).getShape(); }
};

} // namespace

LogicalResult matmul(KernelCallOp op) {
  Shapes s(op);
  int64_t m = s.p("m"), n = s.p("n"), k = s.p("k");
  bool ta = s.flag("transpose_a"), tb = s.flag("transpose_b");
  if (failed(s.output("c", {m, n}, n)) ||
      failed(s.input("a", ta ? SmallVector<int64_t>{k, m} : SmallVector<int64_t>{m, k})))
    return failure();
  if (s.flag("packed_b"))
    return s.packed("b", k, n);
  return s.input("b", tb ? SmallVector<int64_t>{n, k} : SmallVector<int64_t>{k, n});
}

LogicalResult matmulResidual(KernelCallOp op) {
  Shapes s(op);
  int64_t n = s.p("n");
  // Read where c is written: c's shape or a view of it (the verifier checks contiguity).
  return failure(failed(matmul(op)) ||
                 failed(s.view("residual", op.getInput("residual"), {s.p("m"), n}, n)));
}

LogicalResult batchMatmul(KernelCallOp op) {
  Shapes s(op);
  int64_t batch = s.p("batch"), m = s.p("m"), n = s.p("n"), k = s.p("k");
  bool ta = s.flag("transpose_a"), tb = s.flag("transpose_b");
  // Each operand: `count` matrices of rows x cols, dense, the batch dimensions first.
  auto matrices = [&](StringRef role, Value v, int64_t count, int64_t rows,
                      int64_t cols) -> LogicalResult {
    auto type = cast<MemRefType>(v.getType());
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getRank() >= 2 && type.getLayout().isIdentity() &&
        shape.take_back(2) == ArrayRef<int64_t>{rows, cols} &&
        type.getNumElements() == count * rows * cols)
      return success();
    return op.emitOpError() << "expects its " << role << " buffer to hold " << count
                            << " contiguous " << rows << "x" << cols
                            << " matrices (from its parameters), but it is " << v.getType();
  };
  if (batch < 1)
    return op.emitOpError() << "expects a batch of at least 1, but it is " << batch;
  return failure(failed(matrices("a", op.getInput("a"), s.flag("broadcast_a") ? 1 : batch,
                                 ta ? k : m, ta ? m : k)) ||
                 failed(matrices("b", op.getInput("b"), s.flag("broadcast_b") ? 1 : batch,
                                 tb ? n : k, tb ? k : n)) ||
                 failed(matrices("c", op.getOutput("c"), batch, m, n)));
}

LogicalResult attention(KernelCallOp op) {
  Shapes s(op);
  int64_t batch = s.p("batch"), heads = s.p("heads");
  auto layout = [&](StringRef role, int64_t seq, int64_t width) {
    bool seqMajor = s.flag((role + "_seq_major").str());
    return SmallVector<int64_t>{batch, seqMajor ? seq : heads, seqMajor ? heads : seq, width};
  };
  if (failed(s.input("q", layout("q", s.p("sq"), s.p("d")))) ||
      failed(s.input("k", layout("k", s.p("sk"), s.p("d")))) ||
      failed(s.input("v", layout("v", s.p("sk"), s.p("dv")))) ||
      failed(s.exactly("out", op.getOutput("out"), layout("out", s.p("sq"), s.p("dv")))))
    return failure();
  if (op.getInfo().inputIndex("mask") < 0)
    return success();
  Value mask = op.getInput("mask");
  ArrayRef<int64_t> shape = cast<MemRefType>(mask.getType()).getShape();
  int64_t full[] = {batch, heads, s.p("sq"), s.p("sk")};
  int64_t strides[] = {s.p("mask_batch_stride"), s.p("mask_head_stride"), s.p("mask_row_stride")};
  int64_t dense = shape[3];
  for (int i = 2; i >= 0; --i) {
    if ((shape[i] != 1 && shape[i] != full[i]) || strides[i] != (shape[i] == 1 ? 0 : dense))
      return op.emitOpError() << "expects its mask buffer to broadcast to " << batch << "x" << heads
                              << "x" << full[2] << "x" << full[3] << " with strides " << strides[0]
                              << ", " << strides[1] << ", " << strides[2]
                              << " (from its parameters), but it is " << mask.getType();
    dense *= shape[i];
  }
  if (shape[3] != full[3])
    return op.emitOpError() << "expects its mask buffer's last dimension to be " << full[3]
                            << " (sk), but it is " << mask.getType();
  return success();
}

LogicalResult depthwise(KernelCallOp op) {
  Shapes s(op);
  return failure(failed(s.input("input", {s.p("n"), s.p("h"), s.p("w"), s.p("c")})) ||
                 failed(s.input("filter", {s.p("kh"), s.p("kw"), s.p("c"), s.p("m")})) ||
                 failed(s.depthwiseOutput(s.p("c"), s.p("m"))));
}

LogicalResult pointwiseDepthwise(KernelCallOp op) {
  Shapes s(op);
  return failure(failed(s.input("input", {s.p("n") * s.p("h") * s.p("w"), s.p("cin")})) ||
                 failed(s.input("weights", {s.p("cin"), s.p("c")})) ||
                 failed(s.input("filter", {s.p("kh"), s.p("kw"), s.p("c"), 1})) ||
                 failed(s.depthwiseOutput(s.p("c"), 1)));
}

LogicalResult conv2d3x3(KernelCallOp op) { return Shapes(op).conv(3, 3); }

LogicalResult conv2dDirect(KernelCallOp op) {
  Shapes s(op);
  return s.conv(s.p("kh"), s.p("kw"));
}

LogicalResult conv2dGemm(KernelCallOp op) {
  Shapes s(op);
  if (!s.flag("packed_filter"))
    return s.conv(s.p("kh"), s.p("kw"));
  int64_t k = s.p("kh") * s.p("kw") * s.p("c"), f = s.p("f");
  if (failed(s.input("input", {s.p("n"), s.p("h"), s.p("w"), s.p("c")})) ||
      failed(s.output("output", {s.p("n"), s.p("oh"), s.p("ow"), f}, f)))
    return failure();
  return s.packed("filter", k, f);
}

/// The epilogues the GPU libraries apply in the call (cuDNN's kiln_gpu_conv2d_fused_f32,
/// cuBLASLt's kiln_gpu_gemm_epilogue), if `op` has one: a scalar scale, a bias buffer or
/// none, a Relu or nothing, the output overwritten.
static LogicalResult libraryEpilogue(KernelCallOp op, Shapes &s, StringRef library,
                                     StringRef what) {
  EpilogueAttr e = op.getEpilogue("epilogue");
  if (!e)
    return success();
  bool inf = e.getHiValue() > 0 && std::isinf(e.getHiValue());
  bool lo = e.getLoValue() == 0.0f || (e.getLoValue() < 0 && std::isinf(e.getLoValue()));
  if (e.getScaleInput() < 0 && e.getBiasValue() == 0.0f && lo && inf && !e.getSwish() &&
      s.flag("overwrite"))
    return success();
  return op.emitOpError() << "has the epilogue " << e << ", which " << library
                          << " cannot apply: a " << what
                          << "'s takes a scalar scale, a bias buffer or none, a Relu or "
                             "nothing, and overwrites its output";
}

LogicalResult gpuMatmulEpilogue(KernelCallOp op) {
  Shapes s(op);
  if (s.p("k") < 1)
    return op.emitOpError() << "has k = " << s.p("k") << ": cuBLASLt's products need k >= 1";
  return failure(failed(libraryEpilogue(op, s, "cuBLASLt", "product")) || failed(matmul(op)));
}

LogicalResult gpuMatmulResidual(KernelCallOp op) {
  return failure(failed(gpuMatmulEpilogue(op)) || failed(matmulResidual(op)));
}

LogicalResult gpuConv2d(KernelCallOp op) {
  Shapes s(op);
  int64_t groups = s.p("groups"), f = s.p("f");
  if (groups < 1 || s.p("c") % groups != 0 || f % groups != 0)
    return op.emitOpError() << "has " << groups << " groups, which do not divide its " << s.p("c")
                            << " input and " << f << " output channels";
  if (failed(libraryEpilogue(op, s, "cuDNN", "convolution")))
    return failure();
  return failure(failed(s.input("input", {s.p("n"), s.p("h"), s.p("w"), s.p("c")})) ||
                 failed(s.input("filter", {f, s.p("kh"), s.p("kw"), s.p("c") / groups})) ||
                 failed(s.output("output", {s.p("n"), s.p("oh"), s.p("ow"), f}, f)));
}

LogicalResult gpuConv2dResidual(KernelCallOp op) {
  Shapes s(op);
  int64_t f = s.p("f");
  return failure(failed(gpuConv2d(op)) || failed(s.view("residual", op.getInput("residual"),
                                                        {s.p("n"), s.p("oh"), s.p("ow"), f}, f)));
}

LogicalResult maxPool(KernelCallOp op) {
  Shapes s(op);
  return failure(failed(s.input("input", {s.p("n"), s.p("h"), s.p("w"), s.p("c")})) ||
                 failed(s.exactly("output", op.getOutput("output"),
                                  {s.p("n"), s.p("oh"), s.p("ow"), s.p("c")})));
}

LogicalResult linalg(KernelCallOp op) {
  Shapes s(op);
  StringRef kernel = op.getKernel();
  auto has = [&](StringRef name) { return op.getInfo().findParam(name) != nullptr; };
  int64_t batch = s.p("batch");
  // m x n matrices (n x n square ones), k right-hand sides, p = min(m, n).
  int64_t n = s.p(has("n") ? "n" : "m"), m = has("m") ? s.p("m") : n;
  int64_t k = has("k") ? s.p("k") : 0, p = std::min(m, n);
  bool full = s.flag("full_matrices");
  bool svd = kernel.starts_with("svd_") || kernel.starts_with("singular_values_");
  bool tridiagonal = kernel.starts_with("tridiagonal_solve_");
  // The elements of one matrix of each role.
  auto elements = [&](StringRef role) -> int64_t {
    if (role == "ok")
      return 1;
    if (role == "rhs" || role == "x")
      return (tridiagonal ? m : n) * k;
    if (role == "diagonals")
      return 3 * m;
    if (role == "q")
      return m * (full ? m : p);
    if (role == "r")
      return (full ? m : p) * n;
    if (role == "e")
      return n;
    if (role == "s")
      return p;
    if (role == "u")
      return m * (full ? m : p);
    if (role == "v")
      return svd ? n * (full ? n : p) : n * n;
    return m * n; // a, l, inverse
  };
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return op.emitOpError() << "has a negative size";
  auto check = [&](ArrayRef<KernelOperand> specs, ValueRange buffers) -> LogicalResult {
    for (auto [spec, buffer] : llvm::zip(specs, buffers)) {
      int64_t expected = batch * elements(spec.role);
      int64_t actual = cast<MemRefType>(buffer.getType()).getNumElements();
      if (actual != expected)
        return op.emitOpError() << "expects its " << spec.role << " buffer to hold " << expected
                                << " elements (from its parameters), but it is "
                                << buffer.getType();
    }
    return success();
  };
  return failure(failed(check(op.getInfo().inputs, op.getInputs())) ||
                 failed(check(op.getInfo().outputs, op.getOutputs())));
}

} // namespace kiln::dialect::shapes
