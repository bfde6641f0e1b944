//===- KernelCall.cpp - kiln.kernel_call and #kiln.epilogue --------------------===//
#include "dialects/Kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallBitVector.h"

#include <limits>

using namespace mlir;
using namespace kiln::dialect;

//===----------------------------------------------------------------------===//
// #kiln.epilogue
//===----------------------------------------------------------------------===//

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();

FloatAttr f32(MLIRContext *context, float value) {
  return FloatAttr::get(Float32Type::get(context), value);
}
} // namespace

EpilogueAttr EpilogueAttr::getIdentity(MLIRContext *context) {
  return get(context, -1, f32(context, 1.0f), -1, f32(context, 0.0f), f32(context, -kInf),
             f32(context, kInf), /*swish=*/false);
}

float EpilogueAttr::getScaleValue() const { return getScale().getValue().convertToFloat(); }
float EpilogueAttr::getBiasValue() const { return getBias().getValue().convertToFloat(); }
float EpilogueAttr::getLoValue() const { return getLo().getValue().convertToFloat(); }
float EpilogueAttr::getHiValue() const { return getHi().getValue().convertToFloat(); }

EpilogueAttr EpilogueAttr::withInputsShifted(int64_t offset) const {
  auto shift = [&](int64_t input) { return input < 0 ? input : input + offset; };
  return get(getContext(), shift(getScaleInput()), getScale(), shift(getBiasInput()), getBias(),
             getLo(), getHi(), getSwish());
}

LogicalResult EpilogueAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t scaleInput,
                                   FloatAttr scale, int64_t biasInput, FloatAttr bias, FloatAttr lo,
                                   FloatAttr hi, bool) {
  for (FloatAttr value : {scale, bias, lo, hi})
    if (!value || !value.getType().isF32())
      return emitError() << "epilogue values are f32";
  if (scaleInput < -1 || biasInput < -1)
    return emitError() << "epilogue input positions are non-negative";
  return success();
}

// #kiln.epilogue<scale = input 2, bias = 0.5, lo = 0.0, hi = 6.0, swish>: fields in this
// order, each optional.
Attribute EpilogueAttr::parse(AsmParser &parser, Type) {
  MLIRContext *context = parser.getContext();
  EpilogueAttr identity = getIdentity(context);
  int64_t scaleInput = -1, biasInput = -1;
  bool swish = false;
  FloatAttr scale = identity.getScale(), bias = identity.getBias(), lo = identity.getLo(),
            hi = identity.getHi();
  auto value = [&](StringRef key, FloatAttr &out, int64_t *input) -> ParseResult {
    if (parser.parseEqual())
      return failure();
    if (input && succeeded(parser.parseOptionalKeyword("input")))
      return parser.parseInteger(*input);
    APFloat v(0.0f);
    if (parser.parseFloat(APFloat::IEEEsingle(), v))
      return failure();
    out = FloatAttr::get(Float32Type::get(context), v);
    return success();
  };
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    const char *keys[] = {"scale", "bias", "lo", "hi", "swish"};
    size_t next = 0;
    do {
      StringRef key;
      llvm::SMLoc at = parser.getCurrentLocation();
      if (parser.parseKeyword(&key))
        return {};
      size_t i = next;
      while (i < 5 && key != keys[i])
        ++i;
      if (i == 5) {
        parser.emitError(at) << "expected one of scale, bias, lo, hi, swish, in that order; got '"
                             << key << "'";
        return {};
      }
      next = i + 1;
      if (i == 4) {
        swish = true;
        continue;
      }
      FloatAttr *fields[] = {&scale, &bias, &lo, &hi};
      int64_t *inputs[] = {&scaleInput, &biasInput, nullptr, nullptr};
      if (value(key, *fields[i], inputs[i]))
        return {};
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, context, scaleInput,
                    scale, biasInput, bias, lo, hi, swish);
}

