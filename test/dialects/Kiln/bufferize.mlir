// Tests that kiln.send and kiln.recv bufferize: send reads the buffer of its tensor, recv
// writes the buffer of its destination, which its result then is (here the function's
// output, so nothing is copied).
// RUN: kiln-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" %s | FileCheck %s

// CHECK-LABEL: func.func @part(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT: kiln.send %[[X]] as "a" : memref<4xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK-NEXT: kiln.recv "b" into %[[B]] : memref<4xf32>
// CHECK-NEXT: return %[[B]]
func.func @part(%x: tensor<4xf32>) -> tensor<4xf32> {
  kiln.send %x as "a" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = kiln.recv "b" into %e : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Tests that kiln.check bufferizes to a read of its operand's buffer: nothing is copied.
// CHECK-LABEL: func.func @check(
// CHECK-SAME: %[[Y:.*]]: memref<4xi32>)
// CHECK-NEXT: kiln.check "nonzero" %[[Y]], "m" : memref<4xi32>
// CHECK-NEXT: return
func.func @check(%y: tensor<4xi32>) {
  kiln.check "nonzero" %y, "m" : tensor<4xi32>
  return
}
