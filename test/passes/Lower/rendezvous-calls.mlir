// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-rendezvous-calls %s | FileCheck %s

// Tests that sends and receives become runtime calls with the key's number (keys sorted, in
// the module's kiln.rendezvous_keys), the buffer's address and its size in bytes.
// CHECK: module attributes {kiln.rendezvous_keys = ["a:0;/cpu:1", "b:0;/cpu:0"]}
// CHECK-DAG: func.func private @kiln_partition_send(i32, i64, i64)
// CHECK-DAG: func.func private @kiln_partition_recv(i32, i64, i64)
// CHECK-LABEL: func.func @p0
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0 : memref<2x3xf32> -> index
// CHECK-DAG: %[[K:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[A:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK-DAG: %[[N:.*]] = arith.constant 24 : i64
// CHECK: call @kiln_partition_send(%[[K]], %[[A]], %[[N]]) : (i32, i64, i64) -> ()
// CHECK: %[[Q:.*]] = memref.extract_aligned_pointer_as_index %arg1 : memref<4xi8> -> index
// CHECK-DAG: %[[K1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[A1:.*]] = arith.index_cast %[[Q]] : index to i64
// CHECK-DAG: %[[N1:.*]] = arith.constant 4 : i64
// CHECK: call @kiln_partition_recv(%[[K1]], %[[A1]], %[[N1]]) : (i32, i64, i64) -> ()
// CHECK-NOT: kiln.send
// CHECK-NOT: kiln.recv
func.func @p0(%x: memref<2x3xf32>, %out: memref<4xi8>) {
  kiln.send %x as "a:0;/cpu:1" : memref<2x3xf32>
  kiln.recv "b:0;/cpu:0" into %out : memref<4xi8>
  return
}
// CHECK-LABEL: func.func @p1
// CHECK: arith.constant 0 : i32
// CHECK: call @kiln_partition_recv
// CHECK: arith.constant 1 : i32
// CHECK: call @kiln_partition_send
func.func @p1(%x: memref<2x3xf32>, %y: memref<4xi8>) {
  kiln.recv "a:0;/cpu:1" into %x : memref<2x3xf32>
  kiln.send %y as "b:0;/cpu:0" : memref<4xi8>
  return
}

// -----

// Tests that a view is sent from, and received into, a contiguous copy.
// CHECK-LABEL: func.func @views
// CHECK: %[[S:.*]] = memref.subview %arg0[0, 0] [2, 2] [1, 1]
// CHECK: %[[D:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK-NEXT: memref.copy %[[S]], %[[D]]
// CHECK: memref.extract_aligned_pointer_as_index %[[D]]
// CHECK: call @kiln_partition_send
// CHECK: %[[D2:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[D2]]
// CHECK: call @kiln_partition_recv
// CHECK-NEXT: memref.copy %[[D2]], %[[S]]
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
// CHECK: call @kiln_partition_send
// CHECK: call @kiln_partition_recv
func.func @in_order(%a: memref<4xf32>, %b: memref<4xf32>) {
  kiln.send %a as "a" : memref<4xf32>
  kiln.recv "a" into %b : memref<4xf32>
  return
}
