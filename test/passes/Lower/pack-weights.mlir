// RUN: kiln-opt --split-input-file --kiln-lower-pack-weights %s | FileCheck %s

// Tests that a constant B (2 x 3) becomes a packed copy (one depth slice of 2 rows, panels
// of 32 columns padded with zeros: 2 x 32 floats), that the call reads it with packed_b
// set, that a second call on the same constant shares the copy, and that the unpacked
// constant, no longer read, goes.
// CHECK-NOT: @w :
// CHECK: memref.global "private" constant @w_packed : memref<64xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> {alignment = 64 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @shared
memref.global "private" constant @w : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> {alignment = 64 : i64}
func.func @shared(%a: memref<4x2xf32>, %c: memref<4x3xf32>, %d: memref<4x3xf32>) {
  // CHECK-NOT: get_global @w :
  // CHECK: %[[G:.*]] = memref.get_global @w_packed : memref<64xf32>
  // CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %[[G]] : memref<4x2xf32>, memref<64xf32>) outs(%arg1 : memref<4x3xf32>) params {k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite, packed_b}
  // CHECK: %[[G2:.*]] = memref.get_global @w_packed : memref<64xf32>
  // CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %[[G2]] : {{.*}}) outs(%arg2 : {{.*}}) params {k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite, packed_b}
  %w = memref.get_global @w : memref<2x3xf32>
  kiln.kernel_call "matmul_f32" ins(%a, %w : memref<4x2xf32>, memref<2x3xf32>) outs(%c : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite}
  kiln.kernel_call "matmul_f32" ins(%a, %w : memref<4x2xf32>, memref<2x3xf32>) outs(%d : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite}
  return
}

// -----

// Tests a transposed constant B (stored n x k = 3 x 2, through a reshape as a convolution
// filter would be): the copy holds op(B), transpose_b goes and packed_b comes; the reshape
// and the unpacked constant go.
// CHECK: memref.global "private" constant @wt_packed_t : memref<64xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK-LABEL: func.func @transposed
memref.global "private" constant @wt : memref<3x1x2xf32> = dense<[[[1.0, 4.0]], [[2.0, 5.0]], [[3.0, 6.0]]]> {alignment = 64 : i64}
func.func @transposed(%a: memref<4x2xf32>, %c: memref<4x3xf32>, %bias: memref<3xf32>) {
  // CHECK-NOT: collapse_shape
  // CHECK: %[[G:.*]] = memref.get_global @wt_packed_t : memref<64xf32>
  // CHECK-NOT: collapse_shape
  // CHECK: kiln.kernel_call "matmul_epilogue_f32" ins(%arg0, %[[G]], %arg2 : memref<4x2xf32>, memref<64xf32>, memref<3xf32>)
  // CHECK-SAME: params {epilogue = #kiln.epilogue<bias = input 2>, k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite, packed_b}
  %w = memref.get_global @wt : memref<3x1x2xf32>
  %w2 = memref.collapse_shape %w [[0, 1], [2]] : memref<3x1x2xf32> into memref<3x2xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %w2, %bias : memref<4x2xf32>, memref<3x2xf32>, memref<3xf32>) outs(%c : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite, transpose_b, epilogue = #kiln.epilogue<bias = input 2>}
  return
}

// -----

// Tests what stays: a B that is an argument, a global that is not constant, and a call
// already reading packed weights.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: _packed
// CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %arg1 : {{.*}}) {{.*}} params {k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite}
// CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %{{.*}} : memref<4x2xf32>, memref<2x3xf32>) {{.*}} params {k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite}
// CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %{{.*}} : memref<4x2xf32>, memref<64xf32>) {{.*}} params {k = 2 : i64, m = 4 : i64, n = 3 : i64, overwrite, packed_b}
memref.global "private" @v : memref<2x3xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @p : memref<64xf32> = dense<1.0> {alignment = 64 : i64}
func.func @kept(%a: memref<4x2xf32>, %b: memref<2x3xf32>, %c: memref<4x3xf32>) {
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<4x2xf32>, memref<2x3xf32>) outs(%c : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite}
  %v = memref.get_global @v : memref<2x3xf32>
  kiln.kernel_call "matmul_f32" ins(%a, %v : memref<4x2xf32>, memref<2x3xf32>) outs(%c : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite}
  %p = memref.get_global @p : memref<64xf32>
  kiln.kernel_call "matmul_f32" ins(%a, %p : memref<4x2xf32>, memref<64xf32>) outs(%c : memref<4x3xf32>)
      params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite, packed_b}
  return
}

// -----

