// RUN: kiln-opt --split-input-file --kiln-lower-assign-scratch %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-assign-scratch=naive %s | FileCheck %s --check-prefix=NAIVE
// RUN: kiln-opt --split-input-file --kiln-lower-assign-scratch --kiln-lower-verify-scratch %s | FileCheck %s

// Tests that allocations become views of one scratch argument at 64-byte aligned offsets,
// that deallocations vanish, and that the arena size is recorded in the part of the entry
// point that runs the function. Both buffers are live together (%b until its dealloc), so
// they do not share: the larger one is placed first.
// CHECK: #kiln.part<function = @main, {{.*}}outputs = [0], scratch_bytes = 256, naive_bytes = 256>
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[S:[a-z0-9]+]]: memref<256xi8>
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"out:0">] {parts = [#kiln.part<function = @main, device = "", inputs = [], outputs = [0]>]}
}
func.func @main(%out: memref<4xf32>) {
  // CHECK: %[[C192:.*]] = arith.constant 192 : index
  // CHECK: memref.view %[[S]][%[[C192]]][] : memref<256xi8> to memref<4xf32>
  // CHECK: %[[C0:.*]] = arith.constant 0 : index
  // CHECK: memref.view %[[S]][%[[C0]]][] : memref<256xi8> to memref<20xf64>
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

// Tests sharing by lifetime in a chain a -> b -> c -> out: a is dead once b is written, so
// c (written from b) takes a's place; b, live together with both, gets its own slot. The
// address of b passed to a call (as kernel calls take it) keeps b live until the call.
// The naive plan gives each buffer its own slot.
// CHECK: #kiln.part<function = @chain, {{.*}}scratch_bytes = 128, naive_bytes = 192>
// CHECK-LABEL: func.func @chain
// NAIVE: #kiln.part<function = @chain, {{.*}}scratch_bytes = 192, naive_bytes = 192>
// NAIVE-LABEL: func.func @chain
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"out:0">] {parts = [#kiln.part<function = @chain, device = "", inputs = [], outputs = [0]>]}
}
func.func private @use(i64)
func.func @chain(%x: memref<16xf32>, %out: memref<16xf32>) {
  // CHECK: arith.constant 0 : index
  // CHECK-NEXT: memref.view
  // CHECK: arith.constant 64 : index
  // CHECK-NEXT: memref.view
  // CHECK: arith.constant 0 : index
  // CHECK-NEXT: memref.view
  // NAIVE: memref.view %{{.*}}[%c0][]
  // NAIVE: memref.view %{{.*}}[%c64][]
  // NAIVE: memref.view %{{.*}}[%c128][]
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  %p = memref.extract_aligned_pointer_as_index %b : memref<16xf32> -> index
  %i = arith.index_cast %p : index to i64
  func.call @use(%i) : (i64) -> ()
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that a function without allocations gets an empty arena.
// CHECK: #kiln.part<function = @none, {{.*}}outputs = [0]>
// CHECK-LABEL: func.func @none
// CHECK-SAME: memref<0xi8>
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"out:0">] {parts = [#kiln.part<function = @none, device = "", inputs = [], outputs = [0]>]}
}
func.func @none(%out: memref<4xf32>) {
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Tests writing in place: the elementwise op reads %a for the last time and writes a fresh
// buffer of the same type, so it writes %a's slot instead (one 64-byte slot for both). The
// second op's input %b is read again later, so its output gets a slot of its own.
// CHECK: #kiln.part<function = @in_place, {{.*}}scratch_bytes = 128, naive_bytes = 192>
// CHECK-LABEL: func.func @in_place
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"out:0">] {parts = [#kiln.part<function = @in_place, device = "", inputs = [], outputs = [0]>]}
}
func.func @in_place(%x: memref<16xf32>, %out: memref<16xf32>) {
  // CHECK: %[[A:.*]] = memref.view
  // CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<16xf32>) outs(%[[A]] : memref<16xf32>)
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.negf %v : f32
    linalg.yield %0 : f32
  }
  // CHECK: %[[C:.*]] = memref.view
  // CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<16xf32>) outs(%[[C]] : memref<16xf32>)
  %c = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<16xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  }
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.copy %c, %x : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that the parts of an entry point get consecutive places in one arena: the first
// part's 100-byte buffer takes a 128-byte arena, so the second part's starts at 128. A
// function that no entry point runs gets its arena, recorded nowhere.
// CHECK: #kiln.part<function = @first, {{.*}}scratch_bytes = 128, naive_bytes = 128>, #kiln.part<function = @second, {{.*}}scratch_offset = 128, scratch_bytes = 64, naive_bytes = 64>
// CHECK-LABEL: func.func @first
// CHECK-SAME: memref<128xi8>
// CHECK-LABEL: func.func @second
// CHECK-SAME: memref<64xi8>
// CHECK-LABEL: func.func @other
// CHECK-SAME: memref<64xi8>
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"a:0">, #kiln.tensor<"b:0">] {parts = [#kiln.part<function = @first, device = "/cpu:0", inputs = [], outputs = [0]>, #kiln.part<function = @second, device = "/cpu:1", inputs = [], outputs = [1]>]}
}
func.func @first(%out: memref<25xf32>) {
  %a = memref.alloc() : memref<25xf32>
  memref.copy %a, %out : memref<25xf32> to memref<25xf32>
  return
}
func.func @second(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}
func.func @other(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Tests that a buffer allocated inside a loop and returned by it lives on after the loop:
// %late, allocated after the loop while the loop's result is still read, gets a slot of
// its own (three slots: %cond, %copy in the loop and %late after it).
// CHECK: #kiln.part<function = @loop, {{.*}}scratch_bytes = 192
// CHECK-LABEL: func.func @loop
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"out:0">] {parts = [#kiln.part<function = @loop, device = "", inputs = [], outputs = [0]>]}
}
func.func @loop(%x: memref<4xf32>, %out: memref<4xf32>) {
  %r = scf.while (%v = %x) : (memref<4xf32>) -> memref<4xf32> {
    %cond = memref.alloc() : memref<i1>
    %c = memref.load %cond[] : memref<i1>
    %copy = memref.alloc() : memref<4xf32>
    memref.copy %v, %copy : memref<4xf32> to memref<4xf32>
    scf.condition(%c) %copy : memref<4xf32>
  } do {
  ^bb0(%v: memref<4xf32>):
    scf.yield %v : memref<4xf32>
  }
  %late = memref.alloc() : memref<4xf32>
  memref.copy %r, %late : memref<4xf32> to memref<4xf32>
  memref.copy %late, %out : memref<4xf32> to memref<4xf32>
  return
}

