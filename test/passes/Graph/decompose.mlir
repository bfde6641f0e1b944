// RUN: kiln-opt --split-input-file --kiln-graph-decompose %s | FileCheck %s

// Tests MultiHeadAttention's scores (key "aecd", query "abcd" -> "acbe"): the output lists
// the query's sequence (b) before the key's (e), so the query is the product's left
// operand; both move their heads (c) beside the batch with one transpose that keeps the
// depth (d) last, and the key is read with adj_y instead of a second transpose of d.
// CHECK-LABEL: func.func @scores
func.func @scores(%k: tensor<1x6x2x4xf32>, %q: tensor<1x5x2x4xf32>) -> tensor<1x2x5x6xf32> {
  // CHECK-NOT: tf.Einsum
  // CHECK-DAG: %[[P:.*]] = "tf.Const"() {dtype = i64, value = dense<[0, 2, 1, 3]> : tensor<4xi64>}
  // CHECK-DAG: %[[Q:.*]] = "tf.Transpose"(%arg1, %[[P]]) : (tensor<1x5x2x4xf32>, tensor<4xi64>) -> tensor<1x2x5x4xf32>
  // CHECK-DAG: %[[K:.*]] = "tf.Transpose"(%arg0, %{{.*}}) : (tensor<1x6x2x4xf32>, tensor<4xi64>) -> tensor<1x2x6x4xf32>
  // CHECK: %[[S:.*]] = "tf.BatchMatMulV2"(%[[Q]], %[[K]]) {adj_x = false, adj_y = true} : (tensor<1x2x5x4xf32>, tensor<1x2x6x4xf32>) -> tensor<1x2x5x6xf32>
  // CHECK: return %[[S]]
  %s = "tf.Einsum"(%k, %q) {N = 2 : i64, equation = "aecd,abcd->acbe"} : (tensor<1x6x2x4xf32>, tensor<1x5x2x4xf32>) -> tensor<1x2x5x6xf32>
  return %s : tensor<1x2x5x6xf32>
}

// -----

// Tests Keras's EinsumDense projections: no label is batched, so each is one MatMul of the
// inputs reshaped to matrices (the kernel [dim, heads, head dim] as [dim, heads * head dim];
// the output projection contracts heads and head dim at once), then reshaped back.
// CHECK-LABEL: func.func @dense
func.func @dense(%x: tensor<2x5x8xf32>, %w: tensor<8x3x4xf32>, %h: tensor<2x5x3x4xf32>, %o: tensor<3x4x7xf32>) -> (tensor<2x5x3x4xf32>, tensor<2x5x7xf32>) {
  // CHECK-NOT: tf.Einsum
  // CHECK: %[[X:.*]] = "tf.Reshape"(%arg0, %{{.*}}) : (tensor<2x5x8xf32>, tensor<2xi64>) -> tensor<10x8xf32>
  // CHECK: %[[W:.*]] = "tf.Reshape"(%arg1, %{{.*}}) : (tensor<8x3x4xf32>, tensor<2xi64>) -> tensor<8x12xf32>
  // CHECK: %[[P:.*]] = "tf.MatMul"(%[[X]], %[[W]]) {transpose_a = false, transpose_b = false} : (tensor<10x8xf32>, tensor<8x12xf32>) -> tensor<10x12xf32>
  // CHECK: %[[Y:.*]] = "tf.Reshape"(%[[P]], %{{.*}}) : (tensor<10x12xf32>, tensor<4xi64>) -> tensor<2x5x3x4xf32>
  // CHECK: "tf.Reshape"(%arg2, %{{.*}}) : (tensor<2x5x3x4xf32>, tensor<2xi64>) -> tensor<10x12xf32>
  // CHECK: "tf.Reshape"(%arg3, %{{.*}}) : (tensor<3x4x7xf32>, tensor<2xi64>) -> tensor<12x7xf32>
  // CHECK: "tf.MatMul"
  // CHECK-SAME: -> tensor<10x7xf32>
  // CHECK: %[[Z:.*]] = "tf.Reshape"(%{{.*}}, %{{.*}}) : (tensor<10x7xf32>, tensor<3xi64>) -> tensor<2x5x7xf32>
  // CHECK: return %[[Y]], %[[Z]]
  %y = "tf.Einsum"(%x, %w) {N = 2 : i64, equation = "abc,cde->abde"} : (tensor<2x5x8xf32>, tensor<8x3x4xf32>) -> tensor<2x5x3x4xf32>
  %z = "tf.Einsum"(%h, %o) {N = 2 : i64, equation = "abcd,cde->abe"} : (tensor<2x5x3x4xf32>, tensor<3x4x7xf32>) -> tensor<2x5x7xf32>
  return %y, %z : tensor<2x5x3x4xf32>, tensor<2x5x7xf32>
}

