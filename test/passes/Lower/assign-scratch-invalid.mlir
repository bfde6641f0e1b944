// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-assign-scratch %s

// Tests that a loop whose condition hands its body a buffer that is not its own fresh copy
// is refused: the arena reuses an allocation's slot in every iteration.
kiln.model "m" {
  kiln.entry "run" feeds [] fetches [] {parts = [#kiln.part<function = @uncopied, device = "", inputs = [], outputs = []>]}
}
func.func @uncopied(%x: memref<4xf32>) {
  // expected-error @+1 {{a loop variable reaches the loop body without a copy of its own, which the static arena cannot hold across iterations}}
  %r = scf.while (%v = %x) : (memref<4xf32>) -> memref<4xf32> {
    %t = arith.constant true
    scf.condition(%t) %v : memref<4xf32>
  } do {
  ^bb0(%v: memref<4xf32>):
    scf.yield %v : memref<4xf32>
  }
  return
}
