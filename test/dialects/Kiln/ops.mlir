// Round-trips the kiln ops through the printer and the parser (custom and generic forms).
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --mlir-print-op-generic %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @entry
// CHECK-NEXT: %[[A:.*]] = kiln.partition @part0(%arg0) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: kiln.partition @part1() on "/cpu:1" : () -> ()
// CHECK-NEXT: return %[[A]]
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.partition @part0(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  kiln.partition @part1() on "/cpu:1" : () -> ()
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func private @part0
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.recv "b:0;/cpu:0" into %[[E]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: kiln.send %arg0 as "a:0;/cpu:1" : tensor<4xf32>
func.func private @part0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = kiln.recv "b:0;/cpu:0" into %e : tensor<4xf32> -> tensor<4xf32>
  kiln.send %x as "a:0;/cpu:1" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func private @part1
// CHECK: kiln.recv "a:0;/cpu:1" into %[[B:.*]] : memref<4xf32>
// CHECK-NEXT: kiln.send %[[B]] as "b:0;/cpu:0" : memref<4xf32>
func.func private @part1() {
  %b = memref.alloc() : memref<4xf32>
  kiln.recv "a:0;/cpu:1" into %b : memref<4xf32>
  kiln.send %b as "b:0;/cpu:0" : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @checks
// CHECK-NEXT: kiln.check "nonzero" %arg0, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
// CHECK-NEXT: kiln.check "in_range" %arg1 bounds [5, 3], "indices{index} = {value} does not index into params of shape [5,3]" {unsigned_values} : memref<2x2xi64>
// CHECK-NEXT: kiln.check "nonnegative" %arg2, "y{index} = {value}" : tensor<i8>
func.func @checks(%y: tensor<4xi32>, %i: memref<2x2xi64>, %p: tensor<i8>) {
  kiln.check "nonzero" %y, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
  kiln.check "in_range" %i bounds [5, 3], "indices{index} = {value} does not index into params of shape [5,3]" {unsigned_values} : memref<2x2xi64>
  kiln.check "nonnegative" %p, "y{index} = {value}" : tensor<i8>
  return
}
