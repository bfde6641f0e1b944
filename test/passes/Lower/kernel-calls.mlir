// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="min-flops=100000" %s | FileCheck %s --check-prefix=SMALL
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="strict-float=true" %s | FileCheck %s --check-prefix=STRICT
// RUN: kiln-opt --split-input-file --kiln-lower-kernel-calls="allow-tf32=true" %s | FileCheck %s --check-prefix=TF32

#a = affine_map<(d0, d1, d2) -> (d1, d0)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that a bufferized f32 matmul generic (A transposed) becomes a kernel call of
// matmul_f32 on its buffers with m, n, k and the transpose flag; under min-flops it stays a
// loop, marked kiln.small_product for --stats.
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @matmul
// SMALL-LABEL: func.func @matmul
func.func @matmul(%a: memref<40x32xf32>, %b: memref<40x48xf32>, %c: memref<32x48xf32>) {
  // CHECK: kiln.kernel_call "matmul_f32" ins(%arg0, %arg1 : memref<40x32xf32>, memref<40x48xf32>) outs(%arg2 : memref<32x48xf32>)
  // CHECK-SAME: params {k = 40 : i64, m = 32 : i64, n = 48 : i64, transpose_a}
  // CHECK-NOT: linalg.generic
  // SMALL: linalg.generic
  // SMALL-SAME: kiln.small_product
  // SMALL-NOT: kernel_call
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
#bt = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

memref.global "private" constant @w_t : memref<256x512xf32> = dense<0.5>

// Tests the few-row kernel's choice by shape: products of at most 3 rows get few_rows with
// B as stored (not transposed) or a constant (packed later), not with a fed B stored
// transposed; 4 rows take the GEMM's own paths.
// CHECK-LABEL: func.func @few_rows
// SMALL-LABEL: func.func @few_rows
func.func @few_rows(%a1: memref<1x512xf32>, %a3: memref<3x512xf32>, %a4: memref<4x512xf32>,
                    %b: memref<512x256xf32>, %bt: memref<256x512xf32>, %c1: memref<1x256xf32>,
                    %c3: memref<3x256xf32>, %c4: memref<4x256xf32>, %d1: memref<1x256xf32>,
                    %e1: memref<1x256xf32>) {
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} params {few_rows, k = 512 : i64, m = 1 : i64, n = 256 : i64}
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} params {few_rows, k = 512 : i64, m = 3 : i64, n = 256 : i64}
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} params {k = 512 : i64, m = 4 : i64, n = 256 : i64}
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} params {k = 512 : i64, m = 1 : i64, n = 256 : i64, transpose_b}
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} params {few_rows, k = 512 : i64, m = 1 : i64, n = 256 : i64, transpose_b}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a1, %b : memref<1x512xf32>, memref<512x256xf32>) outs(%c1 : memref<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a3, %b : memref<3x512xf32>, memref<512x256xf32>) outs(%c3 : memref<3x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a4, %b : memref<4x512xf32>, memref<512x256xf32>) outs(%c4 : memref<4x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a1, %bt : memref<1x512xf32>, memref<256x512xf32>) outs(%d1 : memref<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %w = memref.get_global @w_t : memref<256x512xf32>
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a1, %w : memref<1x512xf32>, memref<256x512xf32>) outs(%e1 : memref<1x256xf32>) {
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
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} outs(%arg2 : {{.*}}) params {k = 40 : i64, m = 32 : i64, n = 48 : i64, overwrite}
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
  // CHECK: kiln.kernel_call "matmul_f32" {{.*}} outs(%arg3 : {{.*}}) params {k = 40 : i64, m = 32 : i64, n = 48 : i64}
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
// kernel with the image its body loads, the filter and the output, n, h, w, c, m, kh, kw, oh,
// ow and the window (strides, dilations, pads before); the zero fill of the output before
// it goes, and the call overwrites; there is no epilogue to fuse. min-flops does not apply:
// the kernel beats the loops at every size.
// CHECK-LABEL: func.func @depthwise
// SMALL-LABEL: func.func @depthwise
// SMALL: kiln.kernel_call "depthwise_conv2d_f32"
func.func @depthwise(%x: memref<1x5x5x3xf32>, %w: memref<3x3x3x1xf32>, %y: memref<1x3x3x3x1xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK: kiln.kernel_call "depthwise_conv2d_f32" ins(%arg0, %arg1 : memref<1x5x5x3xf32>, memref<3x3x3x1xf32>) outs(%arg2 : memref<1x3x3x3x1xf32>)
  // CHECK-SAME: params {c = 3 : i64, dilations = array<i64: 1, 1>, h = 5 : i64, kh = 3 : i64, kw = 3 : i64, m = 1 : i64, n = 1 : i64, oh = 3 : i64, overwrite, ow = 3 : i64, pad = array<i64: 1, 1>, strides = array<i64: 2, 2>, w = 5 : i64}
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
// reads the scale and bias buffers (inputs 2 and 3) and clamps to [0, 6], and the
// elementwise op and the product's own buffer go.
// CHECK-LABEL: func.func @epilogue
func.func @epilogue(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %s: memref<48xf32>, %t: memref<48xf32>) -> memref<32x48xf32> {
  // CHECK: %[[Y:.*]] = memref.alloc() : memref<32x48xf32>
  // CHECK-NOT: memref.alloc
  // CHECK: kiln.kernel_call "matmul_epilogue_f32" ins(%arg0, %arg1, %arg2, %arg3 : memref<32x40xf32>, memref<40x48xf32>, memref<48xf32>, memref<48xf32>) outs(%[[Y]] : memref<32x48xf32>)
  // CHECK-SAME: params {epilogue = #kiln.epilogue<scale = input 2, bias = input 3, lo = 0.000000e+00, hi = 6.000000e+00>, k = 40 : i64, m = 32 : i64, n = 48 : i64, overwrite}
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
#ch = affine_map<(d0, d1) -> (d1)>

// Tests that a batch norm and Swish after a product, as the Sigmoid and Mul lowerings leave
// y * sigmoid(y) (y / (1 + exp(-y)) in @swish_div), become the product's epilogue with
// `swish`; with strict-float (libm's exp) the elementwise op stays whole and the product
// has no epilogue.
// CHECK-LABEL: func.func @swish
// CHECK: kiln.kernel_call "matmul_epilogue_f32" ins(%arg0, %arg1, %arg2, %arg3 : memref<32x40xf32>, memref<40x48xf32>, memref<48xf32>, memref<48xf32>)
// CHECK-SAME: epilogue = #kiln.epilogue<scale = input 2, bias = input 3, swish>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @swish_div
// CHECK: kiln.kernel_call "matmul_epilogue_f32" ins(%arg0, %arg1, %arg2 : memref<32x40xf32>, memref<40x48xf32>, memref<48xf32>)
// CHECK-SAME: epilogue = #kiln.epilogue<bias = input 2, swish>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @not_swish
// CHECK: kiln.kernel_call "matmul_f32"
// CHECK: linalg.generic
// STRICT-LABEL: func.func @swish
// STRICT: kiln.kernel_call "matmul_f32"
// STRICT: linalg.generic
// STRICT: math.exp
func.func @swish(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %s: memref<48xf32>, %t: memref<48xf32>) -> memref<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
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
    %2 = arith.negf %1 : f32
    %3 = math.exp %2 : f32
    %4 = arith.addf %3, %one : f32
    %5 = arith.divf %one, %4 : f32
    %6 = arith.mulf %1, %5 : f32
    linalg.yield %6 : f32
  }
  return %y : memref<32x48xf32>
}

