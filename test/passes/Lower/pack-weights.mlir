// RUN: kiln-opt --split-input-file --kiln-lower-pack-weights %s | FileCheck %s

// Tests that a constant B (2 x 3) becomes a packed copy (depth slices of 256 rows, panels
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
