//===- Random.cpp - stateless random numbers as Philox-4x32-10 ----------------===//
//
// StatelessRandomGetKeyCounter and the V2 stateless random ops, as TensorFlow's CPU kernels
// compute them (tsl/lib/random: philox_random.h, random_distributions.h), bit for bit:
// each result element runs the ten Philox rounds of its block (the counter plus its index
// divided by the samples a block gives) and takes its lane. Every element is independent,
// so the generic is parallel, on a CPU or a GPU.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace kiln::lower {
namespace {

/// Scalar integer arithmetic in a linalg body (i32 and i64, wrapping).
struct Bits {
  OpBuilder &b;
  Location loc;
  Value i32(uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
  }
  Value i64(uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(v)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value xor_(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value and_(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value or_(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value low(Value x) { return arith::TruncIOp::create(b, loc, b.getI32Type(), x); }
  Value high(Value x) { return low(shr(x, i64(32))); }
  Value wide(Value x) { return arith::ExtUIOp::create(b, loc, b.getI64Type(), x); }
  /// lo | hi << 32.
  Value join(Value lo, Value hi) {
    Value low64 = wide(lo);
    Value high64 = shl(wide(hi), i64(32));
    return or_(low64, high64);
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }

  /// Philox-4x32-10 of `counter` under `key`: ten rounds, the key raised between them.
  std::array<Value, 4> philox(std::array<Value, 4> c, std::array<Value, 2> k) {
    auto mulHiLo = [&](uint32_t m, Value x) {
      Value factor = i64(m);
      Value product = mul(wide(x), factor);
      return std::pair{low(product), high(product)};
    };
    for (int round = 0; round < 10; ++round) {
      auto [lo0, hi0] = mulHiLo(0xD2511F53u, c[0]);
      auto [lo1, hi1] = mulHiLo(0xCD9E8D57u, c[2]);
      Value r0 = xor_(xor_(hi1, c[1]), k[0]);
      Value r2 = xor_(xor_(hi0, c[3]), k[1]);
      c = {r0, lo1, r2, lo0};
      if (round < 9) {
        k[0] = add(k[0], i32(0x9E3779B9u));
        k[1] = add(k[1], i32(0xBB67AE85u));
      }
    }
    return c;
  }
  /// words[lane], `lane` an i64 in [0, 4).
  Value pick(const std::array<Value, 4> &words, Value lane) {
    Value v = words[3];
    for (int j = 2; j >= 0; --j)
      v = select(eq(lane, i64(j)), words[j], v);
    return v;
  }
};

/// The linear (row-major) position of the current element of a generic over `shape`, i64.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value i = indexConstant(b, loc, 0);
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    Value scaled = arith::MulIOp::create(b, loc, i, indexConstant(b, loc, shape[d]));
    i = arith::AddIOp::create(b, loc, scaled, linalg::IndexOp::create(b, loc, d));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
}

Value readScalar(OpBuilder &b, Location loc, Value tensor, int64_t at) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{indexConstant(b, loc, at)});
}

/// StatelessRandomGetKeyCounter: the seed's two int64 (int32 sign-extended) as a counter
/// under the fixed key (0x3ec8f720, 0x02461e29); one Philox block gives the key (words 0
/// and 1) and the counter's high half (words 2 and 3); its low half is 0.
struct KeyCounterLowering : OpConversionPattern<tf::StatelessRandomGetKeyCounterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::StatelessRandomGetKeyCounterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value seed = adaptor.getSeed();
    auto words = RankedTensorType::get({3}, rewriter.getI64Type());
    Value all = buildParallelGeneric(
        rewriter, loc, words, ValueRange{}, {}, [&](OpBuilder &nb, Location l, ValueRange) {
          Bits m{nb, l};
          auto seedAt = [&](int64_t i) -> Value {
            Value v = readScalar(nb, l, seed, i);
            return v.getType().isInteger(64)
                       ? v
                       : arith::ExtSIOp::create(nb, l, nb.getI64Type(), v).getResult();
          };
          Value s0 = seedAt(0), s1 = seedAt(1);
          std::array<Value, 4> counter = {m.low(s0), m.high(s0), m.low(s1), m.high(s1)};
          std::array<Value, 2> key = {m.i32(0x3ec8f720u), m.i32(0x02461e29u)};
          auto mix = m.philox(counter, key);
          Value j =
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, 0));
          Value keyWord = m.join(mix[0], mix[1]), high = m.join(mix[2], mix[3]);
          Value rest = m.select(m.eq(j, m.i64(1)), m.i64(0), high);
          return m.select(m.eq(j, m.i64(0)), keyWord, rest);
        });
    auto slice = [&](int64_t offset, int64_t size) -> Value {
      return tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({size}, rewriter.getI64Type()), all, ValueRange{},
          ValueRange{}, ValueRange{}, rewriter.getDenseI64ArrayAttr({offset}),
          rewriter.getDenseI64ArrayAttr({size}), rewriter.getDenseI64ArrayAttr({1}));
    };
    rewriter.replaceOp(op, {slice(0, 1), slice(1, 2)});
    return success();
  }
};

