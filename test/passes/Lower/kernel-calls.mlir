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
// before it goes, and the call overwrites (flag 1). min-flops does not apply: the kernel
// beats the loops at every size.
// CHECK: func.func private @kiln_kernel_depthwise_conv2d_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32)
// CHECK-LABEL: func.func @depthwise
// SMALL-LABEL: func.func @depthwise
// SMALL: call @kiln_kernel_depthwise_conv2d_f32
func.func @depthwise(%x: memref<1x5x5x3xf32>, %w: memref<3x3x3x1xf32>, %y: memref<1x3x3x3x1xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK-DAG: %[[PX:.*]] = memref.extract_aligned_pointer_as_index %arg0
  // CHECK-DAG: %[[PW:.*]] = memref.extract_aligned_pointer_as_index %arg1
  // CHECK-DAG: %[[PY:.*]] = memref.extract_aligned_pointer_as_index %arg2
  // CHECK: call @kiln_kernel_depthwise_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c5_i64, %c5_i64_{{.*}}, %c3_i64, %c1_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c3_i64_{{.*}}, %c2_i64, %c2_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i64_{{.*}}, %c1_i32)
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
