//===- Emit.cpp - what `kiln compile` writes -------------------------------===//
//
// The module of a stage (--emit mlir, --dump-ir), then, after the last stage, the GPU
// kernels' PTX, LLVM IR, assembly, an object file and header, or an executable (Link.cpp).
//
//===----------------------------------------------------------------------------===//
#include "compiler/Driver/Compilation.h"

#include "codegen/Target/Constants.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace kiln::driver {

/// Writes `path` ("-" is standard output) with `write`. A write that fails (a full disk,
/// /dev/full) is reported and the partial file removed; unchecked, LLVM's stream would
/// end the process with "IO failure on output stream".
LogicalResult
Compilation::writeOutput(StringRef path,
                         function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write) {
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file)
    return error("cannot write '", path, "': ", message);
  if (failed(write(file->os())))
    return failure();
  file->os().flush();
  if (std::error_code ec = file->os().error()) {
    file->os().clear_error();
    return error("cannot write '", path, "': ", ec.message());
  }
  file->keep();
  return success();
}

LogicalResult Compilation::writeText(StringRef path,
                                     function_ref<void(llvm::raw_ostream &)> write) {
  return writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
    write(os);
    return success();
  });
}

/// Why file `path` cannot be written, or "" when it can (as far as can be told without
/// writing it): a directory, a folder that does not exist or may not be written.
static std::string unwritable(StringRef path) {
  namespace fs = llvm::sys::fs;
  if (fs::is_directory(path))
    return "it is a directory";
  if (fs::exists(path))
    return fs::access(path, fs::AccessMode::Write) ? "it may not be written" : "";
  SmallString<256> dir(llvm::sys::path::parent_path(path));
  if (dir.empty())
    dir = ".";
  if (!fs::is_directory(dir))
    return "no directory '" + std::string(dir) + "'";
  return fs::access(dir, fs::AccessMode::Write)
             ? "the directory '" + std::string(dir) + "' may not be written"
             : "";
}

/// Refuses outputs that cannot be written, or that are the graph or the config: `-o
/// model.pb` with --emit obj (model.pb.o, fine) is not, but `-o model.pbtxt --emit mlir`
/// would overwrite the input.
LogicalResult Compilation::checkOutputs() {
  SmallVector<std::string> outputs;
  if (options.emit == EmitKind::Obj)
    outputs = {outputBase() + ".o", outputBase() + ".h"};
  else if (output != "-")
    outputs = {output};
  for (const std::string &out : outputs) {
    for (StringRef input : {StringRef(options.graphPath), StringRef(options.configPath)})
      if (!input.empty() && llvm::sys::fs::equivalent(input, out))
        return error("the output '", out, "' is the input '", input,
                     "'; give another file with -o");
    // Found before compiling, in one line (the linker would report it in several).
    if (std::string why = unwritable(out); !why.empty())
      return error("cannot write the output '", out, "': ", why);
  }
  return success();
}

LogicalResult Compilation::dumpStage(StringRef stage) {
  if (options.dumpIrDir.empty())
    return success();
  if (auto ec = llvm::sys::fs::create_directories(options.dumpIrDir))
    return error("cannot create '", options.dumpIrDir, "': ", ec.message());
  return writeText(options.dumpIrDir + "/stage-" + stage.str() + ".mlir",
                   [&](llvm::raw_ostream &os) { module->print(os); });
}

std::string Compilation::outputBase() const {
  StringRef out = options.output;
  if (options.emit == EmitKind::Obj && out.ends_with(".o"))
    out = out.drop_back(2);
  return out.str();
}

std::string Compilation::defaultModelName() const {
  if (!options.modelName.empty())
    return options.modelName;
  if (options.output.empty() || options.output == "-")
    return llvm::sys::path::stem(options.graphPath).str();
  // The stem of a string that lives until the return (not of a temporary).
  std::string out = outputBase();
  return llvm::sys::path::stem(out).str();
}

LogicalResult Compilation::writeModule() {
  return writeText(output, [&](llvm::raw_ostream &os) { module->print(os); });
}

