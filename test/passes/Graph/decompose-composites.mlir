// RUN: kiln-opt --split-input-file --kiln-graph-decompose %s | FileCheck %s

// Tests DynamicStitch with constant indices: the data's rows concatenated, one zero row
// padded on for the row no index writes (2), then one GatherV2 by the constant map of
// each result row to the last row written there.
// CHECK-LABEL: func.func @stitch
func.func @stitch(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  // CHECK-NOT: tf.DynamicStitch
  // CHECK: %[[ALL:.*]] = "tf.ConcatV2"(%arg0, %arg1, %{{.*}}) {N = 2 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<i32>) -> tensor<3x3xf32>
  // CHECK: %[[PADDED:.*]] = "tf.PadV2"(%[[ALL]], {{.*}}) -> tensor<4x3xf32>
  // CHECK: %[[MAP:.*]] = "tf.Const"() {dtype = i32, value = dense<[2, 3, 3, 0]> : tensor<4xi32>}
  // CHECK: "tf.GatherV2"(%[[PADDED]], %[[MAP]], %{{.*}}) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<4x3xf32>
  %i = "tf.Const"() {value = dense<[3, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %j = "tf.Const"() {value = dense<[0]> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.DynamicStitch"(%i, %j, %a, %b) {N = 2 : i64} : (tensor<2xi32>, tensor<1xi32>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests StridedSliceGrad of rows 1 and 3 of a 4x3 tensor: the gradient with a zero row
// padded on, gathered into place along the rows (the columns, all read, untouched).
// CHECK-LABEL: func.func @slice_grad
func.func @slice_grad(%dy: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // CHECK-NOT: tf.StridedSliceGrad
  // CHECK: %[[PADDED:.*]] = "tf.PadV2"(%arg0, {{.*}}) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<3x3xf32>
  // CHECK: %[[MAP:.*]] = "tf.Const"() {dtype = i32, value = dense<[2, 0, 2, 1]> : tensor<4xi32>}
  // CHECK: "tf.GatherV2"(%[[PADDED]], %[[MAP]], %{{.*}}) : (tensor<3x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<4x3xf32>
  %shape = "tf.Const"() {value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.StridedSliceGrad"(%shape, %b, %e, %s, %dy) : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests TensorStridedSliceUpdate: the value put in place as above, selected where the
// slice writes.
// CHECK-LABEL: func.func @slice_update
func.func @slice_update(%x: tensor<4x3xf32>, %v: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[PLACED:.*]] = "tf.GatherV2"
  // CHECK: %[[MASK:.*]] = "tf.Const"() {dtype = i1, value = dense<{{\[}}[false], [true], [false], [true]]> : tensor<4x1xi1>}
  // CHECK: "tf.SelectV2"(%[[MASK]], %[[PLACED]], %arg0)
  %b = "tf.Const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.TensorStridedSliceUpdate"(%x, %b, %e, %s, %v) : (tensor<4x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests ListDiff: a Where of the entries of x equal to no entry of y, and x gathered there.
// CHECK-LABEL: func.func @list_diff
func.func @list_diff(%x: tensor<6xi32>, %y: tensor<2xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  // CHECK: %[[EQ:.*]] = "tf.Equal"({{.*}}) : (tensor<6x1xi32>, tensor<1x2xi32>) -> tensor<6x2xi1>
  // CHECK: %[[ANY:.*]] = "tf.Any"(%[[EQ]], %{{.*}})
  // CHECK: %[[KEPT:.*]] = "tf.LogicalNot"(%[[ANY]])
  // CHECK: %[[WHERE:.*]] = "tf.Where"(%[[KEPT]]) : (tensor<6xi1>) -> tensor<?x1xi64>
  // CHECK: %[[AT:.*]] = "tf.Reshape"(%[[WHERE]], %{{.*}}) : (tensor<?x1xi64>, tensor<1xi32>) -> tensor<?xi64>
  // CHECK: %[[OUT:.*]] = "tf.GatherV2"(%arg0, %[[AT]], %{{.*}})
  // CHECK: %[[IDX:.*]] = "tf.Cast"(%[[AT]]) {DstT = i32}
  // CHECK: return %[[OUT]], %[[IDX]]
  %0:2 = "tf.ListDiff"(%x, %y) : (tensor<6xi32>, tensor<2xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  return %0#0, %0#1 : tensor<?xi32>, tensor<?xi32>
}

// -----

// Tests MirrorPadGrad (REFLECT, one before and one after): the middle, plus the pads'
// gradients reversed and padded to the elements they mirror.
// CHECK-LABEL: func.func @mirror_pad_grad
func.func @mirror_pad_grad(%g: tensor<6xf32>) -> tensor<4xf32> {
  // CHECK: %[[MID:.*]] = "tf.StridedSlice"(%arg0, {{.*}}) -> tensor<4xf32>
  // CHECK: %[[LEFT:.*]] = "tf.StridedSlice"(%arg0, {{.*}}) -> tensor<1xf32>
  // CHECK: %[[FLIP:.*]] = "tf.ReverseV2"(%[[LEFT]], %{{.*}})
  // CHECK: %[[AMOUNTS:.*]] = "tf.Const"() {dtype = i32, value = dense<{{\[}}[1, 2]]> : tensor<1x2xi32>}
  // CHECK: %[[PAD:.*]] = "tf.PadV2"(%[[FLIP]], %[[AMOUNTS]], %{{.*}}) : (tensor<1xf32>, tensor<1x2xi32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: "tf.AddV2"(%[[MID]], %[[PAD]])
  %p = "tf.Const"() {value = dense<[[1, 1]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %0 = "tf.MirrorPadGrad"(%g, %p) {mode = "REFLECT"} : (tensor<6xf32>, tensor<1x2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests a first-form stateless random op: StatelessRandomGetKeyCounter of the seed, then
// the V2 op with that key and counter and Philox (1).
// CHECK-LABEL: func.func @stateless_uniform
func.func @stateless_uniform(%seed: tensor<2xi64>) -> tensor<3xf64> {
  // CHECK-NOT: "tf.StatelessRandomUniform"(
  // CHECK-DAG: %[[ALG:.*]] = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>}
  // CHECK-DAG: %[[KEY:.*]], %[[COUNTER:.*]] = "tf.StatelessRandomGetKeyCounter"(%arg0) : (tensor<2xi64>) -> (tensor<1xui64>, tensor<2xui64>)
  // CHECK: "tf.StatelessRandomUniformV2"(%{{.*}}, %[[KEY]], %[[COUNTER]], %[[ALG]]) {dtype = f64} : (tensor<1xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<3xf64>
  %shape = "tf.Const"() {value = dense<[3]> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.StatelessRandomUniform"(%shape, %seed) {dtype = f64} : (tensor<1xi32>, tensor<2xi64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// Tests QuantizeAndDequantizeV2 with a given range: the scale from each side (the integer
// bound over the range's, where their product is positive), the smaller chosen, the input
// clamped to the adjusted range, scaled, rounded half to even and scaled back.
// CHECK-LABEL: func.func @quantize_dequantize
func.func @quantize_dequantize(%x: tensor<6xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<6xf32> {
  // CHECK-NOT: tf.QuantizeAndDequantizeV2
  // CHECK: %[[SIDE:.*]] = "tf.Less"
  // CHECK: %[[SCALE:.*]] = "tf.SelectV2"(%[[SIDE]]
  // CHECK: %[[INVERSE:.*]] = "tf.SelectV2"(%[[SIDE]]
  // CHECK: %[[LOW:.*]] = "tf.Minimum"(%arg0, %{{.*}})
  // CHECK: %[[CLAMPED:.*]] = "tf.Maximum"(%[[LOW]], %{{.*}})
  // CHECK: %[[SCALED:.*]] = "tf.Mul"(%[[CLAMPED]], %[[SCALE]])
  // CHECK: %[[ROUNDED:.*]] = "tf.Round"(%[[SCALED]])
  // CHECK: "tf.Mul"(%[[ROUNDED]], %[[INVERSE]])
  %0 = "tf.QuantizeAndDequantizeV2"(%x, %lo, %hi) {range_given = true} : (tensor<6xf32>, tensor<f32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Tests TridiagonalMatMul: main * rhs, plus the subdiagonal's products padded down a row,
// plus the superdiagonal's padded up one, in that order.
// CHECK-LABEL: func.func @tridiagonal
func.func @tridiagonal(%u: tensor<1x3xf32>, %d: tensor<1x3xf32>, %l: tensor<1x3xf32>, %r: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: %[[MAIN:.*]] = "tf.Mul"({{.*}}) : (tensor<3x1xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  // CHECK: %[[BELOW:.*]] = "tf.Mul"({{.*}}) : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK: %[[DOWN:.*]] = "tf.PadV2"(%[[BELOW]], {{.*}}) -> tensor<3x2xf32>
  // CHECK: %[[SUM:.*]] = "tf.AddV2"(%[[MAIN]], %[[DOWN]])
  // CHECK: "tf.AddV2"(%[[SUM]], %{{.*}})
  %0 = "tf.TridiagonalMatMul"(%u, %d, %l, %r) : (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests ResizeBilinearGrad of a 1x2x2x3 image resized to 4x3 (half-pixel centres): the
// rows' weights (a 2x4 constant, the forward resize's transposed) times the gradient, then
// the columns' (3x2), channels moved out of the way and back; the batched products with
// one constant matrix become MatMuls.
// CHECK-LABEL: func.func @resize_bilinear_grad
func.func @resize_bilinear_grad(%g: tensor<1x4x3x3xf32>, %x: tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32> {
  // CHECK: %[[ROWS:.*]] = "tf.Const"() {dtype = f32, value = dense<{{\[\[}}1.000000e+00, 7.500000e-01, 2.500000e-01, 0.000000e+00], [0.000000e+00, 2.500000e-01, 7.500000e-01, 1.000000e+00]]> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  // CHECK: "tf.MatMul"(%[[ROWS]], %{{.*}}) {{.*}} : (tensor<2x4xf32>, tensor<4x9xf32>) -> tensor<2x9xf32>
  // CHECK: %[[COLS:.*]] = "tf.Const"() {dtype = f32, value = dense<{{\[\[}}1.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01], [0.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  // CHECK: "tf.MatMul"(%{{.*}}, %[[COLS]]) {{.*}} : (tensor<6x3xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  // CHECK: "tf.Reshape"({{.*}}) : (tensor<2x2x3xf32>, tensor<4xi32>) -> tensor<1x2x2x3xf32>
  %0 = "tf.ResizeBilinearGrad"(%g, %x) {half_pixel_centers = true} : (tensor<1x4x3x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

// Tests LRNGrad with depth_radius 1: two window sums over the depth padded by one on each
// side (three slices each), the power of the norm, and dy * p - 2 alpha beta x * the
// window sum of dy * y / norm.
// CHECK-LABEL: func.func @lrn_grad
func.func @lrn_grad(%dy: tensor<1x1x2x4xf32>, %x: tensor<1x1x2x4xf32>, %y: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  // CHECK: "tf.Square"(%arg1)
  // CHECK: "tf.PadV2"({{.*}}) : (tensor<1x1x2x4xf32>, tensor<4x2xi32>, tensor<f32>) -> tensor<1x1x2x6xf32>
  // CHECK-COUNT-3: "tf.StridedSlice"
  // CHECK: %[[POW:.*]] = "tf.Pow"
  // CHECK: %[[DYY:.*]] = "tf.Mul"(%arg0, %arg2)
  // CHECK: "tf.RealDiv"(%[[DYY]], %{{.*}})
  // CHECK: "tf.PadV2"
  // CHECK-COUNT-3: "tf.StridedSlice"
  // CHECK: %[[SPREAD:.*]] = "tf.Mul"(%{{.*}}, %{{.*}}) : (tensor<1x1x2x4xf32>, tensor<f32>) -> tensor<1x1x2x4xf32>
  // CHECK: %[[OWN:.*]] = "tf.Mul"(%arg0, %[[POW]])
  // CHECK: "tf.AddV2"(%[[OWN]], %[[SPREAD]])
  %0 = "tf.LRNGrad"(%dy, %x, %y) {depth_radius = 1 : i64} : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}

// -----

// Tests _FusedBatchNormEx with a side input and LeakyRelu: FusedBatchNormV3 with its
// attributes, AddV2 of the side input, LeakyRelu with leakyrelu_alpha; the statistics are
// V3's.
// CHECK-LABEL: func.func @batch_norm_ex
// CHECK: %[[Y0:[^,]*]], %[[MEAN:[^,]*]], {{.*}} = "tf.FusedBatchNormV3"(%arg0, %arg1, %arg2, %arg3, %arg4) {data_format = "NHWC", epsilon = 1.000000e-03 : f32, is_training = false}
// CHECK: %[[SUM:.*]] = "tf.AddV2"(%[[Y0]], %arg5)
// CHECK: %[[Y:.*]] = "tf.LeakyRelu"(%[[SUM]]) {alpha = 1.000000e-01 : f32}
// CHECK: return %[[Y]], %[[MEAN]]
func.func @batch_norm_ex(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %side: tensor<1x2x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>) {
  %0:6 = "tf._FusedBatchNormEx"(%x, %s, %o, %m, %v, %side) {num_side_inputs = 1 : i64, activation_mode = "LeakyRelu", leakyrelu_alpha = 0.1 : f32, epsilon = 0.001 : f32, is_training = false, data_format = "NHWC"} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x2x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<1x2x2x3xf32>, tensor<3xf32>
}

// -----

// Tests StatelessTruncatedNormal: the V2 op from StatelessRandomGetKeyCounter's key and
// counter, as for the other first forms.
// CHECK-LABEL: func.func @stateless_truncated_normal
func.func @stateless_truncated_normal(%seed: tensor<2xi32>) -> tensor<5xf32> {
  // CHECK: %[[KEY:.*]], %[[COUNTER:.*]] = "tf.StatelessRandomGetKeyCounter"(%arg0)
  // CHECK: "tf.StatelessTruncatedNormalV2"(%{{.*}}, %[[KEY]], %[[COUNTER]], %{{.*}}) {dtype = f32}
  %shape = "tf.Const"() {value = dense<[5]> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.StatelessTruncatedNormal"(%shape, %seed) {dtype = f32} : (tensor<1xi32>, tensor<2xi32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests DeviceIndex: the position of "CPU" among the names (where the op runs), or their
// number when it is not there.
// CHECK-LABEL: func.func @device_index
// CHECK-DAG: %[[CPU:.*]] = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>}
// CHECK-DAG: %[[NONE:.*]] = "tf.Const"() {dtype = i32, value = dense<2> : tensor<i32>}
// CHECK: return %[[CPU]], %[[NONE]]
func.func @device_index() -> (tensor<i32>, tensor<i32>) {
  %0 = "tf.DeviceIndex"() {device_names = ["GPU", "CPU"]} : () -> tensor<i32>
  %1 = "tf.DeviceIndex"() {device_names = ["GPU", "TPU"]} : () -> tensor<i32>
  return %0, %1 : tensor<i32>, tensor<i32>
}
