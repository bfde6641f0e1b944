//===- Passes.h - codegen passes --------------------------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_KILNTOLLVM_PASSES_H
#define KILN_CODEGEN_KILNTOLLVM_PASSES_H

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::codegen {

#define GEN_PASS_DECL
#include "codegen/KilnToLLVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/KilnToLLVM/Passes.h.inc"

} // namespace kiln::codegen

#endif // KILN_CODEGEN_KILNTOLLVM_PASSES_H
