// RUN: kiln-opt --kiln-lower-approximate-math="functions=tanh,exp" %s | FileCheck %s
// RUN: kiln-opt --kiln-lower-approximate-math %s | FileCheck %s --check-prefix=NONE

// Tests that the named functions become arithmetic (with LLVM's fma, not math.fma, which
// would become a libm call), inside linalg bodies too, and that the others stay.
// CHECK-LABEL: func.func @named
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.fma
// CHECK: llvm.intr.fma
// CHECK: math.log %
// NONE-LABEL: func.func @named
// NONE: math.tanh
// NONE: math.log
// NONE: math.exp
func.func @named(%x: f32, %m: memref<8xf32>) -> (f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.log %x : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%m : memref<8xf32>) {
  ^bb0(%v: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return %0, %1 : f32, f32
}
