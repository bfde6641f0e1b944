// RUN: kiln-opt --split-input-file --kiln-lower-expand-bf16 %s | FileCheck %s

// Tests that a truncation to bf16 becomes integer arithmetic (rounding to nearest even:
// the 0x7fff bias plus the kept lowest bit) with no call, and that f32 and f16 conversions
// stay.
// CHECK-LABEL: func.func @trunc
// CHECK-NOT: arith.truncf {{.*}} to bf16
// CHECK-DAG: arith.constant 32767 : i32
// CHECK-DAG: arith.shrui
// CHECK: arith.bitcast {{.*}} : i16 to bf16
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @trunc(%x: f32) -> (bf16, f16) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.truncf %x : f32 to f16
  return %0, %1 : bf16, f16
}

// -----

// Tests that an extension from bf16 becomes a shift of the bits into the upper half,
// vectors too.
// CHECK-LABEL: func.func @ext
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast {{.*}} : vector<8xbf16> to vector<8xi16>
// CHECK: arith.shli
// CHECK: arith.bitcast {{.*}} : vector<8xi32> to vector<8xf32>
func.func @ext(%x: vector<8xbf16>) -> vector<8xf32> {
  %0 = arith.extf %x : vector<8xbf16> to vector<8xf32>
  return %0 : vector<8xf32>
}
