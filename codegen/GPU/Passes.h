//===- Passes.h - GPU codegen passes ----------------------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_GPU_PASSES_H
#define KILN_CODEGEN_GPU_PASSES_H

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::codegen::gpu {

#define GEN_PASS_DECL
#include "codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/GPU/Passes.h.inc"

} // namespace kiln::codegen::gpu

#endif // KILN_CODEGEN_GPU_PASSES_H
