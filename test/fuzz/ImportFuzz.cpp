//===- ImportFuzz.cpp - fuzzing the GraphDef and config importers -------------===//
//
// Two ways in:
//  * LLVMFuzzerTestOneInput, for a libFuzzer build (clang -fsanitize=fuzzer);
//  * a main() that runs a deterministic mutation fuzzer over seed files (bit flips, byte
//    changes, truncation, splicing, duplication), which ctest runs on every build.
// Every input must import or be rejected with an error diagnostic: never a crash, and never
// a failure without a message.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Import.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

/// Imports `bytes` as a text or binary graph; aborts if the importer fails silently or
/// produces IR that does not verify.
void importOne(llvm::StringRef bytes, bool text, bool withFetch) {
  mlir::MLIRContext context;
  context.loadDialect<kiln::tf::TFDialect, mlir::func::FuncDialect>();
  int errors = 0;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors += d.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  kiln::import::ImportOptions options;
  if (withFetch) {
    // Fetch whatever the first node is called, if the input names one.
    size_t pos = bytes.find("name");
    options.fetches.push_back({kiln::import::TensorId{"x", 0}, ""});
    if (pos != llvm::StringRef::npos)
      options.importAllWithoutFetches = false;
  }
  auto module = kiln::import::importGraphDefBuffer(bytes, text ? "fuzz.pbtxt" : "fuzz.pb",
                                                   options, &context);
  if (!module && errors == 0) {
    llvm::errs() << "importer failed without an error message\n";
    std::abort();
  }
  if (module && mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "importer produced IR that does not verify\n";
    std::abort();
  }
}

std::string mutate(const std::string &seed, const std::vector<std::string> &all,
                   std::mt19937_64 &rng) {
  std::string s = seed;
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    size_t n = s.size();
    switch (rng() % 6) {
    case 0: // flip a bit
      if (n)
        s[rng() % n] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1: // set a byte to an interesting value
      if (n) {
        static const unsigned char interesting[] = {0, 1, 0x7f, 0x80, 0xff, ':', '^', '-', '9'};
        s[rng() % n] = static_cast<char>(interesting[rng() % sizeof(interesting)]);
      }
      break;
    case 2: // truncate
      if (n)
        s.resize(rng() % n);
      break;
    case 3: // duplicate a slice
      if (n) {
        size_t a = rng() % n, len = rng() % (n - a + 1);
        s.insert(rng() % (n + 1), s.substr(a, len));
      }
      break;
    case 4: // splice in part of another seed
      if (!all.empty()) {
        const std::string &other = all[rng() % all.size()];
        if (!other.empty()) {
          size_t a = rng() % other.size();
          s.insert(n ? rng() % n : 0, other.substr(a, rng() % (other.size() - a + 1)));
        }
      }
      break;
    case 5: // delete a slice
      if (n) {
        size_t a = rng() % n;
        s.erase(a, rng() % (n - a + 1));
      }
      break;
    }
  }
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  importOne(bytes, /*text=*/false, /*withFetch=*/size % 2 == 0);
  importOne(bytes, /*text=*/true, /*withFetch=*/size % 2 == 1);
  return 0;
}

#ifndef KILN_LIBFUZZER
int main(int argc, char **argv) {
  int iterations = 1000;
  uint64_t seed = 2015;
  std::vector<std::string> seeds;
  std::vector<bool> isText;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--iterations=")) {
      iterations = std::atoi(arg.str().c_str());
      continue;
    }
    if (arg.consume_front("--seed=")) {
      seed = std::strtoull(arg.str().c_str(), nullptr, 10);
      continue;
    }
    auto buffer = llvm::MemoryBuffer::getFile(arg, /*IsText=*/false);
    if (!buffer) {
      llvm::errs() << "cannot read seed '" << arg << "'\n";
      return 2;
    }
    seeds.push_back((*buffer)->getBuffer().str());
    isText.push_back(arg.ends_with(".pbtxt"));
  }
  if (seeds.empty()) {
    llvm::errs() << "usage: kiln-import-fuzz [--iterations=N] [--seed=S] SEED_FILE...\n";
    return 2;
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < iterations; ++i) {
    size_t k = rng() % seeds.size();
    std::string input = mutate(seeds[k], seeds, rng);
    importOne(input, isText[k], i % 2 == 0);
  }
  llvm::outs() << "kiln-import-fuzz: " << iterations << " mutated inputs from " << seeds.size()
               << " seeds, no crash\n";
  return 0;
}
#endif