void EpilogueAttr::print(AsmPrinter &printer) const {
  EpilogueAttr identity = getIdentity(getContext());
  SmallVector<std::function<void()>> fields;
  auto field = [&](StringRef key, int64_t input, FloatAttr value, FloatAttr none) {
    if (input >= 0)
      fields.push_back([&printer, key, input] { printer << key << " = input " << input; });
    else if (value != none)
      fields.push_back([&printer, key, value] {
        printer << key << " = ";
        printer.printFloat(value.getValue());
      });
  };
  field("scale", getScaleInput(), getScale(), identity.getScale());
  field("bias", getBiasInput(), getBias(), identity.getBias());
  field("lo", -1, getLo(), identity.getLo());
  field("hi", -1, getHi(), identity.getHi());
  if (getSwish())
    fields.push_back([&printer] { printer << "swish"; });
  printer << "<";
  llvm::interleaveComma(fields, printer, [](const std::function<void()> &f) { f(); });
  printer << ">";
}

//===----------------------------------------------------------------------===//
// kiln.kernel_call
//===----------------------------------------------------------------------===//

const KernelInfo &KernelCallOp::getInfo() {
  const KernelInfo *info = lookupKernel(getKernel());
  assert(info && "kernel_call of a kernel the table does not have");
  return *info;
}

Value KernelCallOp::getInput(StringRef role) {
  int i = getInfo().inputIndex(role);
  assert(i >= 0 && "no such input");
  return getInputs()[i];
}

Value KernelCallOp::getOutput(StringRef role) {
  int i = getInfo().outputIndex(role);
  assert(i >= 0 && "no such output");
  return getOutputs()[i];
}

Value KernelCallOp::getBuffer(StringRef role) {
  return getInfo().inputIndex(role) >= 0 ? getInput(role) : getOutput(role);
}

int64_t KernelCallOp::getInt(StringRef name) {
  return cast<IntegerAttr>(getParams().get(name)).getInt();
}

ArrayRef<int64_t> KernelCallOp::getPair(StringRef name) {
  return cast<DenseI64ArrayAttr>(getParams().get(name)).asArrayRef();
}

float KernelCallOp::getF32(StringRef name) {
  return static_cast<float>(cast<FloatAttr>(getParams().get(name)).getValueAsDouble());
}

bool KernelCallOp::hasFlag(StringRef name) { return bool(getParams().get(name)); }

EpilogueAttr KernelCallOp::getEpilogue(StringRef name) {
  return getParams().getAs<EpilogueAttr>(name);
}

namespace {

/// The kernels the table has, for a message.
std::string kernelNames() {
  std::string names;
  for (const KernelInfo &info : kernels())
    names += (names.empty() ? "" : ", ") + info.name.str();
  return names;
}

} // namespace

bool kiln::dialect::isKernelElement(Type type, KernelElement element) {
  switch (element) {
  case KernelElement::F32:
    return type.isF32();
  case KernelElement::F16:
    return type.isF16();
  case KernelElement::F64:
    return type.isF64();
  case KernelElement::I32:
    return type.isInteger(32);
  case KernelElement::Any:
    return true;
  }
  return false;
}

StringRef kiln::dialect::kernelElementName(KernelElement element) {
  static constexpr StringLiteral names[] = {"f32 ", "f16 ", "f64 ", "i32 ", ""};
  return names[static_cast<int>(element)];
}

bool kiln::dialect::isKernelBuffer(Type type, int64_t rank, KernelElement element) {
  auto t = dyn_cast<MemRefType>(type);
  return t && t.hasStaticShape() &&
         (t.getLayout().isIdentity() || t.areTrailingDimsContiguous(t.getRank())) &&
         isKernelElement(t.getElementType(), element) && (rank < 0 || t.getRank() == rank);
}

