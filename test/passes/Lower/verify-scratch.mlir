// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-verify-scratch %s

// Tests that two views of the arena live at the same time may not overlap.
func.func @overlap(%x: memref<16xf32>, %s: memref<128xi8>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{scratch bytes [0, 64) overlap [32, 96) of another buffer live at the same time}}
  %a = memref.view %s[%c0][] : memref<128xi8> to memref<16xf32>
  // expected-note @+1 {{the other buffer}}
  %b = memref.view %s[%c32][] : memref<128xi8> to memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that views whose lifetimes do not meet may share bytes.
func.func @reuse(%x: memref<16xf32>, %y: memref<16xf32>, %s: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %a = memref.view %s[%c0][] : memref<64xi8> to memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %y : memref<16xf32> to memref<16xf32>
  %b = memref.view %s[%c0][] : memref<64xi8> to memref<16xf32>
  memref.copy %y, %b : memref<16xf32> to memref<16xf32>
  memref.copy %b, %x : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that a view may not reach past the end of the arena.
func.func @outside(%s: memref<64xi8>) {
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{scratch view [32, 96) reaches outside the 64-byte arena}}
  %a = memref.view %s[%c32][] : memref<64xi8> to memref<16xf32>
  return
}

// -----

// Tests that a function whose last argument is not an i8 arena is left alone.
func.func @no_arena(%x: memref<16xf32>, %s: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.subview %s[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32, strided<[1]>>
  return
}