// -----

// Tests an implicit output ("ij,jk" is "ij,jk->ik": a plain MatMul, no reshape), an input
// already in adj form ("bij,bkj->bik": adj_y, no transpose), and one input: "ijk->ki" sums
// j, then transposes.
// CHECK-LABEL: func.func @forms
func.func @forms(%a: tensor<5x6xf32>, %b: tensor<6x7xf32>, %c: tensor<3x4x5xf32>, %d: tensor<3x6x5xf32>) -> (tensor<5x7xf32>, tensor<3x4x6xf32>, tensor<5x3xf32>) {
  // CHECK-NOT: tf.Einsum
  // CHECK: "tf.MatMul"(%arg0, %arg1) {transpose_a = false, transpose_b = false} : (tensor<5x6xf32>, tensor<6x7xf32>) -> tensor<5x7xf32>
  // CHECK: "tf.BatchMatMulV2"(%arg2, %arg3) {adj_x = false, adj_y = true} : (tensor<3x4x5xf32>, tensor<3x6x5xf32>) -> tensor<3x4x6xf32>
  // CHECK: %[[AXES:.*]] = "tf.Const"() {dtype = i64, value = dense<1> : tensor<1xi64>}
  // CHECK: %[[SUM:.*]] = "tf.Sum"(%arg2, %[[AXES]]) {keep_dims = false} : (tensor<3x4x5xf32>, tensor<1xi64>) -> tensor<3x5xf32>
  // CHECK: "tf.Transpose"(%[[SUM]], %{{.*}}) : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  %0 = "tf.Einsum"(%a, %b) {N = 2 : i64, equation = "ij,jk"} : (tensor<5x6xf32>, tensor<6x7xf32>) -> tensor<5x7xf32>
  %1 = "tf.Einsum"(%c, %d) {N = 2 : i64, equation = "bij,bkj->bik"} : (tensor<3x4x5xf32>, tensor<3x6x5xf32>) -> tensor<3x4x6xf32>
  %2 = "tf.Einsum"(%c) {N = 1 : i64, equation = "ijk->ki"} : (tensor<3x4x5xf32>) -> tensor<5x3xf32>
  return %0, %1, %2 : tensor<5x7xf32>, tensor<3x4x6xf32>, tensor<5x3xf32>
}

// -----

