// RUN: kiln-opt --kiln-lower-tf-to-linalg="winograd=false" %s | FileCheck %s
// RUN: kiln-opt --kiln-lower-tf-to-linalg %s | FileCheck %s --check-prefix=DEFAULT

// Tests that without Winograd (kiln compile --strict-float) a 3x3 Conv2D the Winograd
// kernel would take is multiplied as windows times filter, like any other.
// CHECK-LABEL: func.func @conv3x3
// CHECK-NOT: kiln.conv2d_3x3
// CHECK: kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>
// CHECK-NOT: kiln.conv2d_3x3
// DEFAULT-LABEL: func.func @conv3x3
// DEFAULT: kiln.conv2d_3x3
func.func @conv3x3(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
