// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls %s | FileCheck %s

// Tests that in a function placed on a GPU a convolution the lowering marked, with a
// constant filter, becomes a call of cuDNN (gpu_conv2d_f32): the filter transposed at
// compile time into a global of cuDNN's NHWC filter layout (f x kh x kw x c), the HWIO
// global dropped when nothing else reads it, the zero fill folded into overwrite; a
// depthwise convolution stays a generic op (a generated kernel).
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>
memref.global "private" constant @dw : memref<1x2x2x2xf32> = dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]>
// CHECK: memref.global "private" constant @dw : memref<1x2x2x2xf32>
// CHECK-NOT: @dw_krsc
// CHECK-LABEL: func.func @depthwise
func.func @depthwise(%x: memref<1x4x5x2xf32>, %y: memref<1x4x4x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %f = memref.get_global @dw : memref<1x2x2x2xf32>
  // CHECK: linalg.fill
  // CHECK: linalg.generic
  // CHECK-NOT: kiln.kernel_call
  linalg.fill ins(%cst : f32) outs(%y : memref<1x4x4x2x2xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
      ins(%f : memref<1x2x2x2xf32>) outs(%y : memref<1x4x4x2x2xf32>) attrs = {kiln.depthwise = array<i64: 1, 1, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = linalg.index 5 : index
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %i, %j, %c] : memref<1x4x5x2xf32>
    %m = arith.mulf %v, %in : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that padding cuDNN cannot express (SAME, stride 2, on an even image: none above,
// one row below) makes a zero-padded copy of the image, which the call reads without
// padding; a splat filter stays a splat.
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
memref.global "private" constant @w : memref<3x3x1x2xf32> = dense<0.5>
// CHECK: memref.global "private" constant @w_krsc : memref<2x3x3x1xf32> = dense<5.000000e-01>
// CHECK-LABEL: func.func @asymmetric
func.func @asymmetric(%x: memref<1x4x4x1xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %cst = arith.constant 0.0 : f32
  %f = memref.get_global @w : memref<3x3x1x2xf32>
  // CHECK: %[[P:.*]] = memref.alloc() : memref<1x5x5x1xf32>
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<1x5x5x1xf32>)
  // CHECK: %[[I:.*]] = memref.subview %[[P]][0, 0, 0, 0] [1, 4, 4, 1] [1, 1, 1, 1]
  // CHECK: memref.copy %arg0, %[[I]]
  // CHECK: kiln.kernel_call "gpu_conv2d_f32" ins(%[[P]], %{{.*}} : memref<1x5x5x1xf32>, memref<2x3x3x1xf32>) outs(%arg1 : memref<1x2x2x2xf32>)
  // CHECK-SAME: groups = 1 : i64, h = 5 : i64
  // CHECK-SAME: pad = array<i64: 0, 0>, strides = array<i64: 2, 2>, w = 5 : i64
  linalg.fill ins(%cst : f32) outs(%y : memref<1x2x2x2xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<3x3x1x2xf32>) outs(%y : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 2, 2, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x4x4x1xf32>
    %m = arith.mulf %v, %in : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that a filter that is not a constant (fed, say) leaves the convolution to
// kiln-gpu-kernels.
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @fed_filter
func.func @fed_filter(%x: memref<1x4x4x1xf32>, %f: memref<3x3x1x2xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // CHECK-NOT: kernel_call
  // CHECK: linalg.generic
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<3x3x1x2xf32>) outs(%y : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x4x4x1xf32>
    %m = arith.mulf %v, %in : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that a module after another with a filter of the same name gets its own transpose
// (the pass keeps no filter from one module to the next).
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
memref.global "private" constant @w : memref<1x1x1x2xf32> = dense<[[[[2.0, 3.0]]]]>
// CHECK: memref.global "private" constant @w_krsc : memref<2x1x1x1xf32> = dense<{{\[}}{{\[}}{{\[}}[2.000000e+00]]], {{\[}}{{\[}}[3.000000e+00]]]]>
// CHECK-LABEL: func.func @same_name
func.func @same_name(%x: memref<1x4x4x1xf32>, %y: memref<1x2x2x2xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %f = memref.get_global @w : memref<1x1x1x2xf32>
  // CHECK: kiln.kernel_call "gpu_conv2d_f32"
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%f : memref<1x1x1x2xf32>) outs(%y : memref<1x2x2x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 2, 2, 1, 1, 0, 0>} {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0 : index
    %v = memref.load %x[%z, %z, %z, %z] : memref<1x4x4x1xf32>
    %m = arith.mulf %v, %in : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