// Tests Keras's Dense on a sequence: a batched product whose second operand has no batch
// (rank 2, or batch dimensions of 1, with adj_y) is one MatMul over the first's rows; one
// whose second operand is batched, or whose first is adjoint, stays.
// CHECK-LABEL: func.func @flatten
func.func @flatten(%x: tensor<2x5x8xf32>, %w: tensor<8x6xf32>, %v: tensor<1x6x8xf32>, %b: tensor<2x8x6xf32>) -> (tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x6x6xf32>) {
  // CHECK: %[[X:.*]] = "tf.Reshape"(%arg0, %{{.*}}) : (tensor<2x5x8xf32>, tensor<2xi64>) -> tensor<10x8xf32>
  // CHECK: %[[P:.*]] = "tf.MatMul"(%[[X]], %arg1) {transpose_a = false, transpose_b = false} : (tensor<10x8xf32>, tensor<8x6xf32>) -> tensor<10x6xf32>
  // CHECK: %[[Y0:.*]] = "tf.Reshape"(%[[P]], %{{.*}}) : (tensor<10x6xf32>, tensor<3xi64>) -> tensor<2x5x6xf32>
  // CHECK: %[[V:.*]] = "tf.Reshape"(%arg2, %{{.*}}) : (tensor<1x6x8xf32>, tensor<2xi64>) -> tensor<6x8xf32>
  // CHECK: "tf.MatMul"(%{{.*}}, %[[V]]) {transpose_a = false, transpose_b = true} : (tensor<10x8xf32>, tensor<6x8xf32>) -> tensor<10x6xf32>
  // CHECK: %[[Y2:.*]] = "tf.BatchMatMulV2"(%arg0, %arg3) : (tensor<2x5x8xf32>, tensor<2x8x6xf32>) -> tensor<2x5x6xf32>
  // CHECK: %[[Y3:.*]] = "tf.BatchMatMul"(%arg3, %arg3) {adj_x = true} : (tensor<2x8x6xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  // CHECK: return %[[Y0]], %{{.*}}, %[[Y2]], %[[Y3]]
  %0 = "tf.BatchMatMulV2"(%x, %w) : (tensor<2x5x8xf32>, tensor<8x6xf32>) -> tensor<2x5x6xf32>
  %1 = "tf.BatchMatMulV2"(%x, %v) {adj_y = true} : (tensor<2x5x8xf32>, tensor<1x6x8xf32>) -> tensor<2x5x6xf32>
  %2 = "tf.BatchMatMulV2"(%x, %b) : (tensor<2x5x8xf32>, tensor<2x8x6xf32>) -> tensor<2x5x6xf32>
  %3 = "tf.BatchMatMul"(%b, %b) {adj_x = true} : (tensor<2x8x6xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  return %0, %1, %2, %3 : tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x6x6xf32>
}

// -----

// Tests a grouped Conv2D with one input channel per group (4 channels, filter 3x3x1x8): a
// depthwise convolution with multiplier 2, its filter reshaped to [3, 3, 4, 2], the window
// attributes kept.
// CHECK-LABEL: func.func @grouped_depthwise
func.func @grouped_depthwise(%x: tensor<1x7x6x4xf32>, %f: tensor<3x3x1x8xf32>) -> tensor<1x4x6x8xf32> {
  // CHECK-NOT: tf.Conv2D
  // CHECK: %[[S:.*]] = "tf.Const"() {dtype = i64, value = dense<[3, 3, 4, 2]> : tensor<4xi64>}
  // CHECK: %[[F:.*]] = "tf.Reshape"(%arg1, %[[S]]) : (tensor<3x3x1x8xf32>, tensor<4xi64>) -> tensor<3x3x4x2xf32>
  // CHECK: %[[Y:.*]] = "tf.DepthwiseConv2dNative"(%arg0, %[[F]]) {dilations = [1, 1, 1, 1], padding = "SAME", strides = [1, 2, 1, 1]} : (tensor<1x7x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x6x8xf32>
  // CHECK: return %[[Y]]
  %y = "tf.Conv2D"(%x, %f) {padding = "SAME", strides = [1, 2, 1, 1], dilations = [1, 1, 1, 1]} : (tensor<1x7x6x4xf32>, tensor<3x3x1x8xf32>) -> tensor<1x4x6x8xf32>
  return %y : tensor<1x4x6x8xf32>
}

// -----

// Tests a grouped Conv2D in NCHW with 2 groups of 3 channels: the input splits along the
// channels (axis 1), the filter along its outputs (axis 3), one Conv2D per group, and their
// results join along the channels.
// CHECK-LABEL: func.func @grouped_two
func.func @grouped_two(%x: tensor<2x6x8x7xf32>, %f: tensor<3x3x3x4xf32>) -> tensor<2x4x3x3xf32> {
  // CHECK-NOT: "tf.Conv2D"(%arg0
  // CHECK-DAG: %[[XS:.*]]:2 = "tf.Split"(%{{.*}}, %arg0) {num_split = 2 : i64} : (tensor<i32>, tensor<2x6x8x7xf32>) -> (tensor<2x3x8x7xf32>, tensor<2x3x8x7xf32>)
  // CHECK-DAG: %[[FS:.*]]:2 = "tf.Split"(%{{.*}}, %arg1) {num_split = 2 : i64} : (tensor<i32>, tensor<3x3x3x4xf32>) -> (tensor<3x3x3x2xf32>, tensor<3x3x3x2xf32>)
  // CHECK: %[[A:.*]] = "tf.Conv2D"(%[[XS]]#0, %[[FS]]#0) {data_format = "NCHW", padding = "VALID", strides = [1, 1, 2, 2]} : (tensor<2x3x8x7xf32>, tensor<3x3x3x2xf32>) -> tensor<2x2x3x3xf32>
  // CHECK: %[[B:.*]] = "tf.Conv2D"(%[[XS]]#1, %[[FS]]#1) {data_format = "NCHW", padding = "VALID", strides = [1, 1, 2, 2]}
  // CHECK: %[[Y:.*]] = "tf.ConcatV2"(%[[A]], %[[B]], %{{.*}}) {N = 2 : i64} : (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<i32>) -> tensor<2x4x3x3xf32>
  // CHECK: return %[[Y]]
  %y = "tf.Conv2D"(%x, %f) {data_format = "NCHW", padding = "VALID", strides = [1, 1, 2, 2]} : (tensor<2x6x8x7xf32>, tensor<3x3x3x4xf32>) -> tensor<2x4x3x3xf32>
  return %y : tensor<2x4x3x3xf32>
}

// -----

// Tests that a TensorList gather is GatherV2 of the list's tensor on axis 0.
// CHECK-LABEL: func.func @list_gather
// CHECK: %[[AXIS:.*]] = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>}
// CHECK: %[[G:.*]] = "tf.GatherV2"(%arg0, %arg1, %[[AXIS]]) : (tensor<5x3xf32>, tensor<2xi32>, tensor<i32>) -> tensor<2x3xf32>
// CHECK-NOT: tf.TensorListGather
// CHECK: return %[[G]]
func.func @list_gather(%l: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  %shape = "tf.Const"() {value = dense<3> : tensor<1xi32>} : () -> tensor<1xi32>
  %g = "tf.TensorListGather"(%l, %i, %shape) {element_dtype = f32} : (tensor<5x3xf32>, tensor<2xi32>, tensor<1xi32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Tests that TensorFlow's dilated convolution (SpaceToBatchND, a VALID Conv2D, then
// BatchToSpaceND) becomes one Conv2D with the block shape as its dilations and the paddings
// less the crops as explicit padding.
// CHECK-LABEL: func.func @dilated
// CHECK: %[[Y:.*]] = "tf.Conv2D"(%arg0, %arg1) {data_format = "NHWC", dilations = [1, 2, 2, 1], explicit_paddings = [0, 0, 2, 1, 2, 2, 0, 0], padding = "EXPLICIT", strides = [1, 1, 1, 1]} : (tensor<1x9x10x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x10x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @dilated(%x: tensor<1x9x10x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x10x4xf32> {
  %block = "tf.Const"() {dtype = i32, value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  %pads = "tf.Const"() {dtype = i32, value = dense<[[2, 3], [2, 2]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %crops = "tf.Const"() {dtype = i32, value = dense<[[0, 2], [0, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) : (tensor<1x9x10x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<4x7x7x3xf32>
  %c = "tf.Conv2D"(%s, %w) {data_format = "NHWC", dilations = [1, 1, 1, 1], padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<4x7x7x3xf32>, tensor<3x3x3x4xf32>) -> tensor<4x5x5x4xf32>
  %y = "tf.BatchToSpaceND"(%c, %block, %crops) : (tensor<4x5x5x4xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<1x8x10x4xf32>
  return %y : tensor<1x8x10x4xf32>
}

// -----

// Tests the 1-D form (tf.nn.convolution of a sequence): the ExpandDims and Squeeze around
// the Conv2D stay, the dilation goes to the width.
// CHECK-LABEL: func.func @dilated_1d
// CHECK: %[[E:.*]] = "tf.ExpandDims"(%arg0, %{{.*}}) : (tensor<2x13x3xf32>, tensor<i32>) -> tensor<2x1x13x3xf32>
// CHECK: %[[C:.*]] = "tf.Conv2D"(%[[E]], %arg1) {dilations = [1, 1, 3, 1], explicit_paddings = [0, 0, 0, 0, 0, 0, 0, 0], padding = "EXPLICIT", strides = [1, 1, 1, 1]}
// CHECK: "tf.Squeeze"(%[[C]]) {squeeze_dims = [-3]} : (tensor<2x1x7x5xf32>) -> tensor<2x7x5xf32>
// CHECK-NOT: SpaceToBatchND
func.func @dilated_1d(%x: tensor<2x13x3xf32>, %w: tensor<1x3x3x5xf32>) -> tensor<2x7x5xf32> {
  %block = "tf.Const"() {dtype = i32, value = dense<3> : tensor<1xi32>} : () -> tensor<1xi32>
  %pads = "tf.Const"() {dtype = i32, value = dense<[[0, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %crops = "tf.Const"() {dtype = i32, value = dense<[[0, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %axis = "tf.Const"() {dtype = i32, value = dense<-3> : tensor<i32>} : () -> tensor<i32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) : (tensor<2x13x3xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<6x5x3xf32>
  %e = "tf.ExpandDims"(%s, %axis) : (tensor<6x5x3xf32>, tensor<i32>) -> tensor<6x1x5x3xf32>
  %c = "tf.Conv2D"(%e, %w) {dilations = [1, 1, 1, 1], padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<6x1x5x3xf32>, tensor<1x3x3x5xf32>) -> tensor<6x1x3x5xf32>
  %q = "tf.Squeeze"(%c) {squeeze_dims = [-3]} : (tensor<6x1x3x5xf32>) -> tensor<6x3x5xf32>
  %y = "tf.BatchToSpaceND"(%q, %block, %crops) : (tensor<6x3x5xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<2x7x5xf32>
  return %y : tensor<2x7x5xf32>
}

// -----

// Tests SpaceToBatchND on its own: a Pad of the block dimensions, the blocks split out,
// their offsets moved in front of the batch, and merged into it; and BatchToSpaceND: the
// batch split into offsets and batch, each offset moved behind its dimension, and a Slice
// for the crops.
// CHECK-LABEL: func.func @space_batch
// CHECK: %[[P:.*]] = "tf.Pad"(%arg0, %{{.*}}) : (tensor<2x5x4x3xf32>, tensor<4x2xi64>) -> tensor<2x6x6x3xf32>
// CHECK: %[[R:.*]] = "tf.Reshape"(%[[P]], %{{.*}}) : (tensor<2x6x6x3xf32>, tensor<6xi64>) -> tensor<2x3x2x2x3x3xf32>
// CHECK: %[[T:.*]] = "tf.Transpose"(%[[R]], %{{.*}}) : (tensor<2x3x2x2x3x3xf32>, tensor<6xi64>) -> tensor<2x3x2x3x2x3xf32>
// CHECK: "tf.Reshape"(%[[T]], %{{.*}}) : (tensor<2x3x2x3x2x3xf32>, tensor<4xi64>) -> tensor<12x3x2x3xf32>
// CHECK: %[[R2:.*]] = "tf.Reshape"(%arg1, %{{.*}}) : (tensor<12x3x2x3xf32>, tensor<6xi64>) -> tensor<2x3x2x3x2x3xf32>
// CHECK: %[[T2:.*]] = "tf.Transpose"(%[[R2]], %{{.*}}) : (tensor<2x3x2x3x2x3xf32>, tensor<6xi64>) -> tensor<2x3x2x2x3x3xf32>
// CHECK: %[[U:.*]] = "tf.Reshape"(%[[T2]], %{{.*}}) : (tensor<2x3x2x2x3x3xf32>, tensor<4xi64>) -> tensor<2x6x6x3xf32>
// CHECK: "tf.Slice"(%[[U]], %{{.*}}, %{{.*}}) : (tensor<2x6x6x3xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<2x5x4x3xf32>
func.func @space_batch(%x: tensor<2x5x4x3xf32>, %b: tensor<12x3x2x3xf32>)
    -> (tensor<12x3x2x3xf32>, tensor<2x5x4x3xf32>) {
  %block = "tf.Const"() {dtype = i32, value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %pads = "tf.Const"() {dtype = i32, value = dense<[[1, 0], [1, 1]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) : (tensor<2x5x4x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<12x3x2x3xf32>
  %y = "tf.BatchToSpaceND"(%b, %block, %pads) : (tensor<12x3x2x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<2x5x4x3xf32>
  return %s, %y : tensor<12x3x2x3xf32>, tensor<2x5x4x3xf32>
}

// -----

// Tests that a grouped Conv3D (6 channels in groups of 2) is one Conv3D per group between
// Splits of the input and the filter along their channels, and a ConcatV2.
// CHECK-LABEL: func.func @grouped_conv3d
// CHECK: %[[X:.*]]:3 = "tf.Split"(%{{.*}}, %arg0) {num_split = 3 : i64} : (tensor<i32>, tensor<1x4x4x4x6xf32>) -> (tensor<1x4x4x4x2xf32>, tensor<1x4x4x4x2xf32>, tensor<1x4x4x4x2xf32>)
// CHECK: %[[F:.*]]:3 = "tf.Split"(%{{.*}}, %arg1) {num_split = 3 : i64}
// CHECK: "tf.Conv3D"(%[[X]]#0, %[[F]]#0) {padding = "SAME", strides = [1, 1, 1, 1, 1]} : (tensor<1x4x4x4x2xf32>, tensor<3x3x3x2x1xf32>) -> tensor<1x4x4x4x1xf32>
// CHECK: "tf.Conv3D"(%[[X]]#2, %[[F]]#2)
// CHECK: "tf.ConcatV2"({{.*}}) {N = 3 : i64} : (tensor<1x4x4x4x1xf32>, tensor<1x4x4x4x1xf32>, tensor<1x4x4x4x1xf32>, tensor<i32>) -> tensor<1x4x4x4x3xf32>
func.func @grouped_conv3d(%x: tensor<1x4x4x4x6xf32>, %w: tensor<3x3x3x2x3xf32>) -> tensor<1x4x4x4x3xf32> {
  %0 = "tf.Conv3D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1, 1]} : (tensor<1x4x4x4x6xf32>, tensor<3x3x3x2x3xf32>) -> tensor<1x4x4x4x3xf32>
  return %0 : tensor<1x4x4x4x3xf32>
}

// -----

// Tests that the older names and composites (dialects/TF/Ops/Aliases.cpp) become the ops
// they stand for: BiasAddV1 a BiasAdd; Concat (axis first) a ConcatV2; Gather a GatherV2 on
// axis 0; SpaceToBatch the SpaceToBatchND of block [2, 2] (then data movement); MaxPoolV2 a
// MaxPool with its constant ksize and strides; Reverse a ReverseV2 of the true dimensions;
// BatchMatMulV3 of int8 to int32 casts before the product; DataFormatDimMap a gather from
// its table at x mod 4; ToBool of a scalar x != 0; Cross gathers and products; L2Loss
// sum(t * t * 0.5); BiasAddGrad (NCHW) a Sum over all but dimension 1; ControlTrigger a NoOp.
// CHECK-LABEL: func.func @aliases
// CHECK: "tf.BiasAdd"(%arg0, %arg1)
// CHECK: "tf.ConcatV2"(%arg0, %arg0, %{{.*}}) {N = 2 : i64}
// CHECK: %[[ZERO:.*]] = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>}
// CHECK: "tf.GatherV2"(%arg0, %{{.*}}, %[[ZERO]])
// CHECK: "tf.Pad"
// CHECK: "tf.Reshape"({{.*}}) -> tensor<8x4x3x3xf32>
// CHECK: "tf.MaxPool"(%arg0) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1]}
// CHECK: %[[AXES:.*]] = "tf.Const"() {dtype = i32, value = dense<[0, 3]> : tensor<2xi32>}
// CHECK: "tf.ReverseV2"(%arg0, %[[AXES]])
// CHECK: %[[A32:.*]] = "tf.Cast"(%arg2) {DstT = i32}
// CHECK: %[[B32:.*]] = "tf.Cast"(%arg3) {DstT = i32}
// CHECK: "tf.MatMul"(%{{.*}}, %[[B32]])
// CHECK: %[[FOUR:.*]] = "tf.Const"() {dtype = i32, value = dense<4> : tensor<i32>}
// CHECK: %[[MOD:.*]] = "tf.FloorMod"(%arg4, %[[FOUR]])
// CHECK: %[[TABLE:.*]] = "tf.Const"() {dtype = i32, value = dense<[0, 2, 3, 1]> : tensor<4xi32>}
// CHECK: "tf.GatherV2"(%[[TABLE]], %[[MOD]], %{{.*}})
// CHECK: "tf.NotEqual"(%arg5, %{{.*}}) : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: %[[A1:.*]] = "tf.GatherV2"(%arg6, %{{.*}}, %{{.*}})
// CHECK: %[[A2:.*]] = "tf.GatherV2"(%arg6
// CHECK: %[[B1:.*]] = "tf.GatherV2"(%arg6
// CHECK: %[[B2:.*]] = "tf.GatherV2"(%arg6
// CHECK: %[[L:.*]] = "tf.Mul"(%[[A1]], %[[B2]])
// CHECK: %[[R:.*]] = "tf.Mul"(%[[A2]], %[[B1]])
// CHECK: "tf.Sub"(%[[L]], %[[R]])
// CHECK: %[[SQ:.*]] = "tf.Square"(%arg0)
// CHECK: %[[HALF:.*]] = "tf.Mul"(%[[SQ]], %{{.*}})
// CHECK: "tf.Sum"(%[[HALF]], %{{.*}}) {keep_dims = false} : (tensor<2x6x4x3xf32>, tensor<4xi32>) -> tensor<f32>
// CHECK: %[[KEEP1:.*]] = "tf.Const"() {dtype = i32, value = dense<[0, 2, 3]> : tensor<3xi32>}
// CHECK: "tf.Sum"(%arg0, %[[KEEP1]]) {keep_dims = false} : (tensor<2x6x4x3xf32>, tensor<3xi32>) -> tensor<6xf32>
// CHECK: %[[NOOP:.*]] = "tf.NoOp"() : () -> !tf.control
// CHECK: "tf.Identity"(%arg5, %[[NOOP]])
func.func @aliases(%x: tensor<2x6x4x3xf32>, %b: tensor<3xf32>,
                   %i8: tensor<2x3x4xi8>, %j8: tensor<4x5xi8>, %d: tensor<4xi32>,
                   %s: tensor<f32>, %u: tensor<5x3xf32>) {
  %0 = "tf.BiasAddV1"(%x, %b) : (tensor<2x6x4x3xf32>, tensor<3xf32>) -> tensor<2x6x4x3xf32>
  %axis = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %1 = "tf.Concat"(%axis, %x, %x) {N = 2 : i64} : (tensor<i32>, tensor<2x6x4x3xf32>, tensor<2x6x4x3xf32>) -> tensor<2x6x4x6xf32>
  %idx = "tf.Const"() {value = dense<[1, 0, 1]> : tensor<3xi32>} : () -> tensor<3xi32>
  %2 = "tf.Gather"(%x, %idx) : (tensor<2x6x4x3xf32>, tensor<3xi32>) -> tensor<3x6x4x3xf32>
  %p = "tf.Const"() {value = dense<[[1, 1], [0, 2]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %3 = "tf.SpaceToBatch"(%x, %p) {block_size = 2 : i64} : (tensor<2x6x4x3xf32>, tensor<2x2xi32>) -> tensor<8x4x3x3xf32>
  %k = "tf.Const"() {value = dense<[1, 2, 2, 1]> : tensor<4xi32>} : () -> tensor<4xi32>
  %4 = "tf.MaxPoolV2"(%x, %k, %k) {padding = "VALID"} : (tensor<2x6x4x3xf32>, tensor<4xi32>, tensor<4xi32>) -> tensor<2x3x2x3xf32>
  %dims = "tf.Const"() {value = dense<[true, false, false, true]> : tensor<4xi1>} : () -> tensor<4xi1>
  %5 = "tf.Reverse"(%x, %dims) : (tensor<2x6x4x3xf32>, tensor<4xi1>) -> tensor<2x6x4x3xf32>
  %6 = "tf.BatchMatMulV3"(%i8, %j8) {Tout = i32} : (tensor<2x3x4xi8>, tensor<4x5xi8>) -> tensor<2x3x5xi32>
  %7 = "tf.DataFormatDimMap"(%d) : (tensor<4xi32>) -> tensor<4xi32>
  %8 = "tf.ToBool"(%s) : (tensor<f32>) -> tensor<i1>
  %9 = "tf.Cross"(%u, %u) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %10 = "tf.L2Loss"(%x) : (tensor<2x6x4x3xf32>) -> tensor<f32>
  %11 = "tf.BiasAddGrad"(%x) {data_format = "NCHW"} : (tensor<2x6x4x3xf32>) -> tensor<6xf32>
  %ctl = "tf.ControlTrigger"() : () -> !tf.control
  %12 = "tf.Identity"(%s, %ctl) : (tensor<f32>, !tf.control) -> tensor<f32>
  return
}

// -----

// Tests that AdjustContrastv2 is (x - mean) * factor + mean, the mean over height and width.
// CHECK-LABEL: func.func @contrast
// CHECK: %[[AXES:.*]] = "tf.Const"() {dtype = i32, value = dense<[1, 2]> : tensor<2xi32>}
// CHECK: %[[MEAN:.*]] = "tf.Mean"(%arg0, %[[AXES]]) {keep_dims = true} : (tensor<2x4x5x3xf32>, tensor<2xi32>) -> tensor<2x1x1x3xf32>
// CHECK: %[[CENTRED:.*]] = "tf.Sub"(%arg0, %[[MEAN]])
// CHECK: %[[SCALED:.*]] = "tf.Mul"(%[[CENTRED]], %arg1)
// CHECK: "tf.AddV2"(%[[SCALED]], %[[MEAN]])
func.func @contrast(%x: tensor<2x4x5x3xf32>, %f: tensor<f32>) -> tensor<2x4x5x3xf32> {
  %0 = "tf.AdjustContrastv2"(%x, %f) : (tensor<2x4x5x3xf32>, tensor<f32>) -> tensor<2x4x5x3xf32>
  return %0 : tensor<2x4x5x3xf32>
}

// -----

// Tests that an Einsum label repeated in an input takes its diagonal: the two dimensions
// moved last, then MatrixDiagPart ("bii->bi"), before the usual decomposition.
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK-NOT: tf.Transpose
// CHECK: "tf.MatrixDiagPart"(%arg0) : (tensor<3x4x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: tf.Einsum
// CHECK-LABEL: func.func @einsum_diagonal_moved
// CHECK: %[[T:.*]] = "tf.Transpose"(%arg0, %{{.*}}) : (tensor<4x3x4xf32>, tensor<3xi64>) -> tensor<3x4x4xf32>
// CHECK: "tf.MatrixDiagPart"(%[[T]]) : (tensor<3x4x4xf32>) -> tensor<3x4xf32>
func.func @einsum_diagonal(%x: tensor<3x4x4xf32>) -> tensor<3x4xf32> {
  %0 = "tf.Einsum"(%x) {N = 1 : i64, equation = "bii->bi"} : (tensor<3x4x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @einsum_diagonal_moved(%x: tensor<4x3x4xf32>) -> tensor<3x4xf32> {
  %0 = "tf.Einsum"(%x) {N = 1 : i64, equation = "iji->ji"} : (tensor<4x3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
