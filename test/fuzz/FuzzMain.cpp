//===- FuzzMain.cpp - run a fuzz target without libFuzzer ----------------------===//
//
// Every target in this folder is a LLVMFuzzerTestOneInput (and, for GraphDefs, a
// LLVMFuzzerCustomMutator). Built with clang and -fsanitize=fuzzer (scripts/fuzz.sh),
// libFuzzer drives them. Built without it, as CTest does, this main replays a corpus (files
// and directories) and then runs a fixed number of inputs mutated from it, deterministically
// (bit flips, interesting bytes, truncation, insertion, splicing; or the target's own
// mutator), so every build exercises the targets with inputs no seed has.
//
//   kiln-fuzz-TARGET [--iterations=N] [--seed=S] [--max-len=N] CORPUS...
//
//===----------------------------------------------------------------------------===//
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                                                size_t maxSize, unsigned int seed);

namespace {

std::mt19937_64 rng;
std::vector<std::string> corpus, corpusNames;

/// The input being run, written out if it kills the process (as libFuzzer's crash-*
/// files), to KILN_FUZZ_ARTIFACT or ./kiln-fuzz-crash, so a finding can be replayed.
/// A crash also prints which input it was, the input itself in base64 when it is small (so
/// a CI log alone is enough to replay it) and a backtrace.
const uint8_t *currentData = nullptr;
size_t currentSize = 0;
char artifact[4096] = "kiln-fuzz-crash";
char currentName[512] = "";

void writeString(const char *s) { (void)!::write(2, s, std::strlen(s)); }

void writeBase64(const uint8_t *data, size_t size) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char line[77];
  size_t n = 0;
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = uint32_t(data[i]) << 16;
    if (i + 1 < size)
      v |= uint32_t(data[i + 1]) << 8;
    if (i + 2 < size)
      v |= data[i + 2];
    line[n++] = digits[(v >> 18) & 63];
    line[n++] = digits[(v >> 12) & 63];
    line[n++] = i + 1 < size ? digits[(v >> 6) & 63] : '=';
    line[n++] = i + 2 < size ? digits[v & 63] : '=';
    if (n == 76 || i + 3 >= size) {
      line[n++] = '\n';
      (void)!::write(2, line, n);
      n = 0;
    }
  }
}

void onFatalSignal(int signal) {
  int fd = ::open(artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!::write(fd, currentData, currentSize);
    ::close(fd);
  }
  writeString("kiln-fuzz: crashed on ");
  writeString(currentName);
  writeString("; the input is in ");
  writeString(artifact);
  writeString("\n");
  if (currentSize <= 16384) {
    writeString("kiln-fuzz: the input in base64 (base64 -d > crash; TARGET crash):\n");
    writeBase64(currentData, currentSize);
  }
  void *frames[64];
  int depth = backtrace(frames, 64);
  backtrace_symbols_fd(frames, depth, 2);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void runOne(const std::string &name, const uint8_t *data, size_t size) {
  std::snprintf(currentName, sizeof currentName, "%s", name.c_str());
  currentData = data;
  currentSize = size;
  LLVMFuzzerTestOneInput(data, size);
}

/// libFuzzer's default mutations, in small: what LLVMFuzzerMutate does for the targets'
/// custom mutators when libFuzzer is not there.
size_t mutateBytes(uint8_t *data, size_t size, size_t maxSize) {
  std::string s(reinterpret_cast<char *>(data), size);
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    size_t n = s.size();
    switch (rng() % 7) {
    case 0: // flip a bit
      if (n)
        s[rng() % n] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1: { // an interesting byte
      static const unsigned char interesting[] = {0,   1,   0x7f, 0x80, 0xff, ':', '^',
                                                  '-', '9', '{',  '}',  '"',  '\n'};
      if (n)
        s[rng() % n] = static_cast<char>(interesting[rng() % sizeof(interesting)]);
      break;
    }
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
    case 4: // splice in part of another input
      if (!corpus.empty()) {
        const std::string &other = corpus[rng() % corpus.size()];
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
    case 6: // a random 32-bit little-endian number
      if (n >= 4) {
        uint32_t v = static_cast<uint32_t>(rng());
        std::memcpy(&s[rng() % (n - 3)], &v, 4);
      }
      break;
    }
  }
  if (s.size() > maxSize)
    s.resize(maxSize);
  std::memcpy(data, s.data(), s.size());
  return s.size();
}

void addPath(const std::string &path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "cannot read '%s'\n", path.c_str());
    std::exit(2);
  }
  if (S_ISDIR(info.st_mode)) {
    DIR *dir = opendir(path.c_str());
    std::vector<std::string> names;
    while (dirent *entry = dir ? readdir(dir) : nullptr)
      if (entry->d_name[0] != '.')
        names.push_back(path + "/" + entry->d_name);
    if (dir)
      closedir(dir);
    std::sort(names.begin(), names.end()); // a fixed order: runs repeat exactly
    for (const std::string &name : names)
      addPath(name);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  corpusNames.push_back(path);
}

} // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize) {
  return mutateBytes(data, size, maxSize);
}

int main(int argc, char **argv) {
  long iterations = 1000;
  uint64_t seed = 2015;
  size_t maxLen = 1 << 16;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--iterations=", 0) == 0)
      iterations = std::strtol(arg.c_str() + 13, nullptr, 10);
    else if (arg.rfind("--seed=", 0) == 0)
      seed = std::strtoull(arg.c_str() + 7, nullptr, 10);
    else if (arg.rfind("--max-len=", 0) == 0)
      maxLen = std::strtoull(arg.c_str() + 10, nullptr, 10);
    else
      addPath(arg);
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: %s [--iterations=N] [--seed=S] [--max-len=N] CORPUS...\n",
                 argv[0]);
    return 2;
  }
  if (const char *path = std::getenv("KILN_FUZZ_ARTIFACT"))
    std::snprintf(artifact, sizeof artifact, "%s", path);
  // The handler runs on its own stack, so that a stack overflow is reported too.
  static std::vector<char> alternateStack(1 << 16);
  stack_t stack{};
  stack.ss_sp = alternateStack.data();
  stack.ss_size = alternateStack.size();
  sigaltstack(&stack, nullptr);
  struct sigaction action{};
  action.sa_handler = onFatalSignal;
  action.sa_flags = SA_ONSTACK;
  for (int s : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL})
    sigaction(s, &action, nullptr);
  rng.seed(seed);
  for (size_t i = 0; i < corpus.size(); ++i)
    runOne("the corpus file " + corpusNames[i], reinterpret_cast<const uint8_t *>(corpus[i].data()),
           corpus[i].size());
  std::vector<uint8_t> buffer;
  for (long i = 0; i < iterations; ++i) {
    size_t index = rng() % corpus.size();
    const std::string &base = corpus[index];
    size_t capacity = std::max(maxLen, base.size());
    buffer.assign(base.begin(), base.end());
    buffer.resize(capacity);
    size_t size = LLVMFuzzerCustomMutator
                      ? LLVMFuzzerCustomMutator(buffer.data(), base.size(), capacity,
                                                static_cast<unsigned>(rng()))
                      : mutateBytes(buffer.data(), base.size(), capacity);
    runOne("mutation " + std::to_string(i + 1) + " (--seed=" + std::to_string(seed) + ") of " +
               corpusNames[index],
           buffer.data(), size);
  }
  std::printf("%s: %zu corpus inputs and %ld mutated ones, no crash\n", argv[0], corpus.size(),
              iterations);
  return 0;
}
