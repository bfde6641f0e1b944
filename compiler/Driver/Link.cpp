//===- Link.cpp - an executable from the model's objects and the runtime ----===//
#include "compiler/Driver/Compilation.h"

#include "codegen/Target/Constants.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace kiln::driver {

/// Directory holding libkiln_runtime.a: $KILN_RUNTIME_LIB_DIR, or ../lib beside kiln.
static std::string findRuntimeLibDir(StringRef executablePath) {
  if (const char *env = std::getenv("KILN_RUNTIME_LIB_DIR"))
    return env;
  SmallString<256> dir(llvm::sys::path::parent_path(executablePath));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

int Compilation::link(ArrayRef<std::string> objectPaths, StringRef exePath) {
  std::string libDir = findRuntimeLibDir(options.executablePath);
  for (const char *lib : {"libkiln_runtime.a", "libkiln_runner.a", "libkiln_kernels.a"}) {
    SmallString<256> path(libDir);
    llvm::sys::path::append(path, lib);
    if (!llvm::sys::fs::exists(path))
      return fail("cannot find ", lib, " in '", libDir,
                  "' (set KILN_RUNTIME_LIB_DIR to the directory holding it)");
  }
  std::string cxx;
  for (const char *candidate : {std::getenv("KILN_CXX"), std::getenv("CXX")}) {
    if (candidate && *candidate) {
      cxx = candidate;
      break;
    }
  }
  if (cxx.empty()) {
    for (const char *name : {"c++", "g++", "clang++"}) {
      if (auto found = llvm::sys::findProgramByName(name)) {
        cxx = *found;
        break;
      }
    }
  }
  if (cxx.empty())
    return fail("no C++ compiler driver found to link with (install g++ or set KILN_CXX)");
  if (!llvm::sys::path::is_absolute(cxx))
    if (auto found = llvm::sys::findProgramByName(cxx))
      cxx = *found;
  std::vector<std::string> args = {cxx, "-o", exePath.str()};
  args.insert(args.end(), objectPaths.begin(), objectPaths.end());
  args.push_back("-L" + libDir);
  for (const char *arg : {"-lkiln_runner", "-lkiln_kernels", "-lkiln_runtime", "-lm", "-pthread"})
    args.push_back(arg);
  // LLVM's linker where it is installed beside Kiln's LLVM: a model's weights are most of
  // its executable, which the GNU linker copies several times over (VGG16's 553 MB: 3.5 s
  // against 0.6 s). KILN_LDFLAGS can choose another (-fuse-ld=bfd; the last one counts).
  SmallString<256> lld(KILN_LLVM_TOOLS_DIR);
  llvm::sys::path::append(lld, "ld.lld");
  if (llvm::sys::fs::can_execute(lld)) {
    args.push_back("-B" + std::string(KILN_LLVM_TOOLS_DIR) + "/");
    args.push_back("-fuse-ld=lld");
  }
  // Flags a runtime built differently needs (-fsanitize=address,undefined for the
  // sanitized runtime scripts/test.sh builds).
  if (const char *extra = std::getenv("KILN_LDFLAGS")) {
    SmallVector<StringRef> flags;
    StringRef(extra).split(flags, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef flag : flags)
      args.push_back(flag.str());
  }
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(cxx, argRefs, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return fail("linking '", exePath, "' with '", llvm::join(args, " "), "' failed",
                message.empty() ? "" : ": ", message);
  return 0;
}

/// An executable's code optimised and emitted in parts on `threads` threads, an object file
/// per part, its constants in one more, all linked into `exePath`.
int Compilation::emitPartsAndLink(llvm::Module &module, unsigned threads,
                                  ArrayRef<codegen::ObjectConstant> constants, StringRef exePath) {
  std::string message;
  std::vector<SmallVector<char, 0>> objects;
  if (failed(codegen::optimizeAndEmitParts(module, *machine, options.cpu, options.optLevel, threads,
                                           objects, message)))
    return fail(message);
  progress("LLVM optimisation and machine code (" + std::to_string(objects.size()) + " parts on " +
           std::to_string(threads) + " threads)");
  std::vector<std::string> paths;
  llvm::scope_exit removeObjects([&] {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  });
  // Writes one temporary object file.
  auto writeObject = [&](function_ref<LogicalResult(llvm::raw_ostream &)> write) {
    SmallString<256> path;
    int fd;
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-" + modelName, "o", fd, path)) {
      message = "cannot create a temporary object file: " + ec.message();
      return failure();
    }
    paths.push_back(std::string(path));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(write(os)))
      return failure();
    os.close();
    if (os.has_error()) {
      message = "cannot write '" + std::string(path) + "': " + os.error().message();
      return failure();
    }
    return success();
  };
  for (const SmallVector<char, 0> &object : objects)
    if (failed(writeObject([&](llvm::raw_ostream &os) {
          os.write(object.data(), object.size());
          return success();
        })))
      return fail(message);
  if (!constants.empty() && failed(writeObject([&](llvm::raw_ostream &os) {
        return codegen::writeConstantsObject(constants, *machine, os, message);
      })))
    return fail(message);
  progress("objects written");
  int rc = link(paths, exePath);
  progress("linked");
  return rc;
}

} // namespace kiln::driver
