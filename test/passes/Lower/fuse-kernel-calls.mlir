// RUN: kiln-opt --split-input-file --kiln-lower-fuse-kernel-calls="min-bytes=0" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-fuse-kernel-calls %s | FileCheck %s --check-prefix=BIG

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests a 1x1 convolution with its epilogue and the 3x3 stride-2 depthwise convolution of
// its result: one call, the product's operands and epilogue first, then the depthwise
// call's; the buffer between goes. Under the default min-bytes (1 MiB) nothing changes.
// CHECK-LABEL: func.func @fused
func.func @fused(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: call @kiln_kernel_matmul
  // CHECK: call @kiln_kernel_pointwise_depthwise_f32(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c1_i64, %c6_i64, %c8_i64, %c4_i64, %c8_i64, %c3_i64, %c3_i64, %c3_i64, %c4_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c2_i32{{[_0-9]*}}, %{{[^,]*}}, %[[ONE:[^,]*]], %[[B:[^,]*]], %[[ZERO:[^,]*]], %[[ZERO]], %[[SIX:[^,]*]], %[[B]], %[[ONE]], %[[B]], %[[ZERO]], %[[ZERO]], %[[SIX]])
  // CHECK-NOT: call @kiln_kernel_depthwise
  // BIG: call @kiln_kernel_matmul_epilogue_f32
  // BIG: call @kiln_kernel_depthwise_conv2d_f32
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow, %as, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c3, %c3, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwflags, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}

// -----

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests a product without an epilogue: the fused call gets the identity one (scale 1, bias
// 0, bounds -inf and +inf) and the depthwise call's flags without OVERWRITE.
// CHECK-LABEL: func.func @plain
func.func @plain(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
  // CHECK: call @kiln_kernel_pointwise_depthwise_f32({{.*}}, %c0_i64, %c0_i64, %c2_i32{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %{{[a-z0-9_]+}}, %c0_i64{{[_0-9]*}}, %{{[a-z0-9_]+}}, %[[NINF]], %[[INF]], %{{[^,]*}}, %{{[^,]*}},
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c3, %c3, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwflags, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}

// -----

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests that the product's result is kept when something else reads it too.
// CHECK-LABEL: func.func @kept_read
func.func @kept_read(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: call @kiln_kernel_matmul_epilogue_f32
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32
  // CHECK-NOT: pointwise_depthwise
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow, %as, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c3, %c3, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwflags, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  %copy = memref.alloc() : memref<1x6x8x8xf32>
  memref.copy %mid, %copy : memref<1x6x8x8xf32> to memref<1x6x8x8xf32>
  return
}

// -----

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests that a depthwise call adding to its output (no OVERWRITE) is kept.
// CHECK-LABEL: func.func @kept_accumulate
func.func @kept_accumulate(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: call @kiln_kernel_matmul_epilogue_f32
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32
  // CHECK-NOT: pointwise_depthwise
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow, %as, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c3, %c3, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwacc, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}

// -----

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests that a window the fused kernel does not compute fast (7x7) is kept.
// CHECK-LABEL: func.func @kept_window
func.func @kept_window(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: call @kiln_kernel_matmul_epilogue_f32
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32
  // CHECK-NOT: pointwise_depthwise
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow, %as, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c7, %c7, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwflags, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}

// -----

func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)

// Tests that a call between the two keeps them apart.
// CHECK-LABEL: func.func @kept_between
func.func @kept_between(%x: memref<48x4xf32>, %w: memref<4x8xf32>, %f: memref<3x3x8x1xf32>, %o: memref<1x3x4x8xf32>, %s: memref<8xf32>, %b: memref<8xf32>) {
  // CHECK: call @kiln_kernel_matmul_epilogue_f32
  // CHECK: call @kiln_kernel_matmul_f32
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32
  // CHECK-NOT: pointwise_depthwise
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c7 = arith.constant 7 : i64
  %c6 = arith.constant 6 : i64
  %c48 = arith.constant 48 : i64
  %c64 = arith.constant 64 : i64
  %ow = arith.constant 4 : i32
  %dwflags = arith.constant 3 : i32
  %dwacc = arith.constant 2 : i32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %mid = memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
  %flat = memref.collapse_shape %mid [[0, 1, 2], [3]] : memref<1x6x8x8xf32> into memref<48x8xf32>
  %px = memref.extract_aligned_pointer_as_index %x : memref<48x4xf32> -> index
  %ax = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<4x8xf32> -> index
  %aw = arith.index_cast %pw : index to i64
  %pc = memref.extract_aligned_pointer_as_index %flat : memref<48x8xf32> -> index
  %ac = arith.index_cast %pc : index to i64
  %ps = memref.extract_aligned_pointer_as_index %s : memref<8xf32> -> index
  %as = arith.index_cast %ps : index to i64
  %pb = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  %ab = arith.index_cast %pb : index to i64
  call @kiln_kernel_matmul_epilogue_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow, %as, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  call @kiln_kernel_matmul_f32(%ax, %aw, %ac, %c48, %c8, %c4, %ow) : (i64, i64, i64, i64, i64, i64, i32) -> ()
  %pi = memref.extract_aligned_pointer_as_index %mid : memref<1x6x8x8xf32> -> index
  %ai = arith.index_cast %pi : index to i64
  %pf = memref.extract_aligned_pointer_as_index %f : memref<3x3x8x1xf32> -> index
  %af = arith.index_cast %pf : index to i64
  %po = memref.extract_aligned_pointer_as_index %o : memref<1x3x4x8xf32> -> index
  %ao = arith.index_cast %po : index to i64
  call @kiln_kernel_depthwise_conv2d_f32(%ai, %af, %ao, %c1, %c6, %c8, %c8, %c1, %c3, %c3, %c3, %c4, %c2, %c2, %c1, %c1, %c0, %c0, %dwflags, %ab, %one, %ab, %zero, %zero, %six) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32) -> ()
  return
}
