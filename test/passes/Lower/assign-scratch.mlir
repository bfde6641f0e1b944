// RUN: kiln-opt --split-input-file --kiln-lower-assign-scratch %s | FileCheck %s

// Tests that allocations become views of one scratch argument at 64-byte aligned offsets,
// that deallocations vanish, and that the arena size is recorded.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[S:[a-z0-9]+]]: memref<256xi8>
// CHECK-SAME: kiln.scratch_bytes = 256 : i64
func.func @main(%out: memref<4xf32>) {
  // CHECK: %[[C0:.*]] = arith.constant 0 : index
  // CHECK: memref.view %[[S]][%[[C0]]][] : memref<256xi8> to memref<4xf32>
  // CHECK: %[[C64:.*]] = arith.constant 64 : index
  // CHECK: memref.view %[[S]][%[[C64]]][] : memref<256xi8> to memref<20xf64>
  // CHECK-NOT: memref.alloc
  // CHECK-NOT: memref.dealloc
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<20xf64>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %b : memref<20xf64>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// Tests that a function without allocations gets an empty arena.
// CHECK-LABEL: func.func @none
// CHECK-SAME: memref<0xi8>
// CHECK-SAME: kiln.scratch_bytes = 0 : i64
func.func @none(%out: memref<4xf32>) {
  return
}