enum class Distribution { Uniform, Normal, UniformInt, FullInt, TruncatedNormal };

/// f32 in [0, 1) from 23 random bits: 1.m - 1.
Value uniformFloat(Bits &m, Value x) {
  Value mantissa = m.and_(x, m.i32(0x7fffffu));
  Value bits = m.or_(mantissa, m.i32(127u << 23));
  Value one = arith::ConstantOp::create(m.b, m.loc, m.b.getF32FloatAttr(1.0f));
  return arith::SubFOp::create(m.b, m.loc,
                               arith::BitcastOp::create(m.b, m.loc, m.b.getF32Type(), bits), one);
}

/// f64 in [0, 1) from 52 random bits (20 of x0, all of x1).
Value uniformDouble(Bits &m, Value x0, Value x1) {
  Value upper = m.shl(m.wide(m.and_(x0, m.i32(0xfffffu))), m.i64(32));
  Value mantissa = m.or_(upper, m.wide(x1));
  Value bits = m.or_(mantissa, m.i64(uint64_t(1023) << 52));
  Value one = arith::ConstantOp::create(m.b, m.loc, m.b.getF64FloatAttr(1.0));
  return arith::SubFOp::create(m.b, m.loc,
                               arith::BitcastOp::create(m.b, m.loc, m.b.getF64Type(), bits), one);
}

/// f16 or bf16 in [0, 1) from the low 16 bits: 1.m - 1 with 10 (7) mantissa bits.
Value uniformHalf(Bits &m, Value x, FloatType type) {
  bool bf16 = type.isBF16();
  Value mantissa = m.and_(x, m.i32(bf16 ? 0x7fu : 0x3ffu));
  Value bits = m.or_(mantissa, m.i32(bf16 ? 127u << 7 : 15u << 10));
  Value bits16 = arith::TruncIOp::create(m.b, m.loc, m.b.getI16Type(), bits);
  Value one = arith::ConstantOp::create(m.b, m.loc, m.b.getFloatAttr(type, 1.0));
  return arith::SubFOp::create(m.b, m.loc, arith::BitcastOp::create(m.b, m.loc, type, bits16), one);
}

/// Box-Muller on two uniform samples u (for the radius, at least 1e-7) and v (the angle,
/// 2 pi v in double then rounded, as TensorFlow's `2.0f * M_PI * v`): sin or cos, by `odd`.
Value boxMuller(Bits &m, Value u, Value v, Value odd) {
  OpBuilder &b = m.b;
  Location loc = m.loc;
  auto type = cast<FloatType>(u.getType());
  bool f64 = type.isF64();
  Value epsilon = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1e-7));
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, u, epsilon);
  u = arith::SelectOp::create(b, loc, small, epsilon, u);
  Value twoPi = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(2 * M_PI));
  Value angle = arith::MulFOp::create(
      b, loc, twoPi, f64 ? v : arith::ExtFOp::create(b, loc, b.getF64Type(), v).getResult());
  if (!f64)
    angle = arith::TruncFOp::create(b, loc, type, angle);
  Value minusTwo = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, -2.0));
  Value radius = math::SqrtOp::create(
      b, loc, arith::MulFOp::create(b, loc, minusTwo, math::LogOp::create(b, loc, u)));
  Value sine = math::SinOp::create(b, loc, angle), cosine = math::CosOp::create(b, loc, angle);
  Value trig = arith::SelectOp::create(b, loc, odd, cosine, sine);
  return arith::MulFOp::create(b, loc, trig, radius);
}

