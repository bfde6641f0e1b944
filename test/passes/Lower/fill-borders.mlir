// RUN: kiln-opt %s --kiln-lower-fill-borders --split-input-file | FileCheck %s

// A padded buffer (tensor.pad bufferized: fill, then the input copied into the interior):
// only the border is filled, rows 0 and 3 whole, then columns 0 and 5 of rows 1-2.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: linalg.map
// CHECK: %[[TOP:.*]] = memref.subview %arg1[0, 0, 0, 0] [1, 1, 6, 8] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]] :
// CHECK-NEXT: %[[BOTTOM:.*]] = memref.subview %arg1[0, 3, 0, 0] [1, 1, 6, 8] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[BOTTOM]] :
// CHECK-NEXT: %[[LEFT:.*]] = memref.subview %arg1[0, 1, 0, 0] [1, 2, 1, 8] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[LEFT]] :
// CHECK-NEXT: %[[RIGHT:.*]] = memref.subview %arg1[0, 1, 5, 0] [1, 2, 1, 8] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[RIGHT]] :
// CHECK-NOT: linalg.fill
// CHECK: memref.copy %arg0, %{{.*}} : memref<1x2x4x8xf32> to memref<1x2x4x8xf32, strided<[192, 48, 8, 1], offset: 56>>
func.func @padded(%x: memref<1x2x4x8xf32>, %padded: memref<1x4x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.map outs(%padded : memref<1x4x6x8xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %interior = memref.subview %padded[0, 1, 1, 0] [1, 2, 4, 8] [1, 1, 1, 1]
      : memref<1x4x6x8xf32> to memref<1x2x4x8xf32, strided<[192, 48, 8, 1], offset: 56>>
  memref.copy %x, %interior : memref<1x2x4x8xf32> to memref<1x2x4x8xf32, strided<[192, 48, 8, 1], offset: 56>>
  return
}

// -----

// Padding along one dimension only (a 1x7 convolution's input): two slabs.
// CHECK-LABEL: func.func @one_dimension
// CHECK: memref.subview %arg1[0, 0, 0, 0] [1, 5, 3, 4] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.subview %arg1[0, 0, 8, 0] [1, 5, 3, 4] [1, 1, 1, 1]
// CHECK-NEXT: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: memref.copy
func.func @one_dimension(%x: memref<1x5x5x4xf32>, %padded: memref<1x5x11x4xf32>) {
  %minus = arith.constant -1.0 : f32
  linalg.fill ins(%minus : f32) outs(%padded : memref<1x5x11x4xf32>)
  %interior = memref.subview %padded[0, 0, 3, 0] [1, 5, 5, 4] [1, 1, 1, 1]
      : memref<1x5x11x4xf32> to memref<1x5x5x4xf32, strided<[220, 44, 4, 1], offset: 12>>
  memref.copy %x, %interior : memref<1x5x5x4xf32> to memref<1x5x5x4xf32, strided<[220, 44, 4, 1], offset: 12>>
  return
}

// -----

// The buffer is read between the fill and the copy, the copy writes another buffer, or
// the copy's source is a view of the filled buffer itself: the whole buffer stays filled
// (a linalg.map fill as linalg.fill).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: linalg.map
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<4x6xf32>)
// CHECK-NEXT: memref.copy %arg1, %arg2
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<4x6xf32>)
// CHECK-NEXT: memref.subview %arg3
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<4x6xf32>)
// CHECK-NEXT: memref.subview %arg1[0, 0] [2, 4]
// CHECK-NEXT: memref.subview %arg1[1, 1] [2, 4]
// CHECK-NEXT: memref.copy
func.func @kept(%x: memref<2x4xf32>, %padded: memref<4x6xf32>, %y: memref<4x6xf32>,
                %other: memref<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.map outs(%padded : memref<4x6xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  memref.copy %padded, %y : memref<4x6xf32> to memref<4x6xf32>
  %interior = memref.subview %padded[1, 1] [2, 4] [1, 1]
      : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %interior : memref<2x4xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<4x6xf32>)
  %elsewhere = memref.subview %other[1, 1] [2, 4] [1, 1]
      : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %x, %elsewhere : memref<2x4xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  linalg.fill ins(%zero : f32) outs(%padded : memref<4x6xf32>)
  %corner = memref.subview %padded[0, 0] [2, 4] [1, 1]
      : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1]>>
  %interior2 = memref.subview %padded[1, 1] [2, 4] [1, 1]
      : memref<4x6xf32> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %corner, %interior2 : memref<2x4xf32, strided<[6, 1]>> to memref<2x4xf32, strided<[6, 1], offset: 7>>
  return
}
