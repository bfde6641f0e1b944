// RUN: kiln-opt %s --kiln-lower-copies-to-linalg --split-input-file | FileCheck %s

// A copy into a strided view (a padded buffer's interior) whose rows are dense becomes
// loops over the rows around a copy of one dense row each (a memcpy), instead of a call to
// MLIR's memrefCopy.
// CHECK-LABEL: func.func @into_padded
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT: %[[S:.*]] = memref.subview %arg0[%[[I]], 0] [1, 9] [1, 1] : memref<2x9xf32> to memref<9xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[T:.*]] = memref.subview %{{.*}}[%[[I]], 0] [1, 9] [1, 1] : memref<2x9xf32, strided<[11, 1], offset: 12>> to memref<9xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.copy %[[S]], %[[T]]
// CHECK-NOT: linalg.copy
func.func @into_padded(%x: memref<2x9xf32>, %padded: memref<4x11xf32>) {
  %interior = memref.subview %padded[1, 1] [2, 9] [1, 1]
      : memref<4x11xf32> to memref<2x9xf32, strided<[11, 1], offset: 12>>
  memref.copy %x, %interior : memref<2x9xf32> to memref<2x9xf32, strided<[11, 1], offset: 12>>
  return
}

// -----

// A concatenation's channel slice: one loop per spatial dimension (none for the batch of
// 1), each pixel's 32 channels a dense block.
// CHECK-LABEL: func.func @channel_slice
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.subview %arg0[0, %{{.*}}, %{{.*}}, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x7x5x32xf32> to memref<32xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.subview %{{.*}}[0, %{{.*}}, %{{.*}}, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x7x5x32xf32, strided<[2240, 320, 64, 1], offset: 32>> to memref<32xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.copy
func.func @channel_slice(%x: memref<1x7x5x32xf32>, %concat: memref<1x7x5x64xf32>) {
  %slice = memref.subview %concat[0, 0, 0, 32] [1, 7, 5, 32] [1, 1, 1, 1]
      : memref<1x7x5x64xf32> to memref<1x7x5x32xf32, strided<[2240, 320, 64, 1], offset: 32>>
  memref.copy %x, %slice : memref<1x7x5x32xf32> to memref<1x7x5x32xf32, strided<[2240, 320, 64, 1], offset: 32>>
  return
}

// -----

// Rows of fewer than 8 elements, and no dense trailing dimension, become linalg.copy.
// CHECK-LABEL: func.func @small_rows
// CHECK: linalg.copy ins(%arg0 : memref<2x3xf32>) outs(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 6>>)
// CHECK: linalg.copy ins(%{{.*}} : memref<4x1xf32, strided<[5, 1], offset: 2>>) outs(%arg2 : memref<4x1xf32>)
// CHECK-NOT: memref.copy
func.func @small_rows(%x: memref<2x3xf32>, %padded: memref<4x5xf32>, %y: memref<4x1xf32>) {
  %interior = memref.subview %padded[1, 1] [2, 3] [1, 1]
      : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %x, %interior : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  %column = memref.subview %padded[0, 2] [4, 1] [1, 1]
      : memref<4x5xf32> to memref<4x1xf32, strided<[5, 1], offset: 2>>
  memref.copy %column, %y : memref<4x1xf32, strided<[5, 1], offset: 2>> to memref<4x1xf32>
  return
}

// -----

// A copy between dense buffers stays a memref.copy (a memcpy), an offset view's too.
// CHECK-LABEL: func.func @contiguous
// CHECK-NEXT: memref.copy %arg0, %arg1 : memref<2x3xf32> to memref<2x3xf32>
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.copy %arg0, %{{.*}} : memref<2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: 6>>
// CHECK-NOT: linalg.copy
func.func @contiguous(%x: memref<2x3xf32>, %y: memref<2x3xf32>, %z: memref<4x3xf32>) {
  memref.copy %x, %y : memref<2x3xf32> to memref<2x3xf32>
  %rows = memref.subview %z[2, 0] [2, 3] [1, 1] : memref<4x3xf32> to memref<2x3xf32, strided<[3, 1], offset: 6>>
  memref.copy %x, %rows : memref<2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: 6>>
  return
}
