// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Special.cpp.

// Tests Lgamma on float32: an elementwise generic calling the runtime's
// kiln_special_lgamma_f32 (declared once in the module).
// CHECK: func.func private @kiln_special_lgamma_f32(f32) -> f32
// CHECK-LABEL: func.func @lgamma
func.func @lgamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg.generic
  // CHECK: func.call @kiln_special_lgamma_f32(%{{.*}}) : (f32) -> f32
  %0 = "tf.Lgamma"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests Igamma on float16 with broadcasting: the operands widened to float32 for the call,
// the result narrowed back.
// CHECK: func.func private @kiln_special_igamma_f32(f32, f32) -> f32
// CHECK-LABEL: func.func @igamma_f16
func.func @igamma_f16(%a: tensor<2x1xf16>, %x: tensor<3xf16>) -> tensor<2x3xf16> {
  // CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x1xf16>, tensor<3xf16>) outs(%{{.*}} : tensor<2x3xf16>)
  // CHECK: %[[A:.*]] = arith.extf %{{.*}} : f16 to f32
  // CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
  // CHECK: %[[R:.*]] = func.call @kiln_special_igamma_f32(%[[A]], %[[X]]) : (f32, f32) -> f32
  // CHECK: arith.truncf %[[R]] : f32 to f16
  %0 = "tf.Igamma"(%a, %x) : (tensor<2x1xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// Tests Betainc on float64 with a scalar b: the double function, b broadcast.
// CHECK: func.func private @kiln_special_betainc_f64(f64, f64, f64) -> f64
// CHECK-LABEL: func.func @betainc
func.func @betainc(%a: tensor<3xf64>, %b: tensor<f64>, %x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: func.call @kiln_special_betainc_f64(%{{.*}}, %{{.*}}, %{{.*}}) : (f64, f64, f64) -> f64
  %0 = "tf.Betainc"(%a, %b, %x) : (tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
