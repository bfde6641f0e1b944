// RUN: kiln-opt --split-input-file --kiln-lower-pack-weights %s | FileCheck %s

// Tests that a constant B (2 x 3) becomes a packed copy (depth slices of 512 rows, panels
// of 32 columns padded with zeros: 2 x 32 floats), that the call reads it with
// KILN_MATMUL_PACKED_B added (4 | 8 = 12), that a second call on the same constant shares
// the copy, and that the unpacked constant, no longer read, goes.
// CHECK-NOT: @w :
// CHECK: memref.global "private" constant @w_packed : memref<64xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> {alignment = 64 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @shared
memref.global "private" constant @w : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> {alignment = 64 : i64}
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func @shared(%a: memref<4x2xf32>, %c: memref<4x3xf32>, %d: memref<4x3xf32>) {
  // CHECK-NOT: get_global @w :
  // CHECK: %[[G:.*]] = memref.get_global @w_packed : memref<64xf32>
  // CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
  // CHECK: %[[B:.*]] = arith.index_cast %[[P]] : index to i64
  // CHECK: %[[F:.*]] = arith.constant 12 : i32
  // CHECK: call @kiln_kernel_matmul_f32(%{{[^,]*}}, %[[B]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[F]])
  // CHECK: memref.get_global @w_packed : memref<64xf32>
  // CHECK: call @kiln_kernel_matmul_f32
  %w = memref.get_global @w : memref<2x3xf32>
  %c4 = arith.constant 4 : i64
  %c3 = arith.constant 3 : i64
  %c2 = arith.constant 2 : i64
  %flags = arith.constant 4 : i32
  %pa = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<2x3xf32> -> index
  %iw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %c : memref<4x3xf32> -> index
  %ic = arith.index_cast %pc : index to i64
  call @kiln_kernel_matmul_f32(%ia, %iw, %ic, %c4, %c3, %c2, %flags) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  %pd = memref.extract_aligned_pointer_as_index %d : memref<4x3xf32> -> index
  %id = arith.index_cast %pd : index to i64
  call @kiln_kernel_matmul_f32(%ia, %iw, %id, %c4, %c3, %c2, %flags) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  return
}

// -----

// Tests a transposed constant B (stored n x k = 3 x 2, through a reshape as a convolution
// filter would be): the copy holds op(B), and the flags lose KILN_MATMUL_TRANSPOSE_B
// (2 | 4 -> 4 | 8 = 12).
// CHECK: memref.global "private" constant @wt_packed_t : memref<64xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]>
// CHECK-LABEL: func.func @transposed
memref.global "private" constant @wt : memref<3x1x2xf32> = dense<[[[1.0, 4.0]], [[2.0, 5.0]], [[3.0, 6.0]]]> {alignment = 64 : i64}
func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func @transposed(%a: memref<4x2xf32>, %c: memref<4x3xf32>) {
  // CHECK: %[[F:.*]] = arith.constant 12 : i32
  // CHECK: call @kiln_kernel_matmul_epilogue_f32(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[F]],
  %w = memref.get_global @wt : memref<3x1x2xf32>
  %w2 = memref.collapse_shape %w [[0, 1], [2]] : memref<3x1x2xf32> into memref<3x2xf32>
  %c4 = arith.constant 4 : i64
  %c3 = arith.constant 3 : i64
  %c2 = arith.constant 2 : i64
  %flags = arith.constant 6 : i32
  %z = arith.constant 0 : i64
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %pa = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w2 : memref<3x2xf32> -> index
  %iw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %c : memref<4x3xf32> -> index
  %ic = arith.index_cast %pc : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ia, %iw, %ic, %c4, %c3, %c2, %flags, %z, %one, %z, %zero, %zero, %one) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}

// -----

// Tests what stays: a B that is an argument, a global that is not constant, and a call
// already reading packed weights.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: _packed
// CHECK: call @kiln_kernel_matmul_f32(%{{.*}}, %c4_i32)
// CHECK: call @kiln_kernel_matmul_f32(%{{.*}}, %c4_i32)
// CHECK: call @kiln_kernel_matmul_f32(%{{.*}}, %c12_i32)
memref.global "private" @v : memref<2x3xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @p : memref<64xf32> = dense<1.0> {alignment = 64 : i64}
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func @kept(%a: memref<4x2xf32>, %b: memref<2x3xf32>, %c: memref<4x3xf32>) {
  %c4 = arith.constant 4 : i64
  %c3 = arith.constant 3 : i64
  %c2 = arith.constant 2 : i64
  %flags = arith.constant 4 : i32
  %packed = arith.constant 12 : i32
  %pa = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  %pc = memref.extract_aligned_pointer_as_index %c : memref<4x3xf32> -> index
  %ic = arith.index_cast %pc : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<2x3xf32> -> index
  %ib = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_f32(%ia, %ib, %ic, %c4, %c3, %c2, %flags) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  %v = memref.get_global @v : memref<2x3xf32>
  %pv = memref.extract_aligned_pointer_as_index %v : memref<2x3xf32> -> index
  %iv = arith.index_cast %pv : index to i64
  call @kiln_kernel_matmul_f32(%ia, %iv, %ic, %c4, %c3, %c2, %flags) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  %p = memref.get_global @p : memref<64xf32>
  %pp = memref.extract_aligned_pointer_as_index %p : memref<64xf32> -> index
  %ip = arith.index_cast %pp : index to i64
  call @kiln_kernel_matmul_f32(%ia, %ip, %ic, %c4, %c3, %c2, %packed) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  return
}
