// RUN: kiln-opt --split-input-file --kiln-codegen-expand-kernel-calls %s | FileCheck %s

// Tests that a matrix product becomes the call of its C function, declared once for both
// calls: the buffers by address (index_cast of the aligned pointer), m, n, k, then the flags
// present ORed (transpose_a 1 | overwrite 4 = 5; none = 0).
// CHECK: func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @matmul
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %arg0 : memref<4x8xf32> -> index
// CHECK-NEXT: %[[A:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK-NEXT: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK-NEXT: %[[B:.*]] = arith.index_cast %[[PB]] : index to i64
// CHECK-NEXT: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[PC]] : index to i64
// CHECK-NEXT: %[[M:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[N:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[K:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[F:.*]] = arith.constant 5 : i32
// CHECK-NEXT: call @kiln_kernel_matmul_f32(%[[A]], %[[B]], %[[C]], %[[M]], %[[N]], %[[K]], %[[F]]) : (i64, i64, i64, i64, i64, i64, i32) -> ()
// CHECK: %[[F0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @kiln_kernel_matmul_f32({{.*}}, %[[F0]])
// CHECK-NOT: kernel_call
func.func @matmul(%a: memref<4x8xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>, %a2: memref<8x4xf32>) {
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<4x8xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, transpose_a, overwrite}
  kiln.kernel_call "matmul_f32" ins(%a2, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

// Tests an epilogue: the scale buffer's address and the scale 1, no bias buffer (0) and the
// constant bias, then the bounds (+inf when there is none) and the activation (Swish: 1).
// CHECK: func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32, i32)
// CHECK-LABEL: func.func @epilogue
// CHECK: %[[F:.*]] = arith.constant 12 : i32
// CHECK-NEXT: %[[PS:.*]] = memref.extract_aligned_pointer_as_index %arg3
// CHECK-NEXT: %[[S:.*]] = arith.index_cast %[[PS]] : index to i64
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NOBIAS:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[BIAS:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[SWISH:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @kiln_kernel_matmul_epilogue_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F]], %[[S]], %[[ONE]], %[[NOBIAS]], %[[BIAS]], %[[LO]], %[[HI]], %[[SWISH]])
func.func @epilogue(%a: memref<8x4xf32>, %b: memref<128xf32>, %c: memref<8x16xf32>, %s: memref<16xf32>) {
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %s : memref<8x4xf32>, memref<128xf32>, memref<16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite, packed_b, epilogue = #kiln.epilogue<scale = input 2, bias = 0.5, lo = 0.0, swish>}
  return
}

// -----

