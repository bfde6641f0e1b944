# -*- Python -*-
# lit configuration for Kiln's tests: IR in, IR out (kiln-opt, kiln-translate, kiln) and
# end-to-end runs of compiled graphs.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".pbtxt", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "runtime"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Where the shared corpus is; tests that need it say `REQUIRES: shared-corpus`.
shared = os.environ.get("KILN_SHARED", config.kiln_shared)
if shared and os.path.isdir(os.path.join(shared, "corpus")):
    config.available_features.add("shared-corpus")
    config.substitutions.append(("%shared", shared))
else:
    lit_config.note("shared corpus not found at '%s' (set KILN_SHARED): "
                    "tests that need it are skipped" % shared)

# The CUDA toolkit's ptxas checks the PTX kernels Kiln writes (no GPU needed); tests that
# need it say `REQUIRES: ptxas` and get `%ptxas`.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(("%cuda_home", cuda_home))
else:
    lit_config.note("ptxas not found at '%s' (set CUDA_HOME): GPU kernels are not assembled"
                    % ptxas)

# Compiled models may be linked against another build of the runtime (scripts/test.sh runs
# the end-to-end tests against the sanitized one): lit --param kiln_runtime_lib_dir=DIR
# --param kiln_ldflags=FLAGS, or the variables themselves in the environment (as
# scripts/sanitize.sh sets KILN_LDFLAGS for ctest).
for param, variable in (("kiln_runtime_lib_dir", "KILN_RUNTIME_LIB_DIR"),
                        ("kiln_ldflags", "KILN_LDFLAGS")):
    value = lit_config.params.get(param) or os.environ.get(variable)
    if value:
        config.environment[variable] = value
        lit_config.note("%s=%s" % (variable, value))
# Sanitizer reports fail the test that triggers them.
for variable in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if variable in os.environ:
        config.environment[variable] = os.environ[variable]

# Tools built with sanitizers (scripts/sanitize.sh) reserve terabytes of address space, so
# tests that limit it (ulimit -v) say `UNSUPPORTED: sanitized`.
if config.kiln_sanitize:
    config.available_features.add("sanitized")

config.substitutions.append(("%python", config.numpy_python))
config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))
# Headers and archives for programs that link a compiled model.
config.substitutions.append(("%kiln_include", os.path.join(config.kiln_src_root, "runtime", "include")))
config.substitutions.append(("%kiln_libdir", config.kiln_lib_dir))
# What a C program linked against the runtime needs beside it (the sanitizers' runtime when
# the runtime is instrumented).
config.substitutions.append(("%kiln_ldflags", config.environment.get("KILN_LDFLAGS", "")))
config.substitutions.append(("%kiln_obj", config.kiln_obj_root))
config.substitutions.append(("%npycompare",
                             "%s %s" % (config.numpy_python,
                                        os.path.join(config.kiln_src_root, "test", "e2e",
                                                     "npycompare.py"))))

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = ["kiln-opt", "kiln-translate", "kiln"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
