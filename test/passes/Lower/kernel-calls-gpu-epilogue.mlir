// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="gpu-epilogues=true" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="gpu-epilogues=true strict-float=true" %s | FileCheck %s --check-prefix=STRICT
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls %s | FileCheck %s --check-prefix=DEFAULT

// Without gpu-epilogues (the default) no call gets an epilogue: they stay kernels.
// DEFAULT: kiln.kernel_call "gpu_conv2d_f32"
// DEFAULT-NOT: epilogue
// DEFAULT-NOT: gpu_conv2d_residual_f32

// Tests that in a function placed on a GPU the elementwise op after a convolution becomes
// the cuDNN call's epilogue where cuDNN applies it in the same call
// (kiln_gpu_conv2d_fused_f32): a constant per-channel scale (a frozen batch norm's) goes
// into the transposed filter, the bias is an epilogue input, the Relu is lo = 0. Under
// --strict-float the scale is not folded (it would round differently): no epilogue.
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
memref.global "private" constant @w : memref<1x1x1x2xf32> = dense<[[[[0.5, 0.25]]]]>
memref.global "private" constant @s : memref<2xf32> = dense<[2.0, 4.0]>
memref.global "private" constant @t : memref<2xf32> = dense<[1.0, -1.0]>
// CHECK: memref.global "private" constant @w_x_s_krsc : memref<2x1x1x1xf32> = dense<1.000000e+00>
// CHECK-LABEL: func.func @bn_relu
// STRICT-LABEL: func.func @bn_relu
func.func @bn_relu(%x: memref<1x2x2x1xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %f = memref.get_global @w : memref<1x1x1x2xf32>
  %s = memref.get_global @s : memref<2xf32>
  %t = memref.get_global @t : memref<2xf32>
  %c = memref.alloc() : memref<1x2x2x2xf32>
  // CHECK: %[[T:.*]] = memref.get_global @t
  // CHECK: %[[F:.*]] = memref.get_global @w_x_s_krsc
  // CHECK: kiln.kernel_call "gpu_conv2d_f32" ins(%arg0, %[[F]], %[[T]] : memref<1x2x2x1xf32>, memref<2x1x1x1xf32>, memref<2xf32>) outs(%arg1 : memref<1x2x2x2xf32>)
  // CHECK-SAME: epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>
  // CHECK-SAME: overwrite
  // CHECK-NOT: linalg.generic
  // STRICT: kiln.kernel_call "gpu_conv2d_f32" ins(%{{.*}}, %{{.*}} : memref<1x2x2x1xf32>, memref<2x1x1x1xf32>) outs(%{{.*}} : memref<1x2x2x2xf32>)
  // STRICT-NOT: epilogue
  // STRICT: linalg.generic
  linalg.fill ins(%cst : f32) outs(%c : memref<1x2x2x2xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<1x1x1x2xf32>) outs(%c : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x2x2x1xf32>
    %m = arith.mulf %v, %in : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %s, %t : memref<1x2x2x2xf32>, memref<2xf32>, memref<2xf32>) outs(%y : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %sc: f32, %b: f32, %o: f32):
    %m = arith.mulf %in, %sc : f32
    %a = arith.addf %m, %b : f32
    %r = arith.maximumf %a, %cst : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that a shortcut added after the bias makes it gpu_conv2d_residual_f32 (a ResNet
// block's end), and that a Relu6 (a clamp to 6, which cuDNN's fused call has not) leaves
// the elementwise op a kernel of its own after a plain call.
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
memref.global "private" constant @w : memref<1x1x1x2xf32> = dense<[[[[0.5, 0.25]]]]>
memref.global "private" constant @t : memref<2xf32> = dense<[1.0, -1.0]>
// CHECK-LABEL: func.func @residual
func.func @residual(%x: memref<1x2x2x1xf32>, %r: memref<1x2x2x2xf32>, %y: memref<1x2x2x2xf32>, %y6: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %f = memref.get_global @w : memref<1x1x1x2xf32>
  %t = memref.get_global @t : memref<2xf32>
  %c = memref.alloc() : memref<1x2x2x2xf32>
  // CHECK: kiln.kernel_call "gpu_conv2d_residual_f32" ins(%arg0, %{{.*}}, %arg1, %{{.*}} : memref<1x2x2x1xf32>, memref<2x1x1x1xf32>, memref<1x2x2x2xf32>, memref<2xf32>) outs(%arg2 : memref<1x2x2x2xf32>)
  // CHECK-SAME: epilogue = #kiln.epilogue<bias = input 3, lo = 0.000000e+00>
  linalg.fill ins(%cst : f32) outs(%c : memref<1x2x2x2xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<1x1x1x2xf32>) outs(%c : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x2x2x1xf32>
    %m = arith.mulf %v, %in : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %c, %t : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>, memref<2xf32>) outs(%y : memref<1x2x2x2xf32>) {
  ^bb0(%res: f32, %in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %s = arith.addf %res, %a : f32
    %m = arith.maximumf %s, %cst : f32
    linalg.yield %m : f32
  }
  %c6 = memref.alloc() : memref<1x2x2x2xf32>
  // CHECK: kiln.kernel_call "gpu_conv2d_f32" ins(%arg0, %{{.*}} : memref<1x2x2x1xf32>, memref<2x1x1x1xf32>) outs(%[[C6:.*]] : memref<1x2x2x2xf32>)
  // CHECK-NOT: epilogue
  // CHECK: linalg.generic {{.*}} ins(%[[C6]], %{{.*}} : memref<1x2x2x2xf32>, memref<2xf32>) outs(%arg3
  linalg.fill ins(%cst : f32) outs(%c6 : memref<1x2x2x2xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<1x1x1x2xf32>) outs(%c6 : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x2x2x1xf32>
    %m = arith.mulf %v, %in : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c6, %t : memref<1x2x2x2xf32>, memref<2xf32>) outs(%y6 : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %m = arith.maximumf %a, %cst : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// Tests that a 1x1 convolution's matrix product (constant k x n weights, its rows a
// collapsed NHWC image) followed by a Relu epilogue becomes a 1x1 convolution of cuDNN on
// that image, the weights transposed to f x 1 x 1 x k; without a Relu it stays cuBLAS's
// product with its elementwise op after it, and so does a dense layer's product (rows
// that are no image) even with a Relu.
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#c2 = affine_map<(d0, d1) -> (d0, d1)>
#ch2 = affine_map<(d0, d1) -> (d1)>
memref.global "private" constant @k : memref<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
memref.global "private" constant @t : memref<2xf32> = dense<[1.0, -1.0]>
// CHECK: memref.global "private" constant @k_krsc : memref<2x1x1x3xf32> = dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00]]], {{\[\[\[}}2.000000e+00, 4.000000e+00, 6.000000e+00]]]]>
// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%x: memref<1x2x2x3xf32>, %y: memref<1x2x2x2xf32>, %z: memref<1x2x2x2xf32>, %d: memref<4x3xf32>, %dy: memref<4x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %k = memref.get_global @k : memref<3x2xf32>
  %t = memref.get_global @t : memref<2xf32>
  %rows = memref.collapse_shape %x [[0, 1, 2], [3]] : memref<1x2x2x3xf32> into memref<4x3xf32>
  %c = memref.alloc() : memref<4x2xf32>
  // CHECK: kiln.kernel_call "gpu_conv2d_f32" ins(%arg0, %{{.*}}, %{{.*}} : memref<1x2x2x3xf32>, memref<2x1x1x3xf32>, memref<2xf32>) outs(%arg1 : memref<1x2x2x2xf32>)
  // CHECK-SAME: c = 3 : i64
  // CHECK-SAME: epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>, f = 2 : i64
  // CHECK-SAME: h = 2 : i64, kh = 1 : i64, kw = 1 : i64, n = 1 : i64, oh = 2 : i64, overwrite, ow = 2 : i64
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
  %c2 = memref.alloc() : memref<4x2xf32>
  // CHECK: kiln.kernel_call "gpu_matmul_f32" ins(%{{.*}}, %{{.*}} : memref<4x3xf32>, memref<3x2xf32>)
  // CHECK: linalg.generic
  linalg.fill ins(%cst : f32) outs(%c2 : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%rows, %k : memref<4x3xf32>, memref<3x2xf32>) outs(%c2 : memref<4x2xf32>) {
  ^bb0(%in: f32, %w: f32, %o: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %e2 = memref.expand_shape %c2 [[0, 1, 2], [3]] output_shape [1, 2, 2, 2] : memref<4x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e2, %t : memref<1x2x2x2xf32>, memref<2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    linalg.yield %a : f32
  }
  %c3 = memref.alloc() : memref<4x2xf32>
  // CHECK: kiln.kernel_call "gpu_matmul_f32" ins(%arg3, %{{.*}} : memref<4x3xf32>, memref<3x2xf32>)
  // CHECK: linalg.generic
  linalg.fill ins(%cst : f32) outs(%c3 : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%d, %k : memref<4x3xf32>, memref<3x2xf32>) outs(%c3 : memref<4x2xf32>) {
  ^bb0(%in: f32, %w: f32, %o: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#c2, #ch2, #c2], iterator_types = ["parallel", "parallel"]}
      ins(%c3, %t : memref<4x2xf32>, memref<2xf32>) outs(%dy : memref<4x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %r = arith.maximumf %a, %cst : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that a depthwise convolution's output (n x h x w x c x m) read as rows by a 1x1
// convolution (a separable convolution's pointwise half) is the image: its last two
// dimensions collapse into the channels.
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @k : memref<3x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
// CHECK-LABEL: func.func @separable
func.func @separable(%x: memref<1x2x2x3x1xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %k = memref.get_global @k : memref<3x2xf32>
  %rows = memref.collapse_shape %x [[0, 1, 2], [3, 4]] : memref<1x2x2x3x1xf32> into memref<4x3xf32>
  %c = memref.alloc() : memref<4x2xf32>
  // CHECK: %[[I:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1], [2], [3, 4]] : memref<1x2x2x3x1xf32> into memref<1x2x2x3xf32>
  // CHECK: kiln.kernel_call "gpu_conv2d_f32" ins(%[[I]], %{{.*}} : memref<1x2x2x3xf32>, memref<2x1x1x3xf32>) outs(%arg1 : memref<1x2x2x2xf32>)
  // CHECK-SAME: epilogue = #kiln.epilogue<lo = 0.000000e+00>
  linalg.fill ins(%cst : f32) outs(%c : memref<4x2xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%rows, %k : memref<4x3xf32>, memref<3x2xf32>) outs(%c : memref<4x2xf32>) {
  ^bb0(%in: f32, %w: f32, %o: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %e = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 2, 2, 2] : memref<4x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e : memref<1x2x2x2xf32>) outs(%y : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  }
  return
}