/// The 128-bit counter (c0, c1) plus `blocks`, as Philox's four counter words.
std::array<Value, 4> counterPlus(Bits &m, Value c0, Value c1, Value blocks) {
  Value low = m.add(c0, blocks);
  Value carry = arith::CmpIOp::create(m.b, m.loc, arith::CmpIPredicate::ult, low, blocks);
  Value high = m.add(c1, arith::ExtUIOp::create(m.b, m.loc, m.b.getI64Type(), carry));
  return {m.low(low), m.high(low), m.low(high), m.high(high)};
}

/// StatelessTruncatedNormalV2's element at row-major position `i`, as TensorFlow's
/// TruncatedNormalDistribution fills it: outputs come in groups (4 of float, 2 of double),
/// each group's samples from the counter advanced by 256 (128) blocks per group before it,
/// read one 32-bit word after another; each Box-Muller pair (2 words of float, 4 of
/// double) gives sin then cos, kept when |x| < 2, until the group is full. The element is
/// the group's accepted sample number `lane`: a loop over the pairs, recomputing Philox
/// (float16 and bfloat16 from the float samples).
Value truncatedNormal(Bits &m, Value i, Value c0, Value c1, std::array<Value, 2> key,
                      Type element) {
  OpBuilder &b = m.b;
  Location loc = m.loc;
  bool f64 = element.isF64();
  Type sampleType = f64 ? element : Type(b.getF32Type());
  int64_t group = f64 ? 2 : 4, skip = f64 ? 128 : 256;
  Value groupIndex = arith::DivUIOp::create(b, loc, i, m.i64(group));
  Value lane = arith::RemUIOp::create(b, loc, i, m.i64(group));
  Value base = m.mul(groupIndex, m.i64(skip));
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(sampleType, 0.0));
  // State: the pair, the samples accepted so far, the element once found.
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{b.getI64Type(), b.getI64Type(), sampleType},
      ValueRange{m.i64(0), m.i64(0), zero},
      [&](OpBuilder &bb, Location l, ValueRange state) {
        Value more = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ule, state[1], lane);
        scf::ConditionOp::create(bb, l, more, state);
      },
      [&](OpBuilder &bb, Location l, ValueRange state) {
        Bits w{bb, l};
        Value pair = state[0], accepted = state[1], found = state[2];
        // Float: pairs 2k and 2k + 1 share block k; double: one block a pair.
        Value block = f64 ? pair : arith::DivUIOp::create(bb, l, pair, w.i64(2)).getResult();
        auto words = w.philox(counterPlus(w, c0, c1, w.add(base, block)), key);
        Value u, v;
        if (f64) {
          u = uniformDouble(w, words[0], words[1]);
          v = uniformDouble(w, words[2], words[3]);
        } else {
          Value first = w.mul(w.and_(pair, w.i64(1)), w.i64(2));
          u = uniformFloat(w, w.pick(words, first));
          v = uniformFloat(w, w.pick(words, w.add(first, w.i64(1))));
        }
        Value two = arith::ConstantOp::create(bb, l, bb.getFloatAttr(sampleType, 2.0));
        for (bool odd : {false, true}) {
          Value x = boxMuller(w, u, v, arith::ConstantOp::create(bb, l, bb.getBoolAttr(odd)));
          Value magnitude = math::AbsFOp::create(bb, l, x);
          Value keep = arith::CmpFOp::create(bb, l, arith::CmpFPredicate::OLT, magnitude, two);
          Value mine = arith::AndIOp::create(bb, l, keep, w.eq(accepted, lane));
          found = arith::SelectOp::create(bb, l, mine, x, found);
          accepted = w.add(accepted, arith::ExtUIOp::create(bb, l, bb.getI64Type(), keep));
        }
        scf::YieldOp::create(bb, l, ValueRange{w.add(pair, w.i64(1)), accepted, found});
      });
  Value sample = loop.getResult(2);
  return sampleType == element ? sample : arith::TruncFOp::create(b, loc, element, sample);
}

