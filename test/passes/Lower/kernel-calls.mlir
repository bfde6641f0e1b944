// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="min-flops=100000" %s | FileCheck %s --check-prefix=SMALL

#a = affine_map<(d0, d1, d2) -> (d1, d0)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that a bufferized f32 matmul generic (A transposed) becomes a kernel call with the
// buffers' addresses, m, n, k and the transpose flag; under min-flops it stays a loop.
// CHECK: func.func private @kiln_kernel_matmul_f32(i64, i64, i64, i64, i64, i64, i32)
// CHECK-LABEL: func.func @matmul
// SMALL-LABEL: func.func @matmul
func.func @matmul(%a: memref<40x32xf32>, %b: memref<40x48xf32>, %c: memref<32x48xf32>) {
  // CHECK-DAG: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %arg0
  // CHECK-DAG: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %arg1
  // CHECK-DAG: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %arg2
  // CHECK-DAG: %[[M:.*]] = arith.constant 32 : i64
  // CHECK-DAG: %[[N:.*]] = arith.constant 48 : i64
  // CHECK-DAG: %[[K:.*]] = arith.constant 40 : i64
  // CHECK-DAG: %[[F:.*]] = arith.constant 1 : i32
  // CHECK: call @kiln_kernel_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[N]], %[[K]], %[[F]])
  // CHECK-NOT: linalg.generic
  // SMALL: linalg.generic
  // SMALL-NOT: call
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<40x32xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that integer products keep their loops (the kernel is f32 only).
// CHECK-LABEL: func.func @int_matmul
func.func @int_matmul(%a: memref<64x64xi32>, %b: memref<64x64xi32>, %c: memref<64x64xi32>) {
  // CHECK: linalg.generic
  // CHECK-NOT: call
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<64x64xi32>, memref<64x64xi32>) outs(%c : memref<64x64xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that a zero fill of C just before the product (only effect-free ops between) is
// dropped and the call overwrites C (flag 4), while a fill of another value, or one with
// a write to C in between, stays and C is accumulated into (flag 0).
// CHECK-LABEL: func.func @overwrite
func.func @overwrite(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %c: memref<32x48xf32>,
                     %d: memref<32x48xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK: %[[F4:.*]] = arith.constant 4 : i32
  // CHECK: call @kiln_kernel_matmul_f32({{.*}}, %[[F4]])
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  %view = memref.collapse_shape %a [[0, 1]] : memref<32x40xf32> into memref<1280xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // CHECK: %[[ONE:.*]] = arith.constant 1.0
  // CHECK: linalg.fill ins(%[[ONE]] : f32) outs(%arg3
  // CHECK: %[[F0:.*]] = arith.constant 0 : i32
  // CHECK: call @kiln_kernel_matmul_f32({{.*}}, %[[F0]])
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%d : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%d : memref<32x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>

// Tests that the depthwise generic marked kiln.depthwise becomes a call of the depthwise
// kernel with the image its body loads, the filter and the output, then n, h, w, c, m, kh,
// kw, oh, ow and the window [strides, dilations, pads before]; the zero fill of the output
// before it goes, and the call overwrites (flag 1); without an epilogue to fuse, the
// epilogue arguments are the identity (no scale, no bias, clamp to [-inf, inf]). min-flops
// does not apply: the kernel beats the loops at every size.
// CHECK: func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
// CHECK-LABEL: func.func @depthwise
// SMALL-LABEL: func.func @depthwise
// SMALL: call @kiln_kernel_depthwise_conv2d_f32
func.func @depthwise(%x: memref<1x5x5x3xf32>, %w: memref<3x3x3x1xf32>, %y: memref<1x3x3x3x1xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK-DAG: %[[PX:.*]] = memref.extract_aligned_pointer_as_index %arg0
  // CHECK-DAG: %[[PW:.*]] = memref.extract_aligned_pointer_as_index %arg1
  // CHECK-DAG: %[[PY:.*]] = memref.extract_aligned_pointer_as_index %arg2
  // CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-DAG: %[[LO:.*]] = arith.constant 0xFF800000 : f32
  // CHECK-DAG: %[[HI:.*]] = arith.constant 0x7F800000 : f32
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c5_i64, %c5_i64_{{.*}}, %c3_i64, %c1_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c2_i64, %c2_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i32, %c0_i64, %[[ONE]], %c0_i64_{{.*}}, %{{.*}}, %[[LO]], %[[HI]])
  // CHECK-NOT: linalg.generic
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x3x3x3x1xf32>)
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
      ins(%w : memref<3x3x3x1xf32>) outs(%y : memref<1x3x3x3x1xf32>) attrs = {kiln.depthwise = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x5x5x3xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#ch = affine_map<(d0, d1) -> (d1)>

// Tests that a per-column scale and bias and a Relu6 after an overwriting product become the
// product's epilogue: the call writes the elementwise op's output (allocated before it now),
// passes the scale and bias buffers and the clamp [0, 6], and the elementwise op and the
// product's own buffer go.
// CHECK: func.func private @kiln_kernel_matmul_epilogue_f32(i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
// CHECK-LABEL: func.func @epilogue
func.func @epilogue(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %s: memref<48xf32>, %t: memref<48xf32>) -> memref<32x48xf32> {
  // CHECK: %[[Y:.*]] = memref.alloc() : memref<32x48xf32>
  // CHECK-NOT: memref.alloc
  // CHECK: %[[PY:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
  // CHECK: %[[Y64:.*]] = arith.index_cast %[[PY]]
  // CHECK: %[[PS:.*]] = memref.extract_aligned_pointer_as_index %arg2
  // CHECK: %[[S64:.*]] = arith.index_cast %[[PS]]
  // CHECK: %[[PT:.*]] = memref.extract_aligned_pointer_as_index %arg3
  // CHECK: %[[T64:.*]] = arith.index_cast %[[PT]]
  // CHECK-NEXT: %[[B0:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
  // CHECK: call @kiln_kernel_matmul_epilogue_f32(%{{.*}}, %{{.*}}, %[[Y64]], %c32_i64, %c48_i64, %c40_i64, %c4_i32, %[[S64]], %{{.*}}, %[[T64]], %[[B0]], %[[ZERO]], %[[SIX]])
  // CHECK-NOT: linalg.generic
  // CHECK: return %[[Y]]
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  %y = memref.alloc() : memref<32x48xf32>
  linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %s, %t : memref<32x48xf32>, memref<48xf32>, memref<48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %sv: f32, %tv: f32, %o: f32):
    %0 = arith.mulf %v, %sv : f32
    %1 = arith.addf %0, %tv : f32
    %2 = arith.maximumf %1, %zero : f32
    %3 = arith.minimumf %2, %six : f32
    linalg.yield %3 : f32
  }
  return %y : memref<32x48xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an elementwise op that is not of the epilogue's form (here a residual
// addition, a second full-size input) stays.
// CHECK-LABEL: func.func @residual
func.func @residual(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %r: memref<32x48xf32>) -> memref<32x48xf32> {
  // CHECK: call @kiln_kernel_matmul_f32(
  // CHECK: linalg.generic
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %y = memref.alloc() : memref<32x48xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<32x48xf32>, memref<32x48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %0 = arith.addf %v, %w : f32
    linalg.yield %0 : f32
  }
  return %y : memref<32x48xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that functions calling the same kernel (the partitions of a model) share one
// declaration of it.
// CHECK-COUNT-1: func.func private @kiln_kernel_matmul_f32(
// CHECK-NOT: func.func private @kiln_kernel_matmul_f32(
// CHECK-LABEL: func.func @part0
// CHECK: call @kiln_kernel_matmul_f32(
// CHECK-LABEL: func.func @part1
// CHECK: call @kiln_kernel_matmul_f32(
func.func @part0(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %c: memref<32x48xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @part1(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %c: memref<32x48xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>

// Tests that the 3x3 convolution generic marked kiln.conv2d_3x3 becomes a call of the
// Winograd kernel with the image, the filter and the output, then n, h, w, c, f, oh, ow and
// the pads before; with the zero fill gone (overwrite, 1) and a BiasAdd + Relu after it,
// the kernel applies them (epilogue, 2) and writes the Relu's output.
// CHECK: func.func private @kiln_kernel_conv2d_3x3_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
// CHECK-LABEL: func.func @conv3x3
func.func @conv3x3(%x: memref<2x6x5x16xf32>, %w: memref<3x3x16x24xf32>, %b: memref<24xf32>, %out: memref<2x6x5x24xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK-DAG: %[[PX:.*]] = memref.extract_aligned_pointer_as_index %arg0
  // CHECK-DAG: %[[PW:.*]] = memref.extract_aligned_pointer_as_index %arg1
  // CHECK-DAG: %[[PO:.*]] = memref.extract_aligned_pointer_as_index %arg3
  // CHECK-DAG: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %arg2
  // CHECK-DAG: %[[IB:.*]] = arith.index_cast %[[PB]] : index to i64
  // CHECK: call @kiln_kernel_conv2d_3x3_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c6_i64, %c5_i64, %c16_i64, %c24_i64, %c6_i64_{{.*}}, %c5_i64_{{.*}}, %c1_i64, %c1_i64_{{.*}}, %c3_i32, %c0_i64, %{{.*}}, %[[IB]], %{{.*}}, %{{.*}}, %{{.*}})
  // CHECK-NOT: linalg.generic
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<2x6x5x24xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x6x5x24xf32>)
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x16x24xf32>) outs(%y : memref<2x6x5x24xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<2x6x5x16xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<2x6x5x24xf32>, memref<24xf32>) outs(%out : memref<2x6x5x24xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
#p = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>

// Tests that the max pool generic marked kiln.max_pool becomes a call of the pooling kernel
// with the image and the output, then n, h, w, c, oh, ow, the window, the strides and the
// pads before; the -inf fill before it and the window buffer go.
// CHECK: func.func private @kiln_kernel_max_pool2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @max_pool
func.func @max_pool(%x: memref<2x7x6x5xf32>, %y: memref<2x4x3x5xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: linalg.fill
  // CHECK-DAG: %[[PX:.*]] = memref.extract_aligned_pointer_as_index %arg0
  // CHECK-DAG: %[[PY:.*]] = memref.extract_aligned_pointer_as_index %arg1
  // CHECK-DAG: %[[IX:.*]] = arith.index_cast %[[PX]] : index to i64
  // CHECK-DAG: %[[IY:.*]] = arith.index_cast %[[PY]] : index to i64
  // CHECK: call @kiln_kernel_max_pool2d_f32(%[[IX]], %[[IY]], %c2_i64, %c7_i64, %c6_i64, %c5_i64, %c4_i64, %c3_i64, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c2_i64_{{.*}}, %c2_i64_{{.*}}, %c1_i64, %c0_i64)
  // CHECK-NOT: linalg.generic
  %neg = arith.constant 0xFF800000 : f32
  %window = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%neg : f32) outs(%y : memref<2x4x3x5xf32>)
  linalg.generic {indexing_maps = [#w, #p], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%window : memref<3x3xf32>) outs(%y : memref<2x4x3x5xf32>) attrs = {kiln.max_pool = array<i64: 3, 3, 2, 2, 1, 0>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<2x7x6x5xf32>
    %m = arith.maximumf %acc, %v : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#fd = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#od = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>

// Tests that the convolution generic marked kiln.conv2d_direct becomes a call of the direct
// kernel with the image, the filter and the output, then n, h, w, c, f, kh, kw, oh, ow, the
// strides, dilations and pads before; the zero fill goes (overwrite, 1).
// CHECK: func.func private @kiln_kernel_conv2d_direct_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, i64, f32, i64, f32, f32, f32)
// CHECK-LABEL: func.func @conv_direct
func.func @conv_direct(%x: memref<1x9x9x3xf32>, %w: memref<3x3x3x8xf32>, %y: memref<1x5x5x8xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK: call @kiln_kernel_conv2d_direct_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c9_i64, %c9_i64_{{.*}}, %c3_i64, %c8_i64, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c5_i64, %c5_i64_{{.*}}, %c2_i64, %c2_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i32, %c0_i64, %{{.*}}, %c0_i64_{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
  // CHECK-NOT: linalg.generic
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x5x5x8xf32>)
  linalg.generic {indexing_maps = [#fd, #od], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x3x8xf32>) outs(%y : memref<1x5x5x8xf32>) attrs = {kiln.conv2d_direct = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x9x9x3xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#f3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#o3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch3 = affine_map<(d0, d1, d2, d3) -> (d3)>
#pw = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
#po = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>

// Tests that a 2x2/2 max pool that alone reads a convolution kernel's result (here through
// its BiasAdd + Relu epilogue) is computed by the kernel: one call with the overwrite,
// epilogue and max pool flags (1 | 2 | 4) writing the pool's output; the result's buffers,
// the pool and its fill go. A 3x3 pool of the same result stays a call of its own.
// CHECK-LABEL: func.func @conv_pool
func.func @conv_pool(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16x16xf32>, %b: memref<16xf32>, %out: memref<1x3x3x16xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: linalg
  // CHECK: %[[PO:.*]] = memref.extract_aligned_pointer_as_index %arg3
  // CHECK: %[[IO:.*]] = arith.index_cast %[[PO]] : index to i64
  // CHECK: call @kiln_kernel_conv2d_3x3_f32(%{{.*}}, %{{.*}}, %[[IO]], %c1_i64, %c6_i64, %c6_i64_{{.*}}, %c16_i64, %c16_i64_{{.*}}, %c6_i64_{{.*}}, %c6_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c7_i32,
  // CHECK-NOT: kiln_kernel_max_pool2d_f32
  // CHECK: return
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %y = memref.alloc() : memref<1x6x6x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x6x6x16xf32>)
  linalg.generic {indexing_maps = [#f3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x16x16xf32>) outs(%y : memref<1x6x6x16xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x6x6x16xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %r = memref.alloc() : memref<1x6x6x16xf32>
  linalg.generic {indexing_maps = [#id3, #ch3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<1x6x6x16xf32>, memref<16xf32>) outs(%r : memref<1x6x6x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  }
  linalg.fill ins(%lowest : f32) outs(%out : memref<1x3x3x16xf32>)
  %window = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [#pw, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%window : memref<2x2xf32>) outs(%out : memref<1x3x3x16xf32>) attrs = {kiln.max_pool = array<i64: 2, 2, 2, 2, 0, 0>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %r[%n, %h, %h, %c] : memref<1x6x6x16xf32>
    %gt = arith.cmpf ogt, %v, %acc : f32
    %m = arith.select %gt, %v, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// CHECK-LABEL: func.func @conv_pool_3x3
func.func @conv_pool_3x3(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16x16xf32>, %out: memref<1x2x2x16xf32>) {
  // CHECK: call @kiln_kernel_conv2d_3x3_f32({{.*}}, %c1_i32,
  // CHECK: call @kiln_kernel_max_pool2d_f32
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x6x6x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x6x6x16xf32>)
  linalg.generic {indexing_maps = [#f3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x16x16xf32>) outs(%y : memref<1x6x6x16xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x6x6x16xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %window = memref.alloc() : memref<3x3xf32>
  linalg.generic {indexing_maps = [#pw, #po], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%window : memref<3x3xf32>) outs(%out : memref<1x2x2x16xf32>) attrs = {kiln.max_pool = array<i64: 3, 3, 2, 2, 0, 0>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %y[%n, %h, %h, %c] : memref<1x6x6x16xf32>
    %gt = arith.cmpf ogt, %v, %acc : f32
    %m = arith.select %gt, %v, %acc : f32
    linalg.yield %m : f32
  }
  return
}
