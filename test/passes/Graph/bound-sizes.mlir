// RUN: kiln-opt --split-input-file --kiln-graph-bound-sizes %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-graph-bound-sizes=bounds=w=5 %s | FileCheck %s --check-prefix=BOUND

// Tests that Where gets its input's size as its bound, its size is the number of true
// elements, and the fetch gains its shape (the size and the static dimension) as a result
// that the entry point lists as "w:0/shape" and the padded fetch names with `shape`.
// CHECK-LABEL: func.func @where
// CHECK-SAME: -> (tensor<12x2xi64>, tensor<2xi64>)
// CHECK: %[[W:.*]] = "tf.Where"(%arg0) : (tensor<3x4xi1>) -> tensor<12x2xi64>
// CHECK: %[[N:.*]] = "tf.Cast"(%arg0) {DstT = i32} : (tensor<3x4xi1>) -> tensor<3x4xi32>
// CHECK: %[[COUNT:.*]] = "tf.Sum"(%[[N]], %{{.*}}) : (tensor<3x4xi32>, tensor<2xi32>) -> tensor<i32>
// CHECK: %[[ROWS:.*]] = "tf.Cast"(%[[COUNT]]) {DstT = i64}
// CHECK: %[[SHAPE:.*]] = "tf.Pack"(%[[ROWS]], %{{.*}}) {N = 2 : i64, axis = 0 : i64} : (tensor<i64>, tensor<i64>) -> tensor<2xi64>
// CHECK: return %[[W]], %[[SHAPE]]
// CHECK: kiln.entry "run" = @where feeds [#kiln.tensor<"m:0">] fetches [#kiln.tensor<"w:0" shape 1>, #kiln.tensor<"w:0/shape">]
// With a bound of 5: 5 rows, a check that there are no more, and the size at most 5.
// BOUND-LABEL: func.func @where
// BOUND: "tf.Where"(%arg0) : (tensor<3x4xi1>) -> tensor<5x2xi64>
// BOUND: %[[COUNT:.*]] = "tf.Sum"
// BOUND: kiln.check "below" %[[COUNT]] bounds [6], "node 'w' (Where): the input has {value} true elements, more than the bound 5 that --bound gives it" : tensor<i32>
// BOUND: "tf.Minimum"(%[[COUNT]]
func.func @where(%m: tensor<3x4xi1>) -> tensor<?x2xi64> {
  %0 = "tf.Where"(%m) : (tensor<3x4xi1>) -> tensor<?x2xi64> loc("w")
  return %0 : tensor<?x2xi64>
}
kiln.model "where" {
  kiln.entry "run" = @where feeds [#kiln.tensor<"m:0">] fetches [#kiln.tensor<"w:0">]
}

// -----

// Tests boolean_mask's pattern: Squeeze and GatherV2 carry the size; the gather's padded
// indices are masked to 0; a Sum over the padded rows masks them with 0 first.
// CHECK-LABEL: func.func @boolean_mask
// CHECK: "tf.Where"(%arg1) : (tensor<6xi1>) -> tensor<6x1xi64>
// CHECK: "tf.Squeeze"(%{{.*}}) {squeeze_dims = [1]} : (tensor<6x1xi64>) -> tensor<6xi64>
// CHECK: %[[KEEP:.*]] = "tf.Less"
// CHECK: %[[SAFE:.*]] = "tf.SelectV2"(%[[KEEP]], %{{.*}}, %{{.*}}) : (tensor<6xi1>, tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
// CHECK: %[[G:.*]] = "tf.GatherV2"(%arg0, %[[SAFE]], %{{.*}}) {{.*}}: (tensor<6x3xf32>, tensor<6xi64>, tensor<i32>) -> tensor<6x3xf32>
// CHECK: %[[VALID:.*]] = "tf.SelectV2"(%{{.*}}, %[[G]], %{{.*}}) : (tensor<6x3xi1>, tensor<6x3xf32>, tensor<f32>) -> tensor<6x3xf32>
// CHECK: "tf.Sum"(%[[VALID]], %{{.*}}) : (tensor<6x3xf32>, tensor<1xi32>) -> tensor<3xf32>
func.func @boolean_mask(%x: tensor<6x3xf32>, %k: tensor<6xi1>) -> tensor<3xf32> {
  %w = "tf.Where"(%k) : (tensor<6xi1>) -> tensor<?x1xi64> loc("w")
  %i = "tf.Squeeze"(%w) {squeeze_dims = [1]} : (tensor<?x1xi64>) -> tensor<?xi64>
  %axis = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %g = "tf.GatherV2"(%x, %i, %axis) {batch_dims = 0 : i64} : (tensor<6x3xf32>, tensor<?xi64>, tensor<i32>) -> tensor<?x3xf32>
  %axes = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tf.Sum"(%g, %axes) : (tensor<?x3xf32>, tensor<1xi32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// Tests that NonMaxSuppressionV3 becomes V4 (whose valid_outputs is the size), bounded by
// min(max_output_size, boxes).
// CHECK-LABEL: func.func @nms
// CHECK: %[[SEL:.*]], %[[COUNT:.*]] = "tf.NonMaxSuppressionV4"(%arg0, %arg1, %{{.*}}, %{{.*}}, %{{.*}}) : ({{.*}}) -> (tensor<3xi32>, tensor<i32>)
// CHECK: "tf.Cast"(%[[COUNT]]) {DstT = i64}
func.func @nms(%b: tensor<10x4xf32>, %s: tensor<10xf32>) -> tensor<?xi32> {
  %max = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %iou = "tf.Const"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %thr = "tf.Const"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.NonMaxSuppressionV3"(%b, %s, %max, %iou, %thr) : (tensor<10x4xf32>, tensor<10xf32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?xi32> loc("w")
  return %0 : tensor<?xi32>
}

// -----

// Tests that a size followed through shape arithmetic (Shape(x)[0] packed into Fill's
// dims) pads the Fill at the bound, its dims now the constant bound.
// CHECK-LABEL: func.func @fill
// CHECK-SAME: -> (tensor<8xf32>, tensor<1xi64>)
// CHECK: %[[DIMS:.*]] = "tf.Const"() {value = dense<8> : tensor<1xi32>}
// CHECK: "tf.Fill"(%[[DIMS]], %{{.*}}) : (tensor<1xi32>, tensor<f32>) -> tensor<8xf32>
func.func @fill(%m: tensor<8xi1>, %v: tensor<f32>) -> tensor<?xf32> {
  %w = "tf.Where"(%m) : (tensor<8xi1>) -> tensor<?x1xi64> loc("w")
  %s = "tf.Shape"(%w) : (tensor<?x1xi64>) -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %e = "tf.Const"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %n = "tf.StridedSlice"(%s, %b, %e, %e) {shrink_axis_mask = 1 : i64} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  %d = "tf.Pack"(%n) {N = 1 : i64, axis = 0 : i64} : (tensor<i32>) -> tensor<1xi32>
  %f = "tf.Fill"(%d, %v) : (tensor<1xi32>, tensor<f32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}
