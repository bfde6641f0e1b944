// RUN: kiln-opt --split-input-file --kiln-graph-decompose %s | FileCheck %s

// Tests Conv2DBackpropFilter of a 2x1 VALID window: one MatMul a filter tap (the tap's
// strided slice of the input, as [positions, in], against the gradient as
// [positions, out], transpose_a), the taps packed and reshaped to the filter.
// CHECK-LABEL: func.func @filter_grad
func.func @filter_grad(%x: tensor<1x4x3x2xf32>, %dy: tensor<1x3x3x5xf32>) -> tensor<2x1x2x5xf32> {
  // CHECK-NOT: tf.Conv2DBackpropFilter
  // CHECK: %[[DY:.*]] = "tf.Reshape"(%arg1, %{{.*}}) : (tensor<1x3x3x5xf32>, tensor<2xi32>) -> tensor<9x5xf32>
  // CHECK: %[[T0:.*]] = "tf.StridedSlice"(%arg0, {{.*}}) -> tensor<1x3x3x2xf32>
  // CHECK: %[[R0:.*]] = "tf.Reshape"(%[[T0]], %{{.*}}) : (tensor<1x3x3x2xf32>, tensor<2xi32>) -> tensor<9x2xf32>
  // CHECK: "tf.MatMul"(%[[R0]], %[[DY]]) {transpose_a = true} : (tensor<9x2xf32>, tensor<9x5xf32>) -> tensor<2x5xf32>
  // CHECK: "tf.MatMul"
  // CHECK: %[[P:.*]] = "tf.Pack"({{.*}}) {N = 2 : i64, axis = 0 : i64} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x2x5xf32>
  // CHECK: "tf.Reshape"(%[[P]], %{{.*}}) : (tensor<2x2x5xf32>, tensor<4xi32>) -> tensor<2x1x2x5xf32>
  %sizes = "tf.Const"() {value = dense<[2, 1, 2, 5]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Conv2DBackpropFilter"(%x, %sizes, %dy) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x4x3x2xf32>, tensor<4xi32>, tensor<1x3x3x5xf32>) -> tensor<2x1x2x5xf32>
  return %0 : tensor<2x1x2x5xf32>
}

// -----

// Tests AvgPoolGrad of a 1x2 window with stride 2: the gradient divided by the window's
// count, spread out by the stride (a Reshape to [N, H, 1, W, 1, C], a PadV2 of stride - 1
// zeros after each element, a Reshape back), padded to each tap's offset and summed.
// CHECK-LABEL: func.func @avg_pool_grad
func.func @avg_pool_grad(%g: tensor<1x2x2x1xf32>) -> tensor<1x2x4x1xf32> {
  // CHECK-NOT: tf.AvgPoolGrad
  // CHECK: %[[C:.*]] = "tf.Const"() {dtype = f32, value = dense<2.000000e+00> : tensor<1x2x2x1xf32>}
  // CHECK: %[[S:.*]] = "tf.RealDiv"(%arg0, %[[C]])
  // CHECK: "tf.Reshape"(%[[S]], %{{.*}}) : (tensor<1x2x2x1xf32>, tensor<6xi32>) -> tensor<1x2x1x2x1x1xf32>
  // CHECK: "tf.PadV2"({{.*}}) : (tensor<1x2x1x2x1x1xf32>, tensor<6x2xi32>, tensor<f32>) -> tensor<1x2x1x2x2x1xf32>
  // CHECK: "tf.AddV2"
  // CHECK: "tf.StridedSlice"({{.*}}) -> tensor<1x2x4x1xf32>
  %sizes = "tf.Const"() {value = dense<[1, 2, 4, 1]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.AvgPoolGrad"(%sizes, %g) {ksize = [1, 1, 2, 1], padding = "VALID", strides = [1, 1, 2, 1]} : (tensor<4xi32>, tensor<1x2x2x1xf32>) -> tensor<1x2x4x1xf32>
  return %0 : tensor<1x2x4x1xf32>
}

// -----

// Tests MaxPoolGrad of a 1x2 SAME window with stride 1: the index of each window's first
// maximum (tap 1 taken where tap 0 is less, and only inside the input: the last column's
// second tap is padding), then the gradient where each tap won, spread and summed.
// CHECK-LABEL: func.func @max_pool_grad
func.func @max_pool_grad(%x: tensor<1x1x3x1xf32>, %y: tensor<1x1x3x1xf32>, %g: tensor<1x1x3x1xf32>) -> tensor<1x1x3x1xf32> {
  // CHECK-NOT: tf.MaxPoolGrad
  // CHECK: %[[LESS:.*]] = "tf.Less"
  // CHECK: %[[IN:.*]] = "tf.Const"() {dtype = i1, value = dense<{{.*}}[true], [true], [false]{{.*}}> : tensor<1x1x3x1xi1>}
  // CHECK: %[[TAKE:.*]] = "tf.LogicalAnd"(%[[LESS]], %[[IN]])
  // CHECK: %[[INDEX:.*]] = "tf.SelectV2"(%[[TAKE]], %{{.*}}, %{{.*}}) : (tensor<1x1x3x1xi1>, tensor<i32>, tensor<i32>) -> tensor<1x1x3x1xi32>
  // CHECK: "tf.Equal"(%[[INDEX]], %{{.*}})
  // CHECK: "tf.SelectV2"
  // CHECK: "tf.AddV2"
  %0 = "tf.MaxPoolGrad"(%x, %y, %g) {ksize = [1, 1, 2, 1], padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x1x3x1xf32>, tensor<1x1x3x1xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x3x1xf32>
  return %0 : tensor<1x1x3x1xf32>
}

// -----

// Tests FusedBatchNormGrad in inference: x's gradient is dy * scale * rsqrt(variance +
// epsilon); the scale's the sum of dy * (x - mean) times that rsqrt; the offset's the sum
// of dy; the last two results empty.
// CHECK-LABEL: func.func @batch_norm_grad
func.func @batch_norm_grad(%dy: tensor<2x3x3x4xf32>, %x: tensor<2x3x3x4xf32>, %s: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<2x3x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0xf32>) {
  // CHECK-NOT: tf.FusedBatchNormGrad
  // CHECK: %[[R:.*]] = "tf.Rsqrt"
  // CHECK: %[[SUM:.*]] = "tf.Sum"(%arg0, %{{.*}}) {keep_dims = false} : (tensor<2x3x3x4xf32>, tensor<3xi32>) -> tensor<4xf32>
  // CHECK: %[[COEF:.*]] = "tf.Mul"(%arg2, %[[R]])
  // CHECK: %[[DX:.*]] = "tf.Mul"(%arg0, %[[COEF]]) : (tensor<2x3x3x4xf32>, tensor<4xf32>) -> tensor<2x3x3x4xf32>
  // CHECK: %[[E:.*]] = "tf.Const"() {dtype = f32, value = dense<> : tensor<0xf32>}
  // CHECK: return %[[DX]], %{{.*}}, %[[SUM]], %[[E]]
  %0:5 = "tf.FusedBatchNormGrad"(%dy, %x, %s, %m, %v) {epsilon = 1.0e-3 : f32, is_training = false} : (tensor<2x3x3x4xf32>, tensor<2x3x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0xf32>
}

// -----

// Tests SparseSoftmaxCrossEntropyWithLogits: the log of the sum of the shifted logits'
// exponentials less each label's shifted logit (a GatherV2 with batch_dims 1), and the
// softmax less the labels' one-hot rows.
// CHECK-LABEL: func.func @sparse_cross_entropy
func.func @sparse_cross_entropy(%f: tensor<3x5xf32>, %l: tensor<3xi64>) -> (tensor<3xf32>, tensor<3x5xf32>) {
  // CHECK-NOT: tf.SparseSoftmaxCrossEntropyWithLogits
  // CHECK: %[[PICK:.*]] = "tf.GatherV2"(%{{.*}}, %arg1, %{{.*}}) {batch_dims = 1 : i64} : (tensor<3x5xf32>, tensor<3xi64>, tensor<i32>) -> tensor<3xf32>
  // CHECK: %[[LOSS:.*]] = "tf.Sub"(%{{.*}}, %[[PICK]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK: %[[HOT:.*]] = "tf.OneHot"(%arg1, {{.*}}) {TI = i64} : (tensor<3xi64>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
  // CHECK: %[[BP:.*]] = "tf.Sub"(%{{.*}}, %[[HOT]])
  // CHECK: return %[[LOSS]], %[[BP]]
  %0:2 = "tf.SparseSoftmaxCrossEntropyWithLogits"(%f, %l) : (tensor<3x5xf32>, tensor<3xi64>) -> (tensor<3xf32>, tensor<3x5xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3x5xf32>
}
