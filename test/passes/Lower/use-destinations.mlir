// RUN: kiln-opt --split-input-file --kiln-lower-use-destinations %s | FileCheck %s

// Tests that each result becomes a trailing memref argument written in place.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2x2xi32>, %[[O0:.*]]: memref<4xf32>, %[[O1:.*]]: memref<2x2xi32>)
// CHECK-NOT: ->
func.func @main(%x: tensor<4xf32>, %y: tensor<2x2xi32>) -> (tensor<4xf32>, tensor<2x2xi32>) {
  // CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[O0]]
  // CHECK: bufferization.materialize_in_destination %[[Y]] in restrict writable %[[O1]]
  // CHECK: return{{$}}
  return %x, %y : tensor<4xf32>, tensor<2x2xi32>
}

// -----

// Tests that private functions keep their signature.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> tensor<4xf32>
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
