// RUN: kiln-opt --split-input-file --kiln-lower-flatten-empty-arguments %s | FileCheck %s

// Tests that an empty buffer argument of rank 2 or more becomes memref<0xT>, expanded to
// its shape for its uses, and that other arguments (non-empty, or already 1-D) stay.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: memref<0xf32>, %[[V:.*]]: memref<0xi32>, %[[OUT:.*]]: memref<2x3xf32>, %[[E:.*]]: memref<0xf32>)
// CHECK: %[[XS:.*]] = memref.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [2, 0] : memref<0xf32> into memref<2x0xf32>
// CHECK: %[[ES:.*]] = memref.expand_shape %[[E]] {{\[}}[0, 1, 2]] output_shape [0, 5, 16] : memref<0xf32> into memref<0x5x16xf32>
// CHECK: memref.dim %[[XS]]
// CHECK: memref.dim %[[ES]]
// CHECK: memref.dim %[[V]]
func.func @main(%x: memref<2x0xf32>, %v: memref<0xi32>, %out: memref<2x3xf32>, %e: memref<0x5x16xf32>) {
  %c0 = arith.constant 0 : index
  %0 = memref.dim %x, %c0 : memref<2x0xf32>
  %1 = memref.dim %e, %c0 : memref<0x5x16xf32>
  %2 = memref.dim %v, %c0 : memref<0xi32>
  return
}

// -----

// Tests that declarations are left alone.
// CHECK: func.func private @external(memref<2x0xf32>)
func.func private @external(memref<2x0xf32>)
