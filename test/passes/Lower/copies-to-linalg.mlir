// RUN: kiln-opt %s --kiln-lower-copies-to-linalg --split-input-file | FileCheck %s

// A copy into a strided view (a padded buffer's interior) becomes linalg.copy, which the
// LLVM pipeline turns into loops instead of a call to MLIR's memrefCopy.
// CHECK-LABEL: func.func @into_padded
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%arg0 : memref<2x3xf32>) outs(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 6>>)
// CHECK-NOT: memref.copy
func.func @into_padded(%x: memref<2x3xf32>, %padded: memref<4x5xf32>) {
  %interior = memref.subview %padded[1, 1] [2, 3] [1, 1]
      : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %x, %interior : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  return
}

// -----

// Out of a strided view too.
// CHECK-LABEL: func.func @from_column
// CHECK: linalg.copy ins(%{{.*}} : memref<4x1xf32, strided<[5, 1], offset: 2>>) outs(%arg1 : memref<4x1xf32>)
func.func @from_column(%x: memref<4x5xf32>, %y: memref<4x1xf32>) {
  %column = memref.subview %x[0, 2] [4, 1] [1, 1]
      : memref<4x5xf32> to memref<4x1xf32, strided<[5, 1], offset: 2>>
  memref.copy %column, %y : memref<4x1xf32, strided<[5, 1], offset: 2>> to memref<4x1xf32>
  return
}

// -----

// A copy between contiguous buffers stays a memref.copy (a memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK-NEXT: memref.copy %arg0, %arg1 : memref<2x3xf32> to memref<2x3xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%x: memref<2x3xf32>, %y: memref<2x3xf32>) {
  memref.copy %x, %y : memref<2x3xf32> to memref<2x3xf32>
  return
}
