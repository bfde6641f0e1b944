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
