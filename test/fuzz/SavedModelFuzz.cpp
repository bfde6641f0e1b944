//===- SavedModelFuzz.cpp - SavedModels through import and the graph pipeline --===//
//
// One input is a saved_model.pb (binary). It is written into a SavedModel directory whose
// variables/ is a copy of a real checkpoint's (test/e2e/savedmodel/tf2_module's, with
// KILN_FUZZ_VARIABLES naming it), and every signature of every MetaGraph that parses (at
// most four per input) is imported with its tags, its inputs fed and its variables frozen
// from the checkpoint, then run through the graph pipeline. Each step must succeed or
// report an error: a crash, a sanitizer report, a failure without a message or IR that
// does not verify is a finding.
//
//===----------------------------------------------------------------------------===//
#include "FuzzChecks.h"

#include "compiler/Import/Import.h"
#include "compiler/Init/InitAll.h"
#include "compiler/Pipelines/Pipelines.h"

#include "saved_model.pb.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace {

void writeFile(const std::string &path, const char *data, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    std::abort();
}

void copyFile(const std::string &from, const std::string &to) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    std::abort();
  writeFile(to, bytes.data(), bytes.size());
}

/// The SavedModel directory, with its checkpoint copied in once.
const std::string &directory() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/kiln-fuzz-saved-model-XXXXXX";
    if (!mkdtemp(pattern))
      std::abort();
    std::string d(pattern);
    std::string variables = d + "/variables";
    if (mkdir(variables.c_str(), 0700) != 0)
      std::abort();
    for (const char *name : {"variables.index", "variables.data-00000-of-00001"})
      copyFile(std::string(KILN_FUZZ_VARIABLES) + "/" + name, variables + "/" + name);
    return d;
  }();
  return dir;
}

void compileSignature(const std::vector<std::string> &tags, const std::string &signature) {
  mlir::MLIRContext context(kiln_fuzz::registry(), mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  kiln_fuzz::ErrorCounter counter(&context);
  kiln::import::SavedModelOptions options{tags, signature, {}};
  auto module = kiln::import::importSavedModel(directory(), options, &context);
  counter.expectReported(!module, "import");
  if (!module)
    return;
  kiln_fuzz::expectVerifies(*module, "the importer");
  mlir::PassManager pm(&context);
  if (mlir::failed(kiln::pipelines::buildGraphPipeline(pm, {})))
    std::abort();
  counter.expectReported(mlir::failed(pm.run(*module)), "the graph pipeline");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *bytes = reinterpret_cast<const char *>(data);
  writeFile(directory() + "/saved_model.pb", bytes, size);
  tensorflow::SavedModel model;
  {
    google::protobuf::LogSilencer silencer;
    if (!model.ParseFromArray(data, static_cast<int>(size))) {
      compileSignature({}, ""); // the importer reports the damage
      return 0;
    }
  }
  int budget = 4;
  for (const auto &meta : model.meta_graphs()) {
    std::vector<std::string> tags(meta.meta_info_def().tags().begin(),
                                  meta.meta_info_def().tags().end());
    for (const auto &[name, signature] : meta.signature_def()) {
      if (budget-- == 0)
        return 0;
      compileSignature(tags, name);
    }
  }
  if (budget == 4)
    compileSignature({}, "");
  return 0;
}
