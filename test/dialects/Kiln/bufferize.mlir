// Tests that kiln.send and kiln.recv bufferize: send reads the buffer of its tensor, recv
// writes the buffer of its destination, which its result then is (here the function's
// output, so nothing is copied).
// RUN: kiln-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" %s | FileCheck %s

// CHECK-LABEL: func.func @part(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT: kiln.send %[[X]] as "a" : memref<4xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK-NEXT: kiln.recv "b" into %[[B]] : memref<4xf32>
// CHECK-NEXT: return %[[B]]
func.func @part(%x: tensor<4xf32>) -> tensor<4xf32> {
  kiln.send %x as "a" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = kiln.recv "b" into %e : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Tests that kiln.check bufferizes to a read of its operand's buffer: nothing is copied.
// CHECK-LABEL: func.func @check(
// CHECK-SAME: %[[Y:.*]]: memref<4xi32>)
// CHECK-NEXT: kiln.check "nonzero" %[[Y]], "m" : memref<4xi32>
// CHECK-NEXT: return
func.func @check(%y: tensor<4xi32>) {
  kiln.check "nonzero" %y, "m" : tensor<4xi32>
  return
}

// Tests that kiln.attention bufferizes to a call of attention_f32 writing its destination's
// buffer, its sizes and flags from the op, and that a strided view goes through a
// contiguous copy.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[Q:[^:]*]]: memref<1x6x2x8xf32>, %[[K:[^:]*]]: memref<1x2x6x8xf32>, %[[V:[^:]*]]: memref<1x2x9x4xf32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[V]]
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<1x2x6x4xf32>
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<1x2x6x4xf32>
// CHECK: memref.copy %[[VIEW]], %[[COPY]]
// CHECK: kiln.kernel_call "attention_f32" ins(%[[Q]], %[[K]], %[[COPY]] : memref<1x6x2x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x4xf32>) outs(%[[OUT]] : memref<1x2x6x4xf32>)
// CHECK-SAME: params {batch = 1 : i64, d = 8 : i64, dv = 4 : i64, heads = 2 : i64, q_seq_major, scale = 5.000000e-01 : f32, sk = 6 : i64, sq = 6 : i64}
// CHECK: return %[[OUT]]
func.func @attention(%q: tensor<1x6x2x8xf32>, %k: tensor<1x2x6x8xf32>, %v9: tensor<1x2x9x4xf32>) -> tensor<1x2x6x4xf32> {
  %v = tensor.extract_slice %v9[0, 0, 0, 0] [1, 2, 6, 4] [1, 1, 1, 1] : tensor<1x2x9x4xf32> to tensor<1x2x6x4xf32>
  %e = tensor.empty() : tensor<1x2x6x4xf32>
  %o = kiln.attention %q, %k, %v into %e {scale = 0.5 : f32, q_seq_major}
      : tensor<1x6x2x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x4xf32> -> tensor<1x2x6x4xf32>
  return %o : tensor<1x2x6x4xf32>
}

// Tests a mask: attention_masked_f32, the mask's strides 0 where it broadcasts.
// CHECK-LABEL: func.func @attention_mask(
// CHECK: kiln.kernel_call "attention_masked_f32" ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x2x6x8xf32>, memref<2x2x6x8xf32>, memref<2x2x6x4xf32>, memref<2x1x6x6xf32>)
// CHECK-SAME: mask_batch_stride = 36 : i64, mask_head_stride = 0 : i64, mask_row_stride = 6 : i64
func.func @attention_mask(%q: tensor<2x2x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x4xf32>, %m: tensor<2x1x6x6xf32>) -> tensor<2x2x6x4xf32> {
  %e = tensor.empty() : tensor<2x2x6x4xf32>
  %o = kiln.attention %q, %k, %v mask %m : tensor<2x1x6x6xf32> into %e {scale = 0.5 : f32}
      : tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32> -> tensor<2x2x6x4xf32>
  return %o : tensor<2x2x6x4xf32>
}

// Tests that kiln.kernel bufferizes to the kernel_call of its kernel: inputs read from
// their buffers (a view of some columns through a contiguous copy), its results in new
// buffers.
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[A:.*]]: memref<4x6xf32>) -> (memref<4x4xf32>, memref<4x3xf32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[A]][0, 0] [4, 3] [1, 1]
// CHECK: %[[Q:.*]] = memref.alloc() {{.*}}: memref<4x4xf32>
// CHECK: %[[R:.*]] = memref.alloc() {{.*}}: memref<4x3xf32>
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<4x3xf32>
// CHECK: memref.copy %[[VIEW]], %[[COPY]]
// CHECK: kiln.kernel_call "qr_f32" ins(%[[COPY]] : memref<4x3xf32>) outs(%[[Q]], %[[R]] : memref<4x4xf32>, memref<4x3xf32>) params {batch = 1 : i64, full_matrices, m = 4 : i64, n = 3 : i64}
// CHECK: return %[[Q]], %[[R]]
func.func @kernel(%a6: tensor<4x6xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>) {
  %a = tensor.extract_slice %a6[0, 0] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %q0 = tensor.empty() : tensor<4x4xf32>
  %r0 = tensor.empty() : tensor<4x3xf32>
  %q, %r = kiln.kernel "qr_f32" ins(%a : tensor<4x3xf32>) outs(%q0, %r0 : tensor<4x4xf32>, tensor<4x3xf32>)
      params {batch = 1 : i64, m = 4 : i64, n = 3 : i64, full_matrices} -> tensor<4x4xf32>, tensor<4x3xf32>
  return %q, %r : tensor<4x4xf32>, tensor<4x3xf32>
}