func.func @swish_div(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %t: memref<48xf32>) -> memref<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
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
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<32x48xf32>, memref<48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %tv: f32, %o: f32):
    %1 = arith.addf %v, %tv : f32
    %2 = arith.negf %1 : f32
    %3 = math.exp %2 : f32
    %4 = arith.addf %one, %3 : f32
    %5 = arith.divf %1, %4 : f32
    linalg.yield %5 : f32
  }
  return %y : memref<32x48xf32>
}

// Tests that a sigmoid alone (1 / (1 + exp(-y)), not multiplied by y) is not taken for Swish.
func.func @not_swish(%a: memref<32x40xf32>, %b: memref<40x48xf32>) -> memref<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
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
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %o: f32):
    %2 = arith.negf %v : f32
    %3 = math.exp %2 : f32
    %4 = arith.addf %3, %one : f32
    %5 = arith.divf %one, %4 : f32
    linalg.yield %5 : f32
  }
  return %y : memref<32x48xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that a residual addition (a second full-size input, of the output's type, in a
// buffer of its own) becomes the epilogue of the residual kernel, which reads it as input 2.
// CHECK-LABEL: func.func @residual
func.func @residual(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %r: memref<32x48xf32>) -> memref<32x48xf32> {
  // CHECK: %[[Y:.*]] = memref.alloc() : memref<32x48xf32>
  // CHECK: kiln.kernel_call "matmul_residual_f32" ins(%arg0, %arg1, %arg2 : memref<32x40xf32>, memref<40x48xf32>, memref<32x48xf32>) outs(%[[Y]] : memref<32x48xf32>)
  // CHECK-SAME: params {epilogue = #kiln.epilogue<>, k = 40 : i64, m = 32 : i64, n = 48 : i64, overwrite}
  // CHECK-NOT: linalg.generic
  // CHECK: return %[[Y]]
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

// Tests that every function of the module (the partitions of a model) gets its kernel calls.
// CHECK-LABEL: func.func @part0
// CHECK: kiln.kernel_call "matmul_f32"
// CHECK-LABEL: func.func @part1
// CHECK: kiln.kernel_call "matmul_f32"
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
// Winograd kernel with the image, the filter and the output, n, h, w, c, f, oh, ow and the
// pads before; with the zero fill gone (overwrite) and a BiasAdd + Relu after it, the
// kernel applies them (its epilogue reads the bias, input 2) and writes the Relu's output.
// CHECK-LABEL: func.func @conv3x3
func.func @conv3x3(%x: memref<2x6x5x16xf32>, %w: memref<3x3x16x24xf32>, %b: memref<24xf32>, %out: memref<2x6x5x24xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK: kiln.kernel_call "conv2d_3x3_f32" ins(%arg0, %arg1, %arg2 : memref<2x6x5x16xf32>, memref<3x3x16x24xf32>, memref<24xf32>) outs(%arg3 : memref<2x6x5x24xf32>)
  // CHECK-SAME: params {c = 16 : i64, epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>, f = 24 : i64, h = 6 : i64, n = 2 : i64, oh = 6 : i64, overwrite, ow = 5 : i64, pad = array<i64: 1, 1>, w = 5 : i64}
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
// with the image and the output, n, h, w, c, oh, ow, the window, the strides and the pads
// before; the -inf fill before it and the window buffer go.
// CHECK-LABEL: func.func @max_pool
func.func @max_pool(%x: memref<2x7x6x5xf32>, %y: memref<2x4x3x5xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: linalg.fill
  // CHECK: kiln.kernel_call "max_pool2d_f32" ins(%arg0 : memref<2x7x6x5xf32>) outs(%arg1 : memref<2x4x3x5xf32>)
  // CHECK-SAME: params {c = 5 : i64, h = 7 : i64, n = 2 : i64, oh = 4 : i64, ow = 3 : i64, pad = array<i64: 1, 0>, strides = array<i64: 2, 2>, w = 6 : i64, window = array<i64: 3, 3>}
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
// kernel with the image, the filter and the output, n, h, w, c, f, kh, kw, oh, ow, the
// strides, dilations and pads before; the zero fill goes (overwrite).
// CHECK-LABEL: func.func @conv_direct
func.func @conv_direct(%x: memref<1x9x9x3xf32>, %w: memref<3x3x3x8xf32>, %y: memref<1x5x5x8xf32>) {
  // CHECK-NOT: linalg.fill
  // CHECK: kiln.kernel_call "conv2d_direct_f32" ins(%arg0, %arg1 : memref<1x9x9x3xf32>, memref<3x3x3x8xf32>) outs(%arg2 : memref<1x5x5x8xf32>)
  // CHECK-SAME: params {c = 3 : i64, dilations = array<i64: 1, 1>, f = 8 : i64, h = 9 : i64, kh = 3 : i64, kw = 3 : i64, n = 1 : i64, oh = 5 : i64, overwrite, ow = 5 : i64, pad = array<i64: 1, 1>, strides = array<i64: 2, 2>, w = 9 : i64}
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
// its BiasAdd + Relu epilogue) is computed by the kernel: one call with overwrite, the
// epilogue and max_pool writing the pool's output (oh and ow stay the unpooled sizes); the
// result's buffers, the pool and its fill go. A 3x3 pool of the same result stays a call of
// its own.
// CHECK-LABEL: func.func @conv_pool
func.func @conv_pool(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16x16xf32>, %b: memref<16xf32>, %out: memref<1x3x3x16xf32>) {
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: linalg
  // CHECK: kiln.kernel_call "conv2d_3x3_f32" ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%arg3 : memref<1x3x3x16xf32>)
  // CHECK-SAME: params {c = 16 : i64, epilogue = #kiln.epilogue<bias = input 2, lo = 0.000000e+00>, f = 16 : i64, h = 6 : i64, max_pool, n = 1 : i64, oh = 6 : i64, overwrite, ow = 6 : i64, pad = array<i64: 1, 1>, w = 6 : i64}
  // CHECK-NOT: max_pool2d_f32
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
  // CHECK: kiln.kernel_call "conv2d_3x3_f32" {{.*}} params {c = 16 : i64, f = 16 : i64, h = 6 : i64, n = 1 : i64, oh = 6 : i64, overwrite, ow = 6 : i64, pad = array<i64: 1, 1>, w = 6 : i64}
  // CHECK: kiln.kernel_call "max_pool2d_f32"
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

// -----

#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>

// Tests that a batched product (an attention's scores: batch 2 x 4 heads, B read
// transposed) becomes one call of batch_matmul_f32 over the 8 products, overwriting after
// its zero fill.
// CHECK-LABEL: func.func @attention_scores
func.func @attention_scores(%q: memref<2x4x16x8xf32>, %k: memref<2x4x24x8xf32>,
                            %s: memref<2x4x16x24xf32>) {
  // CHECK-NOT: linalg
  // CHECK: kiln.kernel_call "batch_matmul_f32" ins(%arg0, %arg1 : memref<2x4x16x8xf32>, memref<2x4x24x8xf32>) outs(%arg2 : memref<2x4x16x24xf32>)
  // CHECK-SAME: params {batch = 8 : i64, k = 8 : i64, m = 16 : i64, n = 24 : i64, overwrite, transpose_b}
  // CHECK-NOT: linalg
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2x4x16x24xf32>)
  linalg.generic {indexing_maps = [#q, #k, #s],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%q, %k : memref<2x4x16x8xf32>, memref<2x4x24x8xf32>) outs(%s : memref<2x4x16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#bz = affine_map<(d0, d1, d2, d3) -> (0, d2, d3)>
#at = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
#b3 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bad = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>

// Tests the batch operands' forms: one B for every product (rank 2, or a batch dimension
// of 1 read at 0) is broadcast_b, A read transposed is transpose_a, and a C that is not
// (batch, m, n) stays a loop.
// CHECK-LABEL: func.func @batch_forms
func.func @batch_forms(%a: memref<3x20x30xf32>, %b: memref<30x40xf32>, %b1: memref<1x30x40xf32>,
                       %at: memref<3x30x20xf32>, %b3: memref<3x30x40xf32>,
                       %c: memref<3x20x40xf32>, %ct: memref<3x40x20xf32>) {
  // CHECK: kiln.kernel_call "batch_matmul_f32" ins(%arg0, %arg1 : {{.*}}) outs(%arg5 : {{.*}}) params {batch = 3 : i64, broadcast_b, k = 30 : i64, m = 20 : i64, n = 40 : i64}
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<3x20x30xf32>, memref<30x40xf32>) outs(%c : memref<3x20x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  // CHECK: kiln.kernel_call "batch_matmul_f32" ins(%arg0, %arg2 : {{.*}}) outs(%arg5 : {{.*}}) params {batch = 3 : i64, broadcast_b, k = 30 : i64, m = 20 : i64, n = 40 : i64}
  linalg.generic {indexing_maps = [#a, #bz, #c],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b1 : memref<3x20x30xf32>, memref<1x30x40xf32>) outs(%c : memref<3x20x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  // CHECK: kiln.kernel_call "batch_matmul_f32" ins(%arg3, %arg4 : {{.*}}) outs(%arg5 : {{.*}}) params {batch = 3 : i64, k = 30 : i64, m = 20 : i64, n = 40 : i64, transpose_a}
  linalg.generic {indexing_maps = [#at, #b3, #c],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%at, %b3 : memref<3x30x20xf32>, memref<3x30x40xf32>) outs(%c : memref<3x20x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  // CHECK: linalg.generic
  // CHECK-NOT: kernel_call
  linalg.generic {indexing_maps = [#a, #b3, #bad],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b3 : memref<3x20x30xf32>, memref<3x30x40xf32>) outs(%ct : memref<3x40x20xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>

// Tests that a convolution writing a strided view (its channel slice of a concatenation,
// as bufferization places it) keeps its kernel: the kernel overwrites a contiguous buffer
// of its own, copied into the slice after the call. Without the zero fill (the kernel
// accumulates), the slice is first copied into that buffer.
// CHECK-LABEL: func.func @conv_into_slice
func.func @conv_into_slice(%x: memref<1x6x5x16xf32>, %w: memref<3x3x16x24xf32>, %concat: memref<1x6x5x40xf32>) {
  // CHECK: %[[SLICE:.*]] = memref.subview %arg2[0, 0, 0, 16] [1, 6, 5, 24] [1, 1, 1, 1]
  // CHECK-NOT: linalg.fill
  // CHECK: %[[BUF:.*]] = memref.alloc() : memref<1x6x5x24xf32>
  // CHECK-NEXT: kiln.kernel_call "conv2d_3x3_f32" ins(%arg0, %arg1 : memref<1x6x5x16xf32>, memref<3x3x16x24xf32>) outs(%[[BUF]] : memref<1x6x5x24xf32>)
  // CHECK-SAME: overwrite
  // CHECK-NEXT: memref.copy %[[BUF]], %[[SLICE]] : memref<1x6x5x24xf32> to memref<1x6x5x24xf32, strided<[1200, 200, 40, 1], offset: 16>>
  // CHECK: %[[BUF2:.*]] = memref.alloc() : memref<1x6x5x24xf32>
  // CHECK-NEXT: memref.copy %[[SLICE]], %[[BUF2]]
  // CHECK-NEXT: kiln.kernel_call "conv2d_3x3_f32" {{.*}} outs(%[[BUF2]] : memref<1x6x5x24xf32>)
  // CHECK-NOT: overwrite
  // CHECK-NEXT: memref.copy %[[BUF2]], %[[SLICE]]
  // CHECK-NOT: linalg.generic
  %zero = arith.constant 0.0 : f32
  %slice = memref.subview %concat[0, 0, 0, 16] [1, 6, 5, 24] [1, 1, 1, 1]
      : memref<1x6x5x40xf32> to memref<1x6x5x24xf32, strided<[1200, 200, 40, 1], offset: 16>>
  linalg.fill ins(%zero : f32) outs(%slice : memref<1x6x5x24xf32, strided<[1200, 200, 40, 1], offset: 16>>)
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x16x24xf32>) outs(%slice : memref<1x6x5x24xf32, strided<[1200, 200, 40, 1], offset: 16>>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x6x5x16xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%w : memref<3x3x16x24xf32>) outs(%slice : memref<1x6x5x24xf32, strided<[1200, 200, 40, 1], offset: 16>>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>} {
  ^bb0(%in: f32, %acc: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %c = linalg.index 5 : index
    %v = memref.load %x[%n, %h, %h, %c] : memref<1x6x5x16xf32>
    %p = arith.mulf %v, %in : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that a product reading a contiguous view at a run-time offset (an RNN's input at
// step i, a TensorList element) calls the kernel; a view whose rows are apart does not.
// CHECK-LABEL: func.func @offset_input
// CHECK: kiln.kernel_call "matmul_f32" ins(%{{.*}}, %arg2 : memref<16x64xf32, strided<[64, 1], offset: ?>>, memref<64x128xf32>)
// CHECK: linalg.generic
func.func @offset_input(%list: memref<50x16x64xf32>, %i: index, %w: memref<64x128xf32>, %c: memref<16x128xf32>, %wide: memref<16x128xf32>) {
  %x = memref.subview %list[%i, 0, 0] [1, 16, 64] [1, 1, 1] : memref<50x16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %w : memref<16x64xf32, strided<[64, 1], offset: ?>>, memref<64x128xf32>) outs(%c : memref<16x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %y = memref.subview %wide[0, 0] [16, 64] [1, 1] : memref<16x128xf32> to memref<16x64xf32, strided<[128, 1]>>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y, %w : memref<16x64xf32, strided<[128, 1]>>, memref<64x128xf32>) outs(%c : memref<16x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
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

// Tests a ResNet block's end: relu(r + (c * s + t)) written over the shortcut r itself (as
// bufferization leaves it), the product's result read as the generic's second input.
// With one depth slice (k = 40) the kernel reads the residual in place: one call whose
// output and residual are r. With k = 600 (two slices) it would store partial sums over r first: the
// elementwise op stays. An addition of the residual before the bias is not the
// epilogue's order (its rounding differs): it stays too.
// CHECK-LABEL: func.func @residual_in_place
// CHECK: kiln.kernel_call "matmul_residual_f32" ins(%arg0, %arg1, %arg4, %arg2, %arg3 : memref<32x40xf32>, memref<40x48xf32>, memref<32x48xf32>, memref<48xf32>, memref<48xf32>) outs(%arg4 : memref<32x48xf32>)
// CHECK-SAME: params {epilogue = #kiln.epilogue<scale = input 3, bias = input 4, lo = 0.000000e+00>, k = 40 : i64, m = 32 : i64, n = 48 : i64, overwrite}
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @residual_in_place_deep
// CHECK: kiln.kernel_call "matmul_f32"
// CHECK: linalg.generic
// CHECK-LABEL: func.func @residual_before_bias
// CHECK: kiln.kernel_call "matmul_f32"
// CHECK: linalg.generic
// CHECK-LABEL: func.func @residual_written_after
// CHECK: kiln.kernel_call "matmul_f32"
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @residual_in_place(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %s: memref<48xf32>, %t: memref<48xf32>, %r: memref<32x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c, %s, %t : memref<32x48xf32>, memref<32x48xf32>, memref<48xf32>, memref<48xf32>) outs(%r : memref<32x48xf32>) {
  ^bb0(%rv: f32, %v: f32, %sv: f32, %tv: f32, %o: f32):
    %0 = arith.mulf %v, %sv : f32
    %1 = arith.addf %0, %tv : f32
    %2 = arith.addf %rv, %1 : f32
    %3 = arith.maximumf %2, %zero : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @residual_in_place_deep(%a: memref<32x600xf32>, %b: memref<600x48xf32>, %s: memref<48xf32>, %t: memref<48xf32>, %r: memref<32x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x600xf32>, memref<600x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c, %s, %t : memref<32x48xf32>, memref<32x48xf32>, memref<48xf32>, memref<48xf32>) outs(%r : memref<32x48xf32>) {
  ^bb0(%rv: f32, %v: f32, %sv: f32, %tv: f32, %o: f32):
    %0 = arith.mulf %v, %sv : f32
    %1 = arith.addf %0, %tv : f32
    %2 = arith.addf %rv, %1 : f32
    %3 = arith.maximumf %2, %zero : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @residual_before_bias(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %t: memref<48xf32>, %r: memref<32x48xf32>) -> memref<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  %y = memref.alloc() : memref<32x48xf32>
  linalg.generic {indexing_maps = [#id, #id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r, %t : memref<32x48xf32>, memref<32x48xf32>, memref<48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %rv: f32, %tv: f32, %o: f32):
    %0 = arith.addf %v, %rv : f32
    %1 = arith.addf %0, %tv : f32
    linalg.yield %1 : f32
  }
  return %y : memref<32x48xf32>
}
func.func @residual_written_after(%a: memref<32x40xf32>, %b: memref<40x48xf32>, %x: memref<1536xf32>) -> memref<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x48xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<32x40xf32>, memref<40x48xf32>) outs(%c : memref<32x48xf32>) {
  ^bb0(%xa: f32, %w: f32, %acc: f32):
    %p = arith.mulf %xa, %w : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  }
  // The shortcut is computed after the product, into a buffer seen through a view: the
  // kernel, where the product is, would read it before it is written.
  %rbuf = memref.alloc() : memref<1536xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<1536xf32>) outs(%rbuf : memref<1536xf32>) {
  ^bb0(%xv: f32, %o: f32):
    %n = arith.negf %xv : f32
    linalg.yield %n : f32
  }
  %r = memref.expand_shape %rbuf [[0, 1]] output_shape [32, 48] : memref<1536xf32> into memref<32x48xf32>
  %y = memref.alloc() : memref<32x48xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<32x48xf32>, memref<32x48xf32>) outs(%y : memref<32x48xf32>) {
  ^bb0(%v: f32, %rv: f32, %o: f32):
    %0 = arith.addf %v, %rv : f32
    linalg.yield %0 : f32
  }
  return %y : memref<32x48xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#e = affine_map<(d0, d1) -> (d0, d1)>

// Tests that in a function placed on a GPU a product, however small, becomes a call of
// cuBLAS (gpu_matmul_f32, its zero fill folded into overwrite), with no epilogue: the Relu
// after it stays a generic for kiln-gpu-kernels; nothing calls a CPU kernel there.
// CHECK-LABEL: func.func @on_gpu
// SMALL-LABEL: func.func @on_gpu
func.func @on_gpu(%a: memref<2x3xf32>, %b: memref<4x3xf32>, %c: memref<2x4xf32>, %d: memref<2x4xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // CHECK-NOT: linalg.fill
  // CHECK: kiln.kernel_call "gpu_matmul_f32" ins(%arg0, %arg1 : memref<2x3xf32>, memref<4x3xf32>) outs(%arg2 : memref<2x4xf32>)
  // CHECK-SAME: params {k = 3 : i64, m = 2 : i64, n = 4 : i64, overwrite, transpose_b}
  // CHECK-NEXT: linalg.generic
  // CHECK: arith.maximumf
  // CHECK-NOT: kernel_call
  // SMALL: kiln.kernel_call "gpu_matmul_f32"
  // TF32-LABEL: func.func @on_gpu
  // TF32: kiln.kernel_call "gpu_matmul_f32"
  // TF32-SAME: params {k = 3 : i64, m = 2 : i64, n = 4 : i64, overwrite, tf32, transpose_b}
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<2x3xf32>, memref<4x3xf32>) outs(%c : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#e, #e], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<2x4xf32>) outs(%d : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// Tests that an f16 product on a GPU becomes a call of gpu_matmul_f16 (cuBLAS on f16 data,
// f32 sums), TF32 or not, and that on the CPU it stays a generic (no CPU kernel takes f16).
// CHECK-LABEL: func.func @on_gpu_f16
// CHECK: kiln.kernel_call "gpu_matmul_f16" ins(%arg0, %arg1 : memref<8x16xf16>, memref<16x4xf16>) outs(%arg2 : memref<8x4xf16>)
// CHECK-SAME: params {k = 16 : i64, m = 8 : i64, n = 4 : i64}
// TF32-LABEL: func.func @on_gpu_f16
// TF32: params {k = 16 : i64, m = 8 : i64, n = 4 : i64}
// CHECK-LABEL: func.func @on_cpu_f16
// CHECK-NOT: kernel_call
func.func @on_gpu_f16(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf16>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  }
  return
}
func.func @on_cpu_f16(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf16>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  }
  return
}

// -----

#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2, d3) -> (0, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>

// Tests that a batch of products on a GPU (one b for all: broadcast_b) becomes one call of
// gpu_batch_matmul_f32.
// CHECK-LABEL: func.func @batch_on_gpu
func.func @batch_on_gpu(%a: memref<3x2x4xf32>, %b: memref<1x4x5xf32>, %c: memref<3x2x5xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // CHECK: kiln.kernel_call "gpu_batch_matmul_f32" ins(%arg0, %arg1 : memref<3x2x4xf32>, memref<1x4x5xf32>) outs(%arg2 : memref<3x2x5xf32>)
  // CHECK-SAME: params {batch = 3 : i64, broadcast_b, k = 4 : i64, m = 2 : i64, n = 5 : i64}
  // CHECK-NOT: linalg.generic
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<3x2x4xf32>, memref<1x4x5xf32>) outs(%c : memref<3x2x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