// Tests a residual: the epilogue's arguments, then the residual's address (input 2), here
// the output itself.
// CHECK: func.func private @kiln_kernel_matmul_residual_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32, i32, i64)
// CHECK-LABEL: func.func @residual
// CHECK: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[PC]] : index to i64
// CHECK: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[PR:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK-NEXT: %[[R:.*]] = arith.index_cast %[[PR]] : index to i64
// CHECK-NEXT: call @kiln_kernel_matmul_residual_f32(%{{.*}}, %{{.*}}, %[[C]], {{.*}}, %[[NONE]], %[[R]])
func.func @residual(%a: memref<8x4xf32>, %b: memref<128xf32>, %c: memref<8x16xf32>) {
  kiln.kernel_call "matmul_residual_f32" ins(%a, %b, %c : memref<8x4xf32>, memref<128xf32>, memref<8x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite, packed_b, epilogue = #kiln.epilogue<lo = 0.0>}
  return
}

// -----

// Tests a batch of products: batch, m, n, k after the three addresses, and the flags
// (transpose_b 2 | overwrite 4 | broadcast_a 16 = 22).
// CHECK: func.func private @kiln_kernel_batch_matmul_f32(i64, i64, i64, i64, i64, i64, i64, i32)
// CHECK-LABEL: func.func @batch
// CHECK: %[[BATCH:.*]] = arith.constant 3 : i64
// CHECK-NEXT: %[[M:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[N:.*]] = arith.constant 16 : i64
// CHECK-NEXT: %[[K:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[F:.*]] = arith.constant 22 : i32
// CHECK-NEXT: call @kiln_kernel_batch_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[BATCH]], %[[M]], %[[N]], %[[K]], %[[F]])
func.func @batch(%a: memref<8x4xf32>, %b: memref<3x16x4xf32>, %c: memref<3x8x16xf32>) {
  kiln.kernel_call "batch_matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<3x16x4xf32>) outs(%c : memref<3x8x16xf32>)
      params {batch = 3 : i64, m = 8 : i64, n = 16 : i64, k = 4 : i64, transpose_b, overwrite, broadcast_a}
  return
}

// -----

// Tests the convolutions' flags (overwrite 1, epilogue 2, max_pool 4) and the identity
// epilogue of a call without one (0, 1.0, 0, 0.0, -inf, +inf, no activation: 0).
// CHECK-LABEL: func.func @conv
// CHECK: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[C6:.*]] = arith.constant 6 : i64
// CHECK: %[[F7:.*]] = arith.constant 7 : i32
// CHECK: call @kiln_kernel_conv2d_3x3_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[C1]], %[[C6]], {{.*}}, %[[F7]],
// CHECK: %[[F1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @kiln_kernel_conv2d_direct_f32({{.*}}, %[[F1]], %[[Z]], %[[ONE]], %[[Z2]], %[[ZERO]], %[[NINF]], %[[INF]], %[[NONE]]) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32, i32) -> ()
func.func @conv(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16x16xf32>, %b: memref<16xf32>, %y: memref<1x3x3x16xf32>, %y2: memref<1x6x6x16xf32>) {
  kiln.kernel_call "conv2d_3x3_f32" ins(%x, %w, %b : memref<1x6x6x16xf32>, memref<3x3x16x16xf32>, memref<16xf32>) outs(%y : memref<1x3x3x16xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 6 : i64, c = 16 : i64, f = 16 : i64, oh = 6 : i64, ow = 6 : i64, pad = array<i64: 1, 1>,
              overwrite, max_pool, epilogue = #kiln.epilogue<bias = input 2, lo = 0.0>}
  kiln.kernel_call "conv2d_direct_f32" ins(%x, %w : memref<1x6x6x16xf32>, memref<3x3x16x16xf32>) outs(%y2 : memref<1x6x6x16xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 6 : i64, c = 16 : i64, f = 16 : i64, kh = 3 : i64, kw = 3 : i64, oh = 6 : i64, ow = 6 : i64,
              strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1>, overwrite}
  return
}

// -----

// Tests the fused kernel's two epilogues: the pointwise one absent (the identity), the
// depthwise one reading input 3; only the depthwise epilogue sets a flag (2).
// CHECK-LABEL: func.func @pointwise_depthwise
// CHECK: %[[F:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %arg3
// CHECK-NEXT: %[[B:.*]] = arith.index_cast %[[PB]] : index to i64
// CHECK: call @kiln_kernel_pointwise_depthwise_f32({{.*}}, %[[F]], %[[Z]], {{.*}}, %[[B]],
func.func @pointwise_depthwise(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %b: memref<8xf32>, %o: memref<1x3x4x8x1xf32>) {
  kiln.kernel_call "pointwise_depthwise_f32" ins(%x, %w, %f, %b : memref<48x4xf32>, memref<4x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8x1xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, cin = 4 : i64, c = 8 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, epilogue = #kiln.epilogue<bias = input 3>}
  return
}

// -----

// Tests that pairs become two i64 each and that a kernel without flags gets none.
// CHECK: func.func private @kiln_kernel_max_pool2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @pool
// CHECK: call @kiln_kernel_max_pool2d_f32(%{{.*}}, %{{.*}}, %c2_i64, %c7_i64, %c6_i64, %c5_i64, %c4_i64, %c3_i64, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c2_i64_{{.*}}, %c2_i64_{{.*}}, %c1_i64, %c0_i64)
func.func @pool(%x: memref<2x7x6x5xf32>, %y: memref<2x4x3x5xf32>) {
  kiln.kernel_call "max_pool2d_f32" ins(%x : memref<2x7x6x5xf32>) outs(%y : memref<2x4x3x5xf32>)
      params {n = 2 : i64, h = 7 : i64, w = 6 : i64, c = 5 : i64, oh = 4 : i64, ow = 3 : i64, window = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad = array<i64: 1, 0>}
  return
}

// -----

// Tests the runtime's transfers: the key (i32) first, then the buffer's address and its
// size in bytes (a bool takes a byte).
// CHECK-DAG: func.func private @kiln_partition_send(i32, i64, i64)
// CHECK-DAG: func.func private @kiln_partition_recv(i32, i64, i64)
// CHECK-LABEL: func.func @transfers
// CHECK: %[[K:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: %[[A:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT: %[[N:.*]] = arith.constant 24 : i64
// CHECK-NEXT: call @kiln_partition_send(%[[K]], %[[A]], %[[N]]) : (i32, i64, i64) -> ()
// CHECK: %[[N1:.*]] = arith.constant 3 : i64
// CHECK-NEXT: call @kiln_partition_recv(%{{.*}}, %{{.*}}, %[[N1]])
func.func @transfers(%x: memref<2x3xf32>, %flags: memref<3xi1>) {
  kiln.kernel_call "partition_send" ins(%x : memref<2x3xf32>) params {key = 0 : i32}
  kiln.kernel_call "partition_recv" outs(%flags : memref<3xi1>) params {key = 1 : i32}
  return
}

// -----

// Tests that a contiguous view at an offset (an element of a list read at a run-time index)
// is passed by the address of its first element: the aligned pointer plus offset * 4 bytes.
// CHECK-LABEL: func.func @offset_view
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[V:.*]] : memref<4x8xf32, strided<[8, 1], offset: ?>> -> index
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[V]]
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %[[FOUR]] : index
// CHECK: %[[SUM:.*]] = arith.addi %[[P]], %[[BYTES]] : index
// CHECK: arith.index_cast %[[SUM]] : index to i64
func.func @offset_view(%list: memref<10x4x8xf32>, %i: index, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %a = memref.subview %list[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<10x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      params {m = 4 : i64, n = 16 : i64, k = 8 : i64, overwrite}
  return
}
