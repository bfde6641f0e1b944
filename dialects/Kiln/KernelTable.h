//===- KernelTable.h - the kernels generated code may call -----------*- C++ -*-===//
//
// One row per kernel of the runtime (runtime/kernels, C ABI in kiln/kernels/<family>.h, and
// the GPU layer's calls, kiln/runtime/mgpu.h): the library it belongs to, its buffers, its
// parameters and how they become the C call's arguments. The lowering
// that chooses a kernel builds a `kiln.kernel_call` of a row, the op's verifier checks the
// call against the row, and codegen's expansion (kiln-codegen-expand-kernel-calls) writes
// the C call from it. Adding a kernel means adding a row in KernelTable.cpp, the only file
// here that includes the runtime's ABI header, and, when its sizes and shapes are related
// in ways its ranks do not say, a function in KernelShapes.cpp that the row names.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_KILN_KERNELTABLE_H
#define KILN_DIALECTS_KILN_KERNELTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>

namespace kiln::dialect {
class KernelCallOp;

/// The element type a kernel's buffer holds (Any: bytes of any type, a transfer's).
enum class KernelElement : uint8_t { F32, F16, F64, I32, Any };

/// A buffer operand of a kernel: its role (the name the verifier's messages and the passes
/// use), its rank (-1: any) and its elements.

struct KernelOperand {
  llvm::StringLiteral role;
  int8_t rank;
  KernelElement element = KernelElement::F32;
};

enum class KernelParamKind : uint8_t {
  I64,      ///< an i64 IntegerAttr
  I32,      ///< an i32 IntegerAttr
  I64Pair,  ///< a DenseI64ArrayAttr of 2 values (strides, dilations, padding, window)
  Flag,     ///< a UnitAttr; the C flags word has `bit` set when it is present
  Epilogue, ///< a #kiln.epilogue; `bit` is set in the flags word when it is present
  F32,      ///< an f32 FloatAttr
};

struct KernelParam {
  llvm::StringLiteral name;
  KernelParamKind kind;
  bool required = true; ///< flags and epilogues are optional unless said otherwise
  uint32_t bit = 0;
};

/// How the C call's arguments are made, in order.
enum class KernelArgKind : uint8_t {
  Address,  ///< the address of the operand `ref` (a role), an i64
  ByteSize, ///< the size in bytes of the operand `ref`, an i64
  Param,    ///< the parameter `ref`: one i64 (I64), one i32 (I32), two i64 (I64Pair) or
            ///< one f32 (F32)
  Flags,    ///< an i32: the bits of the flags and epilogues present
  Epilogue, ///< the epilogue `ref`: {i64 scale, f32, i64 bias, f32, f32 lo, f32 hi},
            ///< the identity when it is absent
};

struct KernelArg {
  KernelArgKind kind;
  llvm::StringLiteral ref = "";
};

/// The library a kernel belongs to: whose code runs behind its symbol (libraryInfo says
/// what Kiln knows of each). Kiln's own kernels are defined in libkiln_kernels.a, the rest
/// in libkiln_runtime.a, whose GPU layer (kiln/runtime/mgpu.h) calls NVIDIA's libraries.
enum class KernelLibrary : uint8_t {
  Kiln,       ///< Kiln's own CPU kernels (libkiln_kernels.a)
  Runtime,    ///< Kiln's runtime: transfers between CPU partitions
  GpuRuntime, ///< Kiln's GPU layer: a GPU partition's transfers
  CuBLAS,     ///< cuBLAS, through the GPU layer
  CuBLASLt,   ///< cuBLASLt, through the GPU layer
  CuDNN,      ///< cuDNN, through the GPU layer
};

/// What Kiln knows of a library: its name, whether a GPU partition calls it (with device
/// addresses, from its host code) and the device memory it keeps outside the partition's
/// arena, one workspace per device (kiln/runtime/abi.h's sizes).
struct LibraryInfo {
  enum class Workspace : uint8_t {
    None,   ///< no device memory of its own
    Fixed,  ///< workspaceBytes, allocated on the library's first call (cuBLASLt)
    AtMost, ///< what its chosen algorithms ask, up to workspaceBytes (cuDNN)
    Own,    ///< the library's own choice, allocated by it (cuBLAS)
  };
  llvm::StringLiteral name; ///< "Kiln", "cuBLAS", "cuBLASLt", "cuDNN" ...
  bool onGpu;
  Workspace workspace = Workspace::None;
  int64_t workspaceBytes = 0;
};
const LibraryInfo &libraryInfo(KernelLibrary library);

struct KernelInfo {
  llvm::StringLiteral name;   ///< the kernel_call's `kernel`, e.g. "matmul_f32"
  llvm::StringLiteral symbol; ///< the C function
  KernelLibrary library;
  /// The kernel takes its thread budget from the model's run options
  /// (kiln_parallel_enter).
  bool threadPool;
  /// Outputs are also read unless this flag is present; "" when always written whole.
  llvm::StringLiteral overwriteFlag;
  llvm::ArrayRef<KernelOperand> inputs; ///< fixed inputs; epilogue buffers follow them
  llvm::ArrayRef<KernelOperand> outputs;
  llvm::ArrayRef<KernelParam> params;
  llvm::ArrayRef<KernelArg> args;
  /// Checks the relations between the call's sizes and its buffers' shapes
  /// (KernelShapes.h); null when the ranks say all.
  llvm::LogicalResult (*verifyShapes)(KernelCallOp) = nullptr;

  const KernelParam *findParam(llvm::StringRef name) const;
  /// The position of the input or output `role` among the fixed inputs or outputs, and
  /// whether it is an output; -1 when there is no such role.
  int inputIndex(llvm::StringRef role) const;
  int outputIndex(llvm::StringRef role) const;
};

/// The row named `name`, or null.
const KernelInfo *lookupKernel(llvm::StringRef name);
/// Every row.
llvm::ArrayRef<KernelInfo> kernels();
/// Whether a model that declares the C function `symbol` calls a kernel that takes its
/// thread budget from the run options.
bool symbolUsesThreadPool(llvm::StringRef symbol);

/// The library kernel `kernel` belongs to, if it keeps a workspace of device memory (a GPU
/// partition's cuBLAS, cuBLASLt and cuDNN calls); none for a transfer or another kernel.
std::optional<LibraryInfo> gpuLibraryOf(llvm::StringRef kernel);

/// The packed layout of a matrix product's constant B operand (kiln_matmul_packed_b_*):
/// the floats a packed k x n B holds, and where element (row, col) goes.
int64_t packedMatmulBSize(int64_t k, int64_t n);
int64_t packedMatmulBIndex(int64_t row, int64_t col, int64_t k, int64_t n);
/// The depth of one slice of a matrix product's sum (KILN_MATMUL_PACK_DEPTH): a product no
/// deeper stores each element of its result once.
int64_t matmulDepthSlice();
/// The most rows a product may have for the few-row kernel (KILN_MATMUL_FEW_ROWS_MAX).
int64_t matmulFewRows();

} // namespace kiln::dialect

#endif // KILN_DIALECTS_KILN_KERNELTABLE_H
