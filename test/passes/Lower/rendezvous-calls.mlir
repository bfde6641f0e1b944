// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-rendezvous-calls %s | FileCheck %s

// Tests that sends and receives become calls of the runtime's partition_send and
// partition_recv with the key's number (keys sorted, in the model's rendezvous_keys); the
// expansion passes the buffer's address and size (test/codegen/expand-kernel-calls.mlir).
// CHECK: kiln.model "m" attributes {rendezvous_keys = ["a:0;/cpu:1", "b:0;/cpu:0"]}
// CHECK-LABEL: func.func @p0
// CHECK: kiln.kernel_call "partition_send" ins(%arg0 : memref<2x3xf32>) params {key = 0 : i32}
// CHECK: kiln.kernel_call "partition_recv" outs(%arg1 : memref<4xi8>) params {key = 1 : i32}
// CHECK-NOT: kiln.send
// CHECK-NOT: kiln.recv
kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
}
func.func @p0(%x: memref<2x3xf32>, %out: memref<4xi8>) {
  kiln.send %x as "a:0;/cpu:1" : memref<2x3xf32>
  kiln.recv "b:0;/cpu:0" into %out : memref<4xi8>
  return
}
// CHECK-LABEL: func.func @p1
// CHECK: kiln.kernel_call "partition_recv" {{.*}} params {key = 0 : i32}
// CHECK: kiln.kernel_call "partition_send" {{.*}} params {key = 1 : i32}
func.func @p1(%x: memref<2x3xf32>, %y: memref<4xi8>) {
  kiln.recv "a:0;/cpu:1" into %x : memref<2x3xf32>
  kiln.send %y as "b:0;/cpu:0" : memref<4xi8>
  return
}

// -----

// Tests that a function placed on a GPU calls the GPU layer's transfers, which take device
// addresses (kiln_mgpu_partition_send/_recv); a CPU partition beside it keeps the others.
// CHECK-LABEL: func.func @cpu
// CHECK: kiln.kernel_call "partition_send" ins(%arg0 : memref<2x3xf32>) params {key = 0 : i32}
// CHECK: kiln.kernel_call "partition_recv" outs(%arg1 : memref<2x3xf32>) params {key = 1 : i32}
// CHECK-LABEL: func.func @gpu
// CHECK: kiln.kernel_call "gpu_partition_recv" outs(%arg0 : memref<2x3xf32>) params {key = 0 : i32}
// CHECK: kiln.kernel_call "gpu_partition_send" ins(%arg0 : memref<2x3xf32>) params {key = 1 : i32}
kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
}
func.func @cpu(%x: memref<2x3xf32>, %y: memref<2x3xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:CPU:0"} {
  kiln.send %x as "a" : memref<2x3xf32>
  kiln.recv "b" into %y : memref<2x3xf32>
  return
}
func.func @gpu(%x: memref<2x3xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  kiln.recv "a" into %x : memref<2x3xf32>
  kiln.send %x as "b" : memref<2x3xf32>
  return
}

// -----

// Tests that a view is sent from, and received into, a contiguous copy.
// CHECK-LABEL: func.func @views
// CHECK: %[[S:.*]] = memref.subview %arg0[0, 0] [2, 2] [1, 1]
// CHECK: %[[D:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK-NEXT: memref.copy %[[S]], %[[D]]
// CHECK: kiln.kernel_call "partition_send" ins(%[[D]] : memref<2x2xf32>)
// CHECK: %[[D2:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK-NEXT: kiln.kernel_call "partition_recv" outs(%[[D2]] : memref<2x2xf32>)
// CHECK-NEXT: memref.copy %[[D2]], %[[S]]
kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
}
func.func @views(%x: memref<4x4xf32>) {
  %s = memref.subview %x[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
  kiln.send %s as "a" : memref<2x2xf32, strided<[4, 1]>>
  kiln.recv "a" into %s : memref<2x2xf32, strided<[4, 1]>>
  return
}

// -----

func.func @from_elsewhere(%b: memref<4xf32>) {
  // expected-error @+1 {{'kiln.recv' op waits for tensor 'a', which nothing in this model sends (receiving from another process is not supported yet)}}
  kiln.recv "a" into %b : memref<4xf32>
  return
}

// -----

func.func @too_early(%b: memref<4xf32>) {
  // expected-error @+1 {{'kiln.recv' op receives tensor 'a' before the same function sends it, so it would wait for ever}}
  kiln.recv "a" into %b : memref<4xf32>
  kiln.send %b as "a" : memref<4xf32>
  return
}

// -----

func.func @twice(%b: memref<4xf32>) {
  kiln.send %b as "a" : memref<4xf32>
  // expected-error @+1 {{'kiln.send' op is the second send of tensor 'a'}}
  kiln.send %b as "a" : memref<4xf32>
  return
}

// -----

// Tests that a send before its receive in one function (a graph that already holds a
// _Send/_Recv pair) is accepted.
// CHECK-LABEL: func.func @in_order
// CHECK: kiln.kernel_call "partition_send"
// CHECK: kiln.kernel_call "partition_recv"
kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
}
func.func @in_order(%a: memref<4xf32>, %b: memref<4xf32>) {
  kiln.send %a as "a" : memref<4xf32>
  kiln.recv "a" into %b : memref<4xf32>
  return
}

// -----

func.func @no_model(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'kiln.send' op moves a tensor between partitions, but the module has no kiln.model to hold the keys the entry point passes to the runtime}}
  kiln.send %a as "a" : memref<4xf32>
  kiln.recv "a" into %b : memref<4xf32>
  return
}