LogicalResult KernelCallOp::verify() {
  const KernelInfo *info = lookupKernel(getKernel());
  if (!info)
    return emitOpError() << "calls the unknown kernel '" << getKernel()
                         << "'; the kernel table has " << kernelNames();
  // A GPU partition's buffers are device memory: it calls the GPU layer's kernels only.
  bool gpuKernel = libraryInfo(info->library).onGpu;
  if (gpuKernel != isOnGpu(getOperation()))
    return emitOpError() << "calls '" << info->name << "', "
                         << (gpuKernel ? "which takes device memory, outside"
                                       : "which takes host memory, in")
                         << " a function placed on a GPU";
  size_t fixed = info->inputs.size();
  bool hasEpilogues = llvm::any_of(
      info->params, [](const KernelParam &p) { return p.kind == KernelParamKind::Epilogue; });
  if (getInputs().size() < fixed || (!hasEpilogues && getInputs().size() != fixed))
    return emitOpError() << "has " << getInputs().size() << " inputs; '" << info->name << "' takes "
                         << fixed << (hasEpilogues ? " and its epilogues'" : "");
  if (getOutputs().size() != info->outputs.size())
    return emitOpError() << "has " << getOutputs().size() << " outputs; '" << info->name
                         << "' writes " << info->outputs.size();
  auto checkBuffers = [&](ValueRange values, ArrayRef<KernelOperand> specs,
                          StringRef what) -> LogicalResult {
    for (auto [value, spec] : llvm::zip(values, specs))
      if (!isKernelBuffer(value.getType(), spec.rank, spec.element))
        return emitOpError() << "takes " << value.getType() << " as its " << what << " '"
                             << spec.role << "'; expected a static, contiguous "
                             << kernelElementName(spec.element) << "buffer"
                             << (spec.rank >= 0 ? " of rank " + std::to_string(spec.rank)
                                                : std::string());
    return success();
  };
  if (failed(checkBuffers(getInputs(), info->inputs, "input")) ||
      failed(checkBuffers(getOutputs(), info->outputs, "output")))
    return failure();

  // Parameters: known to the row, of the right kind, the required ones present.
  llvm::SmallBitVector epilogueInputs(getInputs().size());
  for (NamedAttribute named : getParams()) {
    const KernelParam *param = info->findParam(named.getName());
    if (!param)
      return emitOpError() << "has the parameter '" << named.getName().getValue() << "', which '"
                           << info->name << "' does not take";
    Attribute value = named.getValue();
    auto integer = dyn_cast<IntegerAttr>(value);
    bool ok = false;
    switch (param->kind) {
    case KernelParamKind::I64:
      ok = integer && integer.getType().isInteger(64);
      break;
    case KernelParamKind::I32:
      ok = integer && integer.getType().isInteger(32);
      break;
    case KernelParamKind::I64Pair: {
      auto pair = dyn_cast<DenseI64ArrayAttr>(value);
      ok = pair && pair.size() == 2;
      break;
    }
    case KernelParamKind::Flag:
      ok = isa<UnitAttr>(value);
      break;
    case KernelParamKind::F32: {
      auto real = dyn_cast<FloatAttr>(value);
      ok = real && real.getType().isF32();
      break;
    }
    case KernelParamKind::Epilogue:
      if (auto epilogue = dyn_cast<EpilogueAttr>(value)) {
        ok = true;
        for (int64_t input : {epilogue.getScaleInput(), epilogue.getBiasInput()}) {
          if (input < 0)
            continue;
          if (input < int64_t(fixed) || input >= int64_t(getInputs().size()))
            return emitOpError() << "has the epilogue '" << param->name << "' reading input "
                                 << input << ", which is not one of its epilogue inputs (" << fixed
                                 << " to " << getInputs().size() - 1 << ")";
          if (epilogueInputs.test(input))
            return emitOpError() << "reads input " << input << " in two epilogue fields";
          epilogueInputs.set(input);
          if (!isKernelBuffer(getInputs()[input].getType(), 1))
            return emitOpError() << "has the epilogue input " << input << " of type "
                                 << getInputs()[input].getType()
                                 << "; expected a static, contiguous f32 buffer of rank 1";
        }
      }
      break;
    }
    if (!ok) {
      static const char *kinds[] = {"an i64",           "an i32",           "array<i64: a, b>",
                                    "a unit attribute", "a #kiln.epilogue", "an f32"};
      return emitOpError() << "has the parameter '" << named.getName().getValue() << "' = " << value
                           << "; expected " << kinds[static_cast<int>(param->kind)];
    }
  }
  for (const KernelParam &param : info->params)
    if (param.required && !getParams().get(param.name))
      return emitOpError() << "lacks the parameter '" << param.name << "' of '" << info->name
                           << "'";
  for (size_t i = fixed; i < getInputs().size(); ++i)
    if (!epilogueInputs.test(i))
      return emitOpError() << "has input " << i << ", which no epilogue reads";
  return info->verifyShapes ? info->verifyShapes(*this) : success();
}

void KernelCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  for (OpOperand &operand : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &operand, SideEffects::DefaultResource::get());
  const KernelInfo *info = lookupKernel(getKernel());
  bool overwrites = !info || info->overwriteFlag.empty() || hasFlag(info->overwriteFlag);
  for (OpOperand &operand : getOutputsMutable()) {
    if (!overwrites)
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
}