// Tests that a 3x3 convolution with a constant filter calls the Winograd kernel that caches
// its transformed filter: a mutable one-i64 slot per filter, zero until the first call,
// read by the call after the filter (the epilogue's buffers move up one), shared by the
// calls of one filter; a filter that is an argument keeps the plain kernel. A convolution
// through the windows-times-filter kernel gets its filter packed (16 x 8 for a 1x2 window of
// 8 channels: 16 x 32 floats).
// CHECK-DAG: memref.global "private" @f_winograd : memref<1xi64> = dense<0> {alignment = 8 : i64}
// CHECK-DAG: memref.global "private" constant @g_packed : memref<512xf32>
// CHECK-LABEL: func.func @convolutions
memref.global "private" constant @f : memref<3x3x8x8xf32> = dense<0.5> {alignment = 64 : i64}
memref.global "private" constant @g : memref<1x2x8x8xf32> = dense<0.25> {alignment = 64 : i64}
func.func @convolutions(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>, %bias: memref<8xf32>, %w: memref<3x3x8x8xf32>) {
  // CHECK: %[[F:.*]] = memref.get_global @f : memref<3x3x8x8xf32>
  // CHECK: %[[SLOT:.*]] = memref.get_global @f_winograd : memref<1xi64>
  // CHECK: kiln.kernel_call "conv2d_3x3_cached_f32" ins(%arg0, %[[F]], %[[SLOT]], %arg3 : memref<1x8x8x8xf32>, memref<3x3x8x8xf32>, memref<1xi64>, memref<8xf32>) outs(%arg1 : memref<1x8x8x8xf32>)
  // CHECK-SAME: epilogue = #kiln.epilogue<bias = input 3, lo = 0.000000e+00>
  // CHECK: %[[SLOT2:.*]] = memref.get_global @f_winograd : memref<1xi64>
  // CHECK: kiln.kernel_call "conv2d_3x3_cached_f32" ins(%arg1, %[[F]], %[[SLOT2]] : {{.*}}) outs(%arg2 : memref<1x8x8x8xf32>)
  // CHECK: kiln.kernel_call "conv2d_3x3_f32" ins(%arg0, %arg4 : {{.*}}) outs(%arg2 : memref<1x8x8x8xf32>)
  // CHECK: %[[G:.*]] = memref.get_global @g_packed : memref<512xf32>
  // CHECK: kiln.kernel_call "conv2d_gemm_f32" ins(%arg0, %[[G]] : memref<1x8x8x8xf32>, memref<512xf32>) outs(%arg1 : memref<1x8x8x8xf32>)
  // CHECK-SAME: overwrite, ow = 8 : i64, packed_filter
  %f = memref.get_global @f : memref<3x3x8x8xf32>
  kiln.kernel_call "conv2d_3x3_f32" ins(%x, %f, %bias : memref<1x8x8x8xf32>, memref<3x3x8x8xf32>, memref<8xf32>) outs(%y : memref<1x8x8x8xf32>)
      params {n = 1 : i64, h = 8 : i64, w = 8 : i64, c = 8 : i64, f = 8 : i64, oh = 8 : i64, ow = 8 : i64, pad = array<i64: 1, 1>, overwrite, epilogue = #kiln.epilogue<bias = input 2, lo = 0.0>}
  kiln.kernel_call "conv2d_3x3_f32" ins(%y, %f : memref<1x8x8x8xf32>, memref<3x3x8x8xf32>) outs(%z : memref<1x8x8x8xf32>)
      params {n = 1 : i64, h = 8 : i64, w = 8 : i64, c = 8 : i64, f = 8 : i64, oh = 8 : i64, ow = 8 : i64, pad = array<i64: 1, 1>, overwrite}
  kiln.kernel_call "conv2d_3x3_f32" ins(%x, %w : memref<1x8x8x8xf32>, memref<3x3x8x8xf32>) outs(%z : memref<1x8x8x8xf32>)
      params {n = 1 : i64, h = 8 : i64, w = 8 : i64, c = 8 : i64, f = 8 : i64, oh = 8 : i64, ow = 8 : i64, pad = array<i64: 1, 1>}
  %g = memref.get_global @g : memref<1x2x8x8xf32>
  kiln.kernel_call "conv2d_gemm_f32" ins(%x, %g : memref<1x8x8x8xf32>, memref<1x2x8x8xf32>) outs(%y : memref<1x8x8x8xf32>)
      params {n = 1 : i64, h = 8 : i64, w = 8 : i64, c = 8 : i64, f = 8 : i64, kh = 1 : i64, kw = 2 : i64, oh = 8 : i64, ow = 8 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 1>, overwrite}
  return
}
