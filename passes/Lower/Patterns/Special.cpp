//===- Special.cpp - special functions as calls of the runtime's ---------------===//
//
// Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, Igamma, Igammac, IgammaGradA,
// RandomGammaGrad, Zeta, Polygamma and Betainc: an elementwise generic (NumPy
// broadcasting) whose body calls the runtime's NAME for float32 or float64 (libkiln_kernels,
// kiln/kernels/special.h: Eigen's scalar implementations, TensorFlow's CPU kernels' own);
// float16 and bfloat16 are widened to float32 for the call. The ops are TF_HostOnly, so
// these calls are only ever in CPU code.
//
//===----------------------------------------------------------------------------===//
#include "dialects/Kiln/ABI.h"
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// The declaration of `name` with `arity` operands of `type` and one result, added to the
/// module once.
func::FuncOp declareSpecial(OpBuilder &b, ModuleOp module, StringRef name, Type type,
                            unsigned arity) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Type> operands(arity, type);
  auto func = func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(operands, type));
  func.setPrivate();
  return func;
}

template <typename OpT> struct SpecialLowering : OpConversionPattern<OpT> {
  SpecialLowering(const TypeConverter &converter, MLIRContext *context, StringRef symbol)
      : OpConversionPattern<OpT>(converter, context), symbol(symbol.str()) {}

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op->getResult(0).getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    auto module = op->template getParentOfType<ModuleOp>();
    auto element = cast<FloatType>(resultType.getElementType());
    // float16 and bfloat16 through float32, as Eigen computes them.
    Type callType = element.isF64() ? element : Type(rewriter.getF32Type());
    std::string name = dialect::abi::specialFunction(symbol, element.isF64());
    ValueRange operands = adaptor.getOperands();
    operands =
        operands.take_front(cast<tf::GraphOpInterface>(op.getOperation()).getDataInputs().size());
    func::FuncOp callee = declareSpecial(rewriter, module, name, callType, operands.size());
    Location loc = op.getLoc();
    Value result = buildElementwise(
        rewriter, loc, resultType, operands, [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> wide;
          for (Value a : args)
            wide.push_back(
                a.getType() == callType ? a : arith::ExtFOp::create(b, l, callType, a).getResult());
          Value value = func::CallOp::create(b, l, callee, wide).getResult(0);
          return callType == element ? value
                                     : arith::TruncFOp::create(b, l, element, value).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  std::string symbol;
};

} // namespace

void populateSpecialPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SpecialLowering<tf::LgammaOp>>(converter, ctx, "lgamma");
  patterns.add<SpecialLowering<tf::DigammaOp>>(converter, ctx, "digamma");
  patterns.add<SpecialLowering<tf::ErfinvOp>>(converter, ctx, "erfinv");
  patterns.add<SpecialLowering<tf::NdtriOp>>(converter, ctx, "ndtri");
  patterns.add<SpecialLowering<tf::BesselI0eOp>>(converter, ctx, "bessel_i0e");
  patterns.add<SpecialLowering<tf::BesselI1eOp>>(converter, ctx, "bessel_i1e");
  patterns.add<SpecialLowering<tf::IgammaOp>>(converter, ctx, "igamma");
  patterns.add<SpecialLowering<tf::IgammacOp>>(converter, ctx, "igammac");
  patterns.add<SpecialLowering<tf::IgammaGradAOp>>(converter, ctx, "igamma_grad_a");
  patterns.add<SpecialLowering<tf::RandomGammaGradOp>>(converter, ctx, "random_gamma_grad");
  patterns.add<SpecialLowering<tf::ZetaOp>>(converter, ctx, "zeta");
  patterns.add<SpecialLowering<tf::PolygammaOp>>(converter, ctx, "polygamma");
  patterns.add<SpecialLowering<tf::BetaincOp>>(converter, ctx, "betainc");
}

} // namespace kiln::lower
