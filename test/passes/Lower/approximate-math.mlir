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

// Tests that the exactly rounded operations (the approximations' floor among them) become
// LLVM intrinsics, not the libm calls convert-math-to-libm would make, with or without
// approximations, on f32 and f64; on bf16 they stay (computed in f32 later).
// CHECK-LABEL: func.func @exact
// CHECK-NOT: math.
// CHECK: llvm.intr.floor
// CHECK: llvm.intr.ceil
// CHECK: llvm.intr.trunc
// CHECK: llvm.intr.roundeven
// CHECK: llvm.intr.round
// CHECK: llvm.intr.sqrt
// CHECK: llvm.intr.fabs
// CHECK: llvm.intr.sqrt(%{{.*}}) : (f64) -> f64
// CHECK: math.sqrt %{{.*}} : bf16
// NONE-LABEL: func.func @exact
// NONE: llvm.intr.floor
// NONE: math.sqrt %{{.*}} : bf16
func.func @exact(%x: f32, %d: f64, %h: bf16) -> (f32, f32, f32, f32, f32, f32, f32, f64, bf16) {
  %0 = math.floor %x : f32
  %1 = math.ceil %x : f32
  %2 = math.trunc %x : f32
  %3 = math.roundeven %x : f32
  %4 = math.round %x : f32
  %5 = math.sqrt %x : f32
  %6 = math.absf %x : f32
  %7 = math.sqrt %d : f64
  %8 = math.sqrt %h : bf16
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, f32, f32, f64, bf16
}

// Tests that the float-to-integer conversions the approximations make (exp's exponent)
// read 0 instead of NaN, so that LLVM, folding a NaN constant, meets no poison; a
// conversion that was there before (a Cast) is left as it is.
// CHECK-LABEL: func.func @nan_safe
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[V:.*]], %[[V]] : f32
// CHECK: %[[SAFE:.*]] = arith.select %[[NAN]], %{{.*}}, %[[V]] : f32
// CHECK: arith.fptosi %[[SAFE]] : f32 to i32
// CHECK: arith.fptosi %arg1 : f32 to i32
// NONE-LABEL: func.func @nan_safe
// NONE-NOT: arith.cmpf uno
func.func @nan_safe(%x: f32, %y: f32) -> (f32, i32) {
  %0 = math.exp %x : f32
  %1 = arith.fptosi %y : f32 to i32
  return %0, %1 : f32, i32
}

// Tests that math.ctpop, which convert-math-to-libm refuses, becomes LLVM's intrinsic on
// integers of every width, with or without functions to approximate.
// CHECK-LABEL: func.func @population_count
// CHECK: llvm.intr.ctpop(%arg0) : (i8) -> i8
// CHECK: llvm.intr.ctpop(%arg1) : (i64) -> i64
// NONE-LABEL: func.func @population_count
// NONE: llvm.intr.ctpop(%arg0) : (i8) -> i8
func.func @population_count(%b: i8, %w: i64) -> (i8, i64) {
  %0 = math.ctpop %b : i8
  %1 = math.ctpop %w : i64
  return %0, %1 : i8, i64
}
