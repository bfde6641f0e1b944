//===- Einsum.cpp - Einsum: its equation and result type ----------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {
namespace {

/// Labels are the letters (0-51) and, for the dimensions "..." stands for, 52 + i, i
/// counting the broadcast block's dimensions from its left.
constexpr int kEllipsisLabel = 52;

int letterLabel(char c) {
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return 26 + (c - 'A');
  return -1;
}

} // namespace

std::string einsumLabelName(int label) {
  if (label >= kEllipsisLabel)
    return "... dimension " + std::to_string(label - kEllipsisLabel);
  char c = label < 26 ? char('a' + label) : char('A' + label - 26);
  return std::string("'") + c + "'";
}

namespace {

/// One term of the equation: its letters and where "..." stands among them (or none).
struct Term {
  SmallVector<int> letters;
  std::optional<size_t> ellipsisAt;
};

FailureOr<Term> parseTerm(const InferContext &ctx, StringRef equation, StringRef text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i).starts_with("...")) {
      if (term.ellipsisAt)
        return ctx.error("equation '", equation, "': \"...\" appears twice in '", text, "'");
      term.ellipsisAt = term.letters.size();
      i += 2;
      continue;
    }
    int label = letterLabel(text[i]);
    if (label < 0)
      return ctx.error("equation '", equation, "': '", text.substr(i, 1),
                       "' is not a letter or \"...\"");
    term.letters.push_back(label);
  }
  return term;
}

} // namespace

FailureOr<EinsumLabels> parseEinsum(const InferContext &ctx, StringRef equation,
                                    ArrayRef<int64_t> ranks) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact.push_back(c);
  StringRef text(compact);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return ctx.error("equation '", equation, "' has ", terms.size(), " input term",
                     terms.size() == 1 ? "" : "s", " for ", ranks.size(), " input",
                     ranks.size() == 1 ? "" : "s");
  if (ranks.size() != 1 && ranks.size() != 2)
    return ctx.error("Einsum takes one or two inputs, got ", ranks.size());

  EinsumLabels result;
  SmallVector<Term> parsed;
  int64_t ellipsisRank = 0;
  for (auto [i, termText] : llvm::enumerate(terms)) {
    auto term = parseTerm(ctx, equation, termText);
    if (failed(term))
      return failure();
    int64_t letters = term->letters.size();
    if (!term->ellipsisAt && ranks[i] != letters)
      return ctx.error("equation '", equation, "' labels ", letters, " dimensions of input ", i,
                       ", which has rank ", ranks[i]);
    if (term->ellipsisAt && ranks[i] < letters)
      return ctx.error("equation '", equation, "' labels ", letters, " dimensions of input ", i,
                       ", which has rank ", ranks[i]);
    if (term->ellipsisAt)
      ellipsisRank = std::max(ellipsisRank, ranks[i] - letters);
    parsed.push_back(std::move(*term));
  }
  result.ellipsisRank = ellipsisRank;
  // Each input's labels, its "..." dimensions aligned to the right of the block (they
  // broadcast as NumPy's do).
  for (auto [i, term] : llvm::enumerate(parsed)) {
    SmallVector<int> labels(term.letters.begin(), term.letters.end());
    if (term.ellipsisAt) {
      int64_t own = ranks[i] - int64_t(term.letters.size());
      SmallVector<int> block;
      for (int64_t d = ellipsisRank - own; d < ellipsisRank; ++d)
        block.push_back(kEllipsisLabel + int(d));
      labels.insert(labels.begin() + *term.ellipsisAt, block.begin(), block.end());
    }
    // A label repeated in one input takes that input's diagonal (kiln-graph-decompose: a
    // MatrixDiagPart); "..." dimensions never repeat.
    result.inputs.push_back(std::move(labels));
  }

  SmallVector<int> block;
  for (int64_t d = 0; d < ellipsisRank; ++d)
    block.push_back(kEllipsisLabel + int(d));
  if (explicitOutput) {
    auto out = parseTerm(ctx, equation, rhs);
    if (failed(out))
      return failure();
    result.output.assign(out->letters.begin(), out->letters.end());
    if (out->ellipsisAt)
      result.output.insert(result.output.begin() + *out->ellipsisAt, block.begin(), block.end());
    else if (ellipsisRank > 0)
      return ctx.error("equation '", equation,
                       "': the inputs have \"...\" dimensions, so the output must too");
  } else {
    // Implicit output: the "..." dimensions, then the letters used once, in ASCII order.
    result.output = block;
    SmallVector<int> once;
    for (char c : lhs) {
      int label = letterLabel(c);
      if (label >= 0 && llvm::count(lhs, c) == 1)
        once.push_back(label);
    }
    llvm::sort(once, [](int a, int b) {
      auto ascii = [](int l) { return l < 26 ? 'a' + l : 'A' + (l - 26); };
      return ascii(a) < ascii(b);
    });
    result.output.append(once.begin(), once.end());
  }
  for (size_t a = 0; a < result.output.size(); ++a) {
    int label = result.output[a];
    if (llvm::count(result.output, label) > 1)
      return ctx.error("equation '", equation, "': output label ", einsumLabelName(label),
                       " appears more than once");
    if (llvm::none_of(result.inputs, [&](auto &in) { return llvm::is_contained(in, label); }))
      return ctx.error("equation '", equation, "': output label ", einsumLabelName(label),
                       " is not in any input");
  }
  return result;
}