int Compilation::writePtx() {
  // Each gpu.binary (one per model: kiln-gpu-merge-modules) holds PTX text, with the
  // NUL the driver wants at its end.
  std::string ptx;
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().rtrim('\0');
  });
  if (ptx.empty())
    err << "kiln: note: --emit ptx: no kernels: the ops placed on the GPU are all library "
           "calls (cuBLAS, cuBLASLt, cuDNN); the PTX is empty (--no-kernels makes them "
           "kernels)\n";
  return failed(writeText(output, [&](llvm::raw_ostream &os) { os << ptx; }));
}

int Compilation::emit() {
  if (options.emit == EmitKind::Mlir)
    return failed(writeModule());
  if (options.emit == EmitKind::Ptx)
    return writePtx();
  // Large constants go into the object file beside LLVM, not through it (an object file's
  // only; assembly and LLVM IR keep them).
  bool object = options.emit == EmitKind::Exe || options.emit == EmitKind::Obj;
  std::vector<codegen::ObjectConstant> constants;
  if (object)
    constants = codegen::takeLargeConstants(*module, modelName + "_");

  // LLVM IR and machine code.
  llvm::LLVMContext llvmContext;
  std::string message;
  auto llvmModule = codegen::translateToLLVMIR(*module, llvmContext, message);
  if (!llvmModule)
    return fail(message);
  if (failed(codegen::addEntryPoints(*llvmModule, *model, options.emit == EmitKind::Exe, message)))
    return fail(message);
  // A large executable's code in parts, on threads of their own (--emit obj writes one
  // object; --dump-ir the whole module's IR).
  unsigned threads = options.emit == EmitKind::Exe && options.dumpIrDir.empty()
                         ? codegen::codeThreads(*llvmModule, options.jobs)
                         : 1;
  if (threads > 1)
    return emitPartsAndLink(*llvmModule, threads, constants, output);
  codegen::optimize(*llvmModule, *machine, options.optLevel);
  progress("LLVM optimisation");
  if (!options.dumpIrDir.empty() &&
      failed(writeText(options.dumpIrDir + "/model.ll",
                       [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); })))
    return 1;
  if (options.emit == EmitKind::Llvm)
    return failed(
        writeText(output, [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); }));

  // Machine code, as assembly text or an object file.
  auto emitCode = [&](StringRef path, bool assembly) {
    return writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
      if (assembly) {
        if (succeeded(codegen::emitMachineCode(*llvmModule, *machine, os, true, message)))
          return success();
      } else {
        // The code's object, then the same with the constants added.
        SmallVector<char, 0> code;
        llvm::raw_svector_ostream codeStream(code);
        if (succeeded(
                codegen::emitMachineCode(*llvmModule, *machine, codeStream, false, message)) &&
            succeeded(codegen::writeObjectWithConstants(StringRef(code.data(), code.size()),
                                                        constants, os, message)))
          return success();
      }
      return error(message);
    });
  };
  if (options.emit == EmitKind::Asm)
    return failed(emitCode(output, /*assembly=*/true));

  std::string objectPath;
  SmallString<256> tempObject;
  if (options.emit == EmitKind::Obj) {
    objectPath = outputBase() + ".o";
  } else {
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-" + modelName, "o", tempObject))
      return fail("cannot create a temporary object file: ", ec.message());
    objectPath = std::string(tempObject);
  }
  if (failed(emitCode(objectPath, /*assembly=*/false))) {
    if (options.emit == EmitKind::Exe)
      llvm::sys::fs::remove(objectPath);
    return 1;
  }
  progress("object emitted");

  if (options.emit == EmitKind::Obj) {
    std::string header = codegen::emitHeader(*model, llvm::sys::path::filename(options.graphPath));
    return failed(writeText(outputBase() + ".h", [&](llvm::raw_ostream &os) { os << header; }));
  }
  int rc = link({objectPath}, output);
  llvm::sys::fs::remove(objectPath);
  progress("linked");
  return rc;
}

} // namespace kiln::driver
