// RUN: kiln-opt --split-input-file --kiln-lower-fuse-kernel-calls="min-bytes=0" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-fuse-kernel-calls %s | FileCheck %s --check-prefix=BIG
// RUN: kiln-opt --split-input-file --kiln-lower-fuse-kernel-calls="min-bytes=0 max-weight-bytes=127" %s | FileCheck %s --check-prefix=WIDE

// Tests a 1x1 convolution with its epilogue and the 3x3 stride-2 depthwise convolution of
// its result: one call of pointwise_depthwise_f32 on the product's operands and the
// depthwise filter, the product's epilogue its pointwise_epilogue and the depthwise one its
// epilogue, their buffers after the fixed inputs (renumbered); the buffer between goes.
// Under the default min-bytes (1 MiB) nothing changes, nor when B (4 x 8 floats, 128
// bytes) is larger than max-weight-bytes.
// CHECK-LABEL: func.func @fused
func.func @fused(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: "matmul
  // CHECK: kiln.kernel_call "pointwise_depthwise_f32" ins(%arg0, %arg1, %arg2, %arg4, %arg5 : memref<48x4xf32>, memref<4x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>, memref<8xf32>) outs(%arg3 : memref<1x3x4x8xf32>)
  // CHECK-SAME: params {c = 8 : i64, cin = 4 : i64, dilations = array<i64: 1, 1>, epilogue = #kiln.epilogue<bias = input 4, lo = 0.000000e+00, hi = 6.000000e+00>, h = 6 : i64, kh = 3 : i64, kw = 3 : i64, n = 1 : i64, oh = 3 : i64, ow = 4 : i64, pad = array<i64: 0, 0>, pointwise_epilogue = #kiln.epilogue<scale = input 3, lo = 0.000000e+00, hi = 6.000000e+00>, strides = array<i64: 2, 2>, w = 8 : i64}
  // CHECK-NOT: "depthwise
  // BIG: "matmul_epilogue_f32"
  // BIG: "depthwise_conv2d_f32"
  // WIDE-LABEL: func.func @fused
  // WIDE: "matmul_epilogue_f32"
  // WIDE: "depthwise_conv2d_f32"
  // WIDE-LABEL: func.func @plain
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : memref<48x4xf32>, memref<4x8xf32>, memref<8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

// Tests a product without an epilogue: the fused call has no pointwise_epilogue (the
// expansion passes the identity).
// CHECK-LABEL: func.func @plain
func.func @plain(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: kiln.kernel_call "pointwise_depthwise_f32" ins(%arg0, %arg1, %arg2, %arg5 : {{.*}})
  // CHECK-NOT: pointwise_epilogue
  // CHECK-SAME: epilogue = #kiln.epilogue<bias = input 3,
  // CHECK-NOT: pointwise_epilogue
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_f32" ins(%x, %w : memref<48x4xf32>, memref<4x8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

// Tests that the product's result is kept when something else reads it too.
// CHECK-LABEL: func.func @kept_read
func.func @kept_read(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: "matmul_epilogue_f32"
  // CHECK: "depthwise_conv2d_f32"
  // CHECK-NOT: pointwise_depthwise
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : memref<48x4xf32>, memref<4x8xf32>, memref<8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  %copy = memref.alloc() : memref<1x6x8x8xf32>
  memref.copy %mid, %copy : memref<1x6x8x8xf32> to memref<1x6x8x8xf32>
  return
}

// -----

// Tests that a depthwise call adding to its output (no overwrite) is kept.
// CHECK-LABEL: func.func @kept_accumulate
func.func @kept_accumulate(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: "matmul_epilogue_f32"
  // CHECK: "depthwise_conv2d_f32"
  // CHECK-NOT: pointwise_depthwise
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : memref<48x4xf32>, memref<4x8xf32>, memref<8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

// Tests that a window the fused kernel does not compute fast (7x7) is kept.
// CHECK-LABEL: func.func @kept_window
func.func @kept_window(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<7x7x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: "matmul_epilogue_f32"
  // CHECK: "depthwise_conv2d_f32"
  // CHECK-NOT: pointwise_depthwise
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : memref<48x4xf32>, memref<4x8xf32>, memref<8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<7x7x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 7 : i64, kw = 7 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

// Tests that a kernel call between the two keeps them apart.
// CHECK-LABEL: func.func @kept_between
func.func @kept_between(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: "matmul_epilogue_f32"
  // CHECK: "matmul_f32"
  // CHECK: "depthwise_conv2d_f32"
  // CHECK-NOT: pointwise_depthwise
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : memref<48x4xf32>, memref<4x8xf32>, memref<8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "matmul_f32" ins(%x, %w : memref<48x4xf32>, memref<4x8xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

// Tests that a transposed product is kept (the fused kernel reads its weights as stored).
// CHECK-LABEL: func.func @kept_transposed
func.func @kept_transposed(%x: memref<48x4xf32>, %w: memref<8x4xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: "matmul_f32"
  // CHECK: "depthwise_conv2d_f32"
  // CHECK-NOT: pointwise_depthwise
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  kiln.kernel_call "matmul_f32" ins(%x, %w : memref<48x4xf32>, memref<8x4xf32>) outs(%flat : memref<48x8xf32>)
      params {m = 48 : i64, n = 8 : i64, k = 4 : i64, overwrite, transpose_b}
  kiln.kernel_call "depthwise_conv2d_f32" ins(%mid, %f, %b : memref<1x6x8x8xf32>, memref<3x3x8x1xf32>, memref<8xf32>) outs(%o : memref<1x3x4x8xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 8 : i64, c = 8 : i64, m = 1 : i64, kh = 3 : i64, kw = 3 : i64, oh = 3 : i64, ow = 4 : i64,
              strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite,
              epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}