LogicalResult inferEinsum(const InferContext &ctx, InferResult &out) {
  auto list = ctx.listValues();
  if (failed(list))
    return failure();
  ValueRange values = *list;
  auto equation = ctx.requireAttr<StringAttr>("equation", "a string (s: \"ij,jk->ik\")");
  if (failed(equation))
    return failure();
  if (values.empty() || values.size() > 2)
    return ctx.error("Einsum takes one or two inputs, got ", values.size());
  auto first = dyn_cast<TensorType>(values[0].getType());
  if (!first)
    return ctx.error("inputs must be tensors");
  SmallVector<int64_t> ranks;
  for (Value v : values) {
    auto type = dyn_cast<TensorType>(v.getType());
    if (!type)
      return ctx.error("inputs must be tensors");
    if (type.getElementType() != first.getElementType())
      return ctx.error("inputs must have one element type, got ", first, " and ", type);
    if (!type.hasRank()) {
      out.push_back(UnrankedTensorType::get(first.getElementType()));
      return success();
    }
    ranks.push_back(type.getRank());
  }
  if (failed(ctx.checkTypeAttr("T", first.getElementType())))
    return failure();
  auto labels = parseEinsum(ctx, equation->getValue(), ranks);
  if (failed(labels))
    return failure();
  // Each label's size: letters must agree, "..." dimensions broadcast.
  llvm::DenseMap<int, int64_t> size;
  for (auto [i, in] : llvm::enumerate(labels->inputs)) {
    auto shape = cast<RankedTensorType>(values[i].getType()).getShape();
    for (auto [d, label] : llvm::enumerate(in)) {
      int64_t n = shape[d];
      auto [it, inserted] = size.try_emplace(label, n);
      if (inserted || n == it->second)
        continue;
      bool broadcast = label >= kEllipsisLabel;
      if (ShapedType::isDynamic(it->second) || (broadcast && it->second == 1)) {
        if (!ShapedType::isDynamic(n))
          it->second = n;
      } else if (!ShapedType::isDynamic(n) && !(broadcast && n == 1)) {
        return ctx.error("equation '", equation->getValue(), "': label ", einsumLabelName(label),
                         " has size ", it->second, " in one input and ", n, " in input ", i);
      }
    }
  }
  SmallVector<int64_t> shape;
  for (int label : labels->output)
    shape.push_back(size.lookup(label));
  out.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

} // namespace kiln::tf