template <typename OpT, Distribution kind>
struct StatelessRandomLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    auto alg = constantInts(adaptor.getAlg());
    if (!alg)
      return op.emitOpError() << "needs a constant alg (Philox)";
    Location loc = op.getLoc();
    Type element = resultType.getElementType();
    bool wide = element.isF64() || element.isInteger(64);
    // Samples a Philox block gives: 4 of 32 bits, or 2 of 64.
    int64_t perBlock = wide ? 2 : 4;
    Value key = adaptor.getKey(), counter = adaptor.getCounter();
    Value lo, range;
    if constexpr (kind == Distribution::UniformInt) {
      auto low = constantInts(adaptor.getMinval()), high = constantInts(adaptor.getMaxval());
      if (!low || !high)
        return op.emitOpError() << "needs constant minval and maxval";
      unsigned width = element.getIntOrFloatBitWidth();
      auto integer = [&](int64_t v) -> Value {
        APInt bits(width, uint64_t(v), /*isSigned=*/false, /*implicitTrunc=*/true);
        return arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(element, bits));
      };
      lo = integer((*low)[0]);
      // hi - lo as an unsigned number of the type's width.
      range = integer((*high)[0] - (*low)[0]);
    }
    ArrayRef<int64_t> shape = resultType.getShape();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &nb, Location l, ValueRange) -> Value {
          Bits m{nb, l};
          Value i = linearIndex(nb, l, shape);
          if constexpr (kind == Distribution::TruncatedNormal) {
            Value c0 = readScalar(nb, l, counter, 0), c1 = readScalar(nb, l, counter, 1);
            Value k = readScalar(nb, l, key, 0);
            return truncatedNormal(m, i, c0, c1, {m.low(k), m.high(k)}, element);
          }
          Value block = arith::DivUIOp::create(nb, l, i, m.i64(perBlock));
          Value lane = arith::RemUIOp::create(nb, l, i, m.i64(perBlock));
          // The 128-bit counter plus the block.
          Value c0 = readScalar(nb, l, counter, 0), c1 = readScalar(nb, l, counter, 1);
          Value k = readScalar(nb, l, key, 0);
          std::array<Value, 4> start = counterPlus(m, c0, c1, block);
          std::array<Value, 2> keyWords = {m.low(k), m.high(k)};
          auto words = m.philox(start, keyWords);
          // The lane's sample: one word, or two (the first the low half) for 64 bits.
          Value first = wide ? m.mul(lane, m.i64(2)) : lane;
          Value x0 = m.pick(words, first);
          Value x1 = wide ? m.pick(words, m.add(first, m.i64(1))) : Value();
          if constexpr (kind == Distribution::Uniform) {
            if (element.isF64())
              return uniformDouble(m, x0, x1);
            if (element.isF32())
              return uniformFloat(m, x0);
            return uniformHalf(m, x0, cast<FloatType>(element));
          } else if constexpr (kind == Distribution::Normal) {
            // Lanes pair up: (0, 1) and (2, 3) of 32-bit samples, sin for the even one and
            // cos for the odd; a 64-bit pair takes all four words.
            Value parity = m.and_(lane, m.i64(1));
            Value odd = m.eq(parity, m.i64(1));
            if (element.isF64()) {
              Value u = uniformDouble(m, words[0], words[1]);
              Value v = uniformDouble(m, words[2], words[3]);
              return boxMuller(m, u, v, odd);
            }
            Value base = m.and_(lane, m.i64(2));
            Value u = uniformFloat(m, m.pick(words, base));
            Value v = uniformFloat(m, m.pick(words, m.add(base, m.i64(1))));
            Value normal = boxMuller(m, u, v, odd);
            return element.isF32() ? normal : arith::TruncFOp::create(nb, l, element, normal);
          } else {
            Value bits = wide ? m.join(x0, x1) : x0;
            if constexpr (kind == Distribution::UniformInt)
              return m.add(lo, arith::RemUIOp::create(nb, l, bits, range));
            return bits;
          }
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateRandomPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<KeyCounterLowering,
           StatelessRandomLowering<tf::StatelessRandomUniformV2Op, Distribution::Uniform>,
           StatelessRandomLowering<tf::StatelessRandomNormalV2Op, Distribution::Normal>,
           StatelessRandomLowering<tf::StatelessTruncatedNormalV2Op, Distribution::TruncatedNormal>,
           StatelessRandomLowering<tf::StatelessRandomUniformIntV2Op, Distribution::UniformInt>,
           StatelessRandomLowering<tf::StatelessRandomUniformFullIntV2Op, Distribution::FullInt>>(
          converter, patterns.getContext());
}

} // namespace kiln::lower
