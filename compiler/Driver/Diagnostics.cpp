//===- Diagnostics.cpp - `kiln compile`'s diagnostics, a line each ----------===//
#include "compiler/Driver/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace kiln::driver {

std::string printable(StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = length > 0 && i + length <= text.size() && (length > 1 || (c >= 0x20 && c != 0x7f));
    for (size_t k = 1; ok && k < length; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (ok) {
      out.append(text.data() + i, length);
      i += length;
      continue;
    }
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
    ++i;
  }
  return out;
}

LogicalResult DiagnosticPrinter::print(Diagnostic &diag) {
  const char *severity = "error";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    severity = "error";
    ++errors;
    break;
  case DiagnosticSeverity::Warning:
    severity = "warning";
    break;
  case DiagnosticSeverity::Note:
    severity = "note";
    break;
  case DiagnosticSeverity::Remark:
    severity = "remark";
    break;
  }
  std::string message = diag.str();
  std::string file = graphPath, node;
  diag.getLocation()->walk([&](Location loc) {
    if (auto name = dyn_cast<NameLoc>(loc); name && node.empty())
      node = name.getName().str();
    if (auto flc = dyn_cast<FileLineColLoc>(loc))
      file = flc.getFilename().str();
    return WalkResult::advance();
  });
  os << "kiln: " << severity << ": " << printable(file) << ": ";
  if (!node.empty() && !StringRef(message).starts_with("node '"))
    os << "node '" << printable(node) << "': ";
  // A tool's log after upstream's "`ptxas` invocation failed. Log:" (the GPU kernels'
  // assembly; `fatbinary`'s likewise): a note a line. Any other newline is escaped like
  // every control character (a node name may hold one: it must not start a line).
  StringRef text = message, log;
  auto [first, after] = text.split('\n');
  StringRef tool = first;
  if (tool.consume_front("`") && tool.consume_back("` invocation failed. Log:") && !tool.empty() &&
      tool.find_first_of("` ") == StringRef::npos) {
    text = first;
    log = after;
  }
  os << printable(text) << "\n";
  while (!log.empty()) {
    auto [line, rest] = log.split('\n');
    if (!line.trim().empty())
      os << "kiln: note: " << printable(line.rtrim()) << "\n";
    log = rest;
  }
  for (Diagnostic &note : diag.getNotes())
    os << "kiln: note: " << printable(note.str()) << "\n";
  return success();
}

} // namespace kiln::driver
