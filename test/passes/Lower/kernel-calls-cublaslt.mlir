// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="cublaslt-epilogues=true" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="cublaslt-epilogues=true strict-float=true" %s | FileCheck %s --check-prefix=STRICT
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="cublaslt-epilogues=true allow-tf32=true" %s | FileCheck %s --check-prefix=TF32
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="cublaslt-epilogues=true gpu-epilogues=true" %s | FileCheck %s --check-prefix=BOTH
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls %s | FileCheck %s --check-prefix=DEFAULT

// Without cublaslt-epilogues (the default) the products stay cuBLAS calls and their
// epilogues kernels.
// DEFAULT-NOT: gpu_matmul_epilogue_f32
// DEFAULT-NOT: gpu_matmul_residual_f32

// Tests that in a function placed on a GPU the elementwise op after an f32 product becomes
// the cuBLASLt call's epilogue where cuBLASLt applies it in the same call
// (kiln_gpu_gemm_epilogue): a bias buffer and a Relu (lo = 0), fed weights or constant
// ones. A constant per-channel scale (a frozen batch norm's) is multiplied into constant
// weights, a new global (not under --strict-float: no epilogue then). With gpu-epilogues
// too, a 1x1 convolution's product is cuBLASLt's, not cuDNN's.
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>
memref.global "private" constant @k : memref<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
memref.global "private" constant @s : memref<2xf32> = dense<[2.0, 0.5]>
// CHECK: memref.global "private" constant @k_x_s : memref<3x2xf32> = dense<{{\[\[}}2.000000e+00, 1.000000e+00], [6.000000e+00, 2.000000e+00], [1.000000e+01, 3.000000e+00]]>
// CHECK-LABEL: func.func @dense
// STRICT-LABEL: func.func @dense
// TF32-LABEL: func.func @dense
// BOTH-LABEL: func.func @dense
func.func @dense(%x: memref<4x3xf32>, %w: memref<3x2xf32>, %t: memref<2xf32>, %y: memref<4x2xf32>, %z: memref<4x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x2xf32>
  // CHECK: kiln.kernel_call "gpu_matmul_epilogue_f32" ins(%arg0, %arg1, %arg2 : memref<4x3xf32>, memref<3x2xf32>, memref<2xf32>) outs(%arg3 : memref<4x2xf32>)
  // CHECK-SAME: params {epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>, k = 3 : i64, m = 4 : i64, n = 2 : i64, overwrite}
  // STRICT: kiln.kernel_call "gpu_matmul_epilogue_f32"
  // TF32: kiln.kernel_call "gpu_matmul_epilogue_f32"
  // TF32-SAME: overwrite, tf32}
  // BOTH: kiln.kernel_call "gpu_matmul_epilogue_f32"
  linalg.fill ins(%cst : f32) outs(%c : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x3xf32>, memref<3x2xf32>) outs(%c : memref<4x2xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %m = arith.mulf %in, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<4x2xf32>, memref<2xf32>) outs(%y : memref<4x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %r = arith.maximumf %a, %cst : f32
    linalg.yield %r : f32
  }
  // A constant scale into constant weights.
  // CHECK: %[[K:.*]] = memref.get_global @k_x_s : memref<3x2xf32>
  // CHECK: kiln.kernel_call "gpu_matmul_epilogue_f32" ins(%arg0, %[[K]], %arg2 : memref<4x3xf32>, memref<3x2xf32>, memref<2xf32>) outs(%arg4 : memref<4x2xf32>)
  // CHECK-SAME: params {epilogue = #kiln.epilogue<bias = input 2>, k = 3 : i64, m = 4 : i64, n = 2 : i64, overwrite}
  // CHECK-NOT: linalg.generic
  // STRICT: kiln.kernel_call "gpu_matmul_f32"
  // STRICT: linalg.generic
  %k = memref.get_global @k : memref<3x2xf32>
  %sc = memref.get_global @s : memref<2xf32>
  %c2 = memref.alloc() : memref<4x2xf32>
  linalg.fill ins(%cst : f32) outs(%c2 : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %k : memref<4x3xf32>, memref<3x2xf32>) outs(%c2 : memref<4x2xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %m = arith.mulf %in, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %sc, %t : memref<4x2xf32>, memref<2xf32>, memref<2xf32>) outs(%z : memref<4x2xf32>) {
  ^bb0(%in: f32, %sv: f32, %b: f32, %o: f32):
    %m = arith.mulf %in, %sv : f32
    %a = arith.addf %m, %b : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Tests the epilogues cuBLASLt does not apply: a clamp (Relu6), a per-channel scale that
// is not a constant. The product stays a cuBLAS call, the elementwise op a kernel.
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @not_cublaslt
// CHECK: kiln.kernel_call "gpu_matmul_f32"
// CHECK: linalg.generic
// CHECK: kiln.kernel_call "gpu_matmul_f32"
// CHECK: linalg.generic
func.func @not_cublaslt(%x: memref<4x3xf32>, %w: memref<3x2xf32>, %t: memref<2xf32>, %y: memref<4x2xf32>, %z: memref<4x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c = memref.alloc() : memref<4x2xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x3xf32>, memref<3x2xf32>) outs(%c : memref<4x2xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %m = arith.mulf %in, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<4x2xf32>, memref<2xf32>) outs(%y : memref<4x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %r = arith.maximumf %a, %cst : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  }
  %c2 = memref.alloc() : memref<4x2xf32>
  linalg.fill ins(%cst : f32) outs(%c2 : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<4x3xf32>, memref<3x2xf32>) outs(%c2 : memref<4x2xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %m = arith.mulf %in, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %t : memref<4x2xf32>, memref<2xf32>) outs(%z : memref<4x2xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %m = arith.mulf %in, %sv : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Tests a ResNet block's end written over its shortcut r (as bufferization leaves it):
// relu(r + (c * s + t)) with any depth is one cuBLASLt call whose residual and output are
// r (cuBLASLt reads C before it writes D), the scale in the weights. Under --strict-float
// it stays a kernel: cuBLASLt would add the residual before the bias.
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>
memref.global "private" constant @w : memref<300x2xf32> = dense<0.5>
memref.global "private" constant @s : memref<2xf32> = dense<[2.0, 4.0]>
// The columns scaled: 1.0 and 2.0 (0x3F800000, 0x40000000) in each row.
// CHECK: memref.global "private" constant @w_x_s : memref<300x2xf32> = dense<"0x0000803F000000400000803F00000040
// CHECK-LABEL: func.func @residual_in_place
// CHECK: %[[W:.*]] = memref.get_global @w_x_s
// CHECK: kiln.kernel_call "gpu_matmul_residual_f32" ins(%arg0, %[[W]], %arg2, %arg1 : memref<32x300xf32>, memref<300x2xf32>, memref<32x2xf32>, memref<2xf32>) outs(%arg2 : memref<32x2xf32>)
// CHECK-SAME: params {epilogue = #kiln.epilogue<bias = input 3, lo = 0.000000e+00>, k = 300 : i64, m = 32 : i64, n = 2 : i64, overwrite}
// CHECK-NOT: linalg.generic
// STRICT-LABEL: func.func @residual_in_place
// STRICT: kiln.kernel_call "gpu_matmul_f32"
// STRICT: linalg.generic
func.func @residual_in_place(%a: memref<32x300xf32>, %t: memref<2xf32>, %r: memref<32x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %zero = arith.constant 0.0 : f32
  %b = memref.get_global @w : memref<300x2xf32>
  %s = memref.get_global @s : memref<2xf32>
  %c = memref.alloc() : memref<32x2xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x300xf32>, memref<300x2xf32>) outs(%c : memref<32x2xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c, %s, %t : memref<32x2xf32>, memref<32x2xf32>, memref<2xf32>, memref<2xf32>) outs(%r : memref<32x2xf32>) {
  ^bb0(%rv: f32, %v: f32, %sv: f32, %tv: f32, %o: f32):
    %0 = arith.mulf %v, %sv : f32
    %1 = arith.addf %0, %tv : f32
    %2 = arith.addf %rv, %1 : f32
    %3 = arith.maximumf %2, %zero : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Tests that with both libraries' epilogues a 1x1 convolution's product (its rows an NHWC
// image collapsed, constant weights) with a Relu is cuBLASLt's; with gpu-epilogues alone
// it would be cuDNN's (kernel-calls-gpu-epilogue.mlir).
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
memref.global "private" constant @k : memref<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
memref.global "private" constant @t : memref<2xf32> = dense<[1.0, -1.0]>
// BOTH-LABEL: func.func @pointwise
// BOTH-NOT: gpu_conv2d_f32
// BOTH: kiln.kernel_call "gpu_matmul_epilogue_f32" ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x3xf32>, memref<3x2xf32>, memref<2xf32>) outs(%arg1 : memref<1x2x2x2xf32>)
// BOTH-SAME: epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>
func.func @pointwise(%x: memref<1x2x2x3xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %k = memref.get_global @k : memref<3x2xf32>
  %t = memref.get_global @t : memref<2xf32>
  %rows = memref.collapse_shape %x [[0, 1, 2], [3]] : memref<1x2x2x3xf32> into memref<4x3xf32>
  %c = memref.alloc() : memref<4x2xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%rows, %k : memref<4x3xf32>, memref<3x2xf32>) outs(%c : memref<4x2xf32>) {
  ^bb0(%in: f32, %w: f32, %o: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %e = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 2, 2, 2] : memref<4x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %t : memref<1x2x2x2xf32>, memref<2xf32>) outs(%y : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %r = arith.maximumf %a, %cst : f32
    linalg.yield %r : f32
  }
  return
}
