// Round-trips every tf op through the printer and the parser, in MLIR's generic form, and
// checks that the verifier (each op's inferFn) accepts well-typed ops.
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --mlir-print-op-generic %s | kiln-opt --split-input-file | FileCheck %s

// Tests that a Placeholder keeps a shape attribute with an unknown dimension, an unknown
// rank and a scalar shape, and that without a shape its result is unranked.
// CHECK-LABEL: func.func @placeholder_shapes()
// CHECK: "tf.Placeholder"() {dtype = f32, shape = #tf.shape<?x784>} : () -> tensor<?x784xf32>
// CHECK: "tf.Placeholder"() {dtype = i32, shape = #tf.shape<*>} : () -> tensor<*xi32>
// CHECK: "tf.Placeholder"() {dtype = f64, shape = #tf.shape<>} : () -> tensor<f64>
// CHECK: "tf.Placeholder"() {dtype = ui16} : () -> tensor<*xui16>
func.func @placeholder_shapes() -> (tensor<?x784xf32>, tensor<*xi32>, tensor<f64>, tensor<*xui16>) {
  %0 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<?x784>} : () -> tensor<?x784xf32>
  %1 = "tf.Placeholder"() {dtype = i32, shape = #tf.shape<*>} : () -> tensor<*xi32>
  %2 = "tf.Placeholder"() {dtype = f64, shape = #tf.shape<>} : () -> tensor<f64>
  %3 = "tf.Placeholder"() {dtype = ui16} : () -> tensor<*xui16>
  return %0, %1, %2, %3 : tensor<?x784xf32>, tensor<*xi32>, tensor<f64>, tensor<*xui16>
}

// -----

// Tests that a Placeholder with a static shape of several dimensions round-trips.
// CHECK-LABEL: func.func @placeholder_static()
// CHECK: "tf.Placeholder"() {dtype = i64, shape = #tf.shape<2x3x4>} : () -> tensor<2x3x4xi64>
func.func @placeholder_static() -> tensor<2x3x4xi64> {
  %0 = "tf.Placeholder"() {dtype = i64, shape = #tf.shape<2x3x4>} : () -> tensor<2x3x4xi64>
  return %0 : tensor<2x3x4xi64>
}

// -----

// Tests that Consts of bool, uint8, half and bfloat16 keep their values and dtypes.
// CHECK-LABEL: func.func @const_dtypes()
// CHECK: "tf.Const"() {dtype = i1, value = dense<[true, false, true]> : tensor<3xi1>} : () -> tensor<3xi1>
// CHECK: "tf.Const"() {dtype = ui8, value = dense<[0, 7, 255]> : tensor<3xui8>} : () -> tensor<3xui8>
// CHECK: "tf.Const"() {dtype = f16, value = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>} : () -> tensor<2xf16>
// CHECK: "tf.Const"() {dtype = bf16, value = dense<[1.000000e+00, -2.500000e-01]> : tensor<2xbf16>} : () -> tensor<2xbf16>
func.func @const_dtypes() -> (tensor<3xi1>, tensor<3xui8>, tensor<2xf16>, tensor<2xbf16>) {
  %0 = "tf.Const"() {dtype = i1, value = dense<[true, false, true]> : tensor<3xi1>} : () -> tensor<3xi1>
  %1 = "tf.Const"() {dtype = ui8, value = dense<[0, 7, 255]> : tensor<3xui8>} : () -> tensor<3xui8>
  %2 = "tf.Const"() {dtype = f16, value = dense<[1.5, -2.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %3 = "tf.Const"() {dtype = bf16, value = dense<[1.0, -0.25]> : tensor<2xbf16>} : () -> tensor<2xbf16>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xui8>, tensor<2xf16>, tensor<2xbf16>
}

// -----

// Tests that a splat Const, a scalar Const and a Const without its optional dtype
// attribute round-trip.
// CHECK-LABEL: func.func @const_splat_scalar()
// CHECK: "tf.Const"() {dtype = f32, value = dense<2.500000e+00> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
// CHECK: "tf.Const"() {dtype = i32, value = dense<-7> : tensor<i32>} : () -> tensor<i32>
// CHECK: "tf.Const"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
func.func @const_splat_scalar() -> (tensor<2x3xf32>, tensor<i32>, tensor<1xi64>) {
  %0 = "tf.Const"() {dtype = f32, value = dense<2.5> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %1 = "tf.Const"() {dtype = i32, value = dense<-7> : tensor<i32>} : () -> tensor<i32>
  %2 = "tf.Const"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<i32>, tensor<1xi64>
}

// -----

// Tests that Identity returns its input's type.
// CHECK-LABEL: func.func @identity(
// CHECK: "tf.Identity"(%{{.*}}) {T = f32} : (tensor<4xf32>) -> tensor<4xf32>
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Identity"(%x) {T = f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that NoOp takes control operands of any type (tensors and other NoOps' tokens) and
// returns a !tf.control.
// CHECK-LABEL: func.func @noop_control(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<f32>
// CHECK: %[[N0:.*]] = "tf.NoOp"() : () -> !tf.control
// CHECK: %[[N1:.*]] = "tf.NoOp"(%[[A]], %[[B]], %[[N0]]) : (tensor<4xf32>, tensor<f32>, !tf.control) -> !tf.control
// CHECK: return %[[N1]] : !tf.control
func.func @noop_control(%a: tensor<4xf32>, %b: tensor<f32>) -> !tf.control {
  %0 = "tf.NoOp"() : () -> !tf.control
  %1 = "tf.NoOp"(%a, %b, %0) : (tensor<4xf32>, tensor<f32>, !tf.control) -> !tf.control
  return %1 : !tf.control
}

// -----

// Tests that control inputs follow an Add's two data inputs, and that the device attribute
// survives.
// CHECK-LABEL: func.func @add_control_inputs(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>
// CHECK: %[[N:.*]] = "tf.NoOp"() : () -> !tf.control
// CHECK: "tf.Add"(%[[X]], %[[Y]], %[[N]], %[[X]]) {T = f32, device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<4xf32>, tensor<4xf32>, !tf.control, tensor<4xf32>) -> tensor<4xf32>
func.func @add_control_inputs(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %n = "tf.NoOp"() : () -> !tf.control
  %0 = "tf.Add"(%x, %y, %n, %x) {T = f32, device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<4xf32>, tensor<4xf32>, !tf.control, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that every broadcasting binary op round-trips with equal shapes.
// CHECK-LABEL: func.func @binary_ops(
// CHECK: "tf.Add"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.AddV2"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Sub"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Mul"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.RealDiv"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Maximum"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Minimum"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Div"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.TruncateDiv"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.TruncateMod"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK: "tf.Mod"(%{{.*}}, %{{.*}}) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
func.func @binary_ops(%x: tensor<3xi32>, %y: tensor<3xi32>) {
  %0 = "tf.Add"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = "tf.AddV2"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %2 = "tf.Sub"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %3 = "tf.Mul"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %4 = "tf.RealDiv"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %5 = "tf.Maximum"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %6 = "tf.Minimum"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %7 = "tf.Div"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %8 = "tf.TruncateDiv"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %9 = "tf.TruncateMod"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %10 = "tf.Mod"(%x, %y) {T = i32} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// Tests that binary ops broadcast NumPy-style: size-1 dimensions stretch and the lower rank
// is padded on the left.
// CHECK-LABEL: func.func @broadcast(
// CHECK: "tf.Mul"(%{{.*}}, %{{.*}}) {T = f32} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: "tf.Sub"(%{{.*}}, %{{.*}}) : (tensor<2x1x5xf32>, tensor<f32>) -> tensor<2x1x5xf32>
func.func @broadcast(%x: tensor<4x1xf32>, %y: tensor<3xf32>, %z: tensor<2x1x5xf32>, %s: tensor<f32>) {
  %0 = "tf.Mul"(%x, %y) {T = f32} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = "tf.Sub"(%z, %s) : (tensor<2x1x5xf32>, tensor<f32>) -> tensor<2x1x5xf32>
  return
}

// -----

// Tests that binary ops accept dynamic and unranked operands, with a dynamic or unranked
// result.
// CHECK-LABEL: func.func @broadcast_dynamic(
// CHECK: "tf.Add"(%{{.*}}, %{{.*}}) : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
// CHECK: "tf.Maximum"(%{{.*}}, %{{.*}}) : (tensor<*xf64>, tensor<3xf64>) -> tensor<*xf64>
func.func @broadcast_dynamic(%x: tensor<?x3xf64>, %y: tensor<3xf64>, %u: tensor<*xf64>) {
  %0 = "tf.Add"(%x, %y) : (tensor<?x3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
  %1 = "tf.Maximum"(%u, %y) : (tensor<*xf64>, tensor<3xf64>) -> tensor<*xf64>
  return
}

// -----

// Tests that a declared result type less precise than the inferred one is accepted and
// kept (shape inference refines it later).
// CHECK-LABEL: func.func @less_precise_result(
// CHECK: "tf.Add"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK: "tf.Relu"(%{{.*}}) : (tensor<4xf32>) -> tensor<*xf32>
func.func @less_precise_result(%x: tensor<4xf32>) {
  %0 = "tf.Add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %1 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that the activations round-trip, Relu and Relu6 on integers too.
// CHECK-LABEL: func.func @activations(
// CHECK: "tf.Relu"(%{{.*}}) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: "tf.Relu6"(%{{.*}}) {T = i32} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK: "tf.Sigmoid"(%{{.*}}) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: "tf.Tanh"(%{{.*}}) {T = f16} : (tensor<2xf16>) -> tensor<2xf16>
// CHECK: "tf.Softmax"(%{{.*}}) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
func.func @activations(%x: tensor<4x10xf32>, %i: tensor<4xi32>, %h: tensor<2xf16>) {
  %0 = "tf.Relu"(%x) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = "tf.Relu6"(%i) {T = i32} : (tensor<4xi32>) -> tensor<4xi32>
  %2 = "tf.Sigmoid"(%x) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %3 = "tf.Tanh"(%h) {T = f16} : (tensor<2xf16>) -> tensor<2xf16>
  %4 = "tf.Softmax"(%x) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that MatMul takes the inner dimension from the transposed operands.
// CHECK-LABEL: func.func @matmul(
// CHECK: "tf.MatMul"(%{{.*}}, %{{.*}}) {T = f32, transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: "tf.MatMul"(%{{.*}}, %{{.*}}) {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK: "tf.MatMul"(%{{.*}}, %{{.*}}) : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %at: tensor<8x4xf32>, %bt: tensor<16x8xf32>, %d: tensor<?x8xf32>) {
  %0 = "tf.MatMul"(%a, %b) {T = f32, transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = "tf.MatMul"(%at, %bt) {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %2 = "tf.MatMul"(%d, %b) : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return
}

// -----

// Tests that BiasAdd adds along the last dimension in NHWC and along dimension 1 in NCHW.
// CHECK-LABEL: func.func @bias_add(
// CHECK: "tf.BiasAdd"(%{{.*}}, %{{.*}}) {T = f32, data_format = "NHWC"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK: "tf.BiasAdd"(%{{.*}}, %{{.*}}) {data_format = "NCHW"} : (tensor<2x3x5x5xf32>, tensor<3xf32>) -> tensor<2x3x5x5xf32>
// CHECK: "tf.BiasAdd"(%{{.*}}, %{{.*}}) {data_format = "NCHW"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK: "tf.BiasAdd"(%{{.*}}, %{{.*}}) : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
func.func @bias_add(%x: tensor<4x10xf32>, %b: tensor<10xf32>, %img: tensor<2x3x5x5xf32>, %c: tensor<3xf32>) {
  %0 = "tf.BiasAdd"(%x, %b) {T = f32, data_format = "NHWC"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %1 = "tf.BiasAdd"(%img, %c) {data_format = "NCHW"} : (tensor<2x3x5x5xf32>, tensor<3xf32>) -> tensor<2x3x5x5xf32>
  %2 = "tf.BiasAdd"(%x, %b) {data_format = "NCHW"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %3 = "tf.BiasAdd"(%x, %b) : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that Reshape takes its result shape from a constant shape operand, computing a -1
// dimension from the element count.
// CHECK-LABEL: func.func @reshape_const(
// CHECK: %[[S:.*]] = "tf.Const"() {value = dense<[3, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
// CHECK: "tf.Reshape"(%{{.*}}, %[[S]]) {T = f32, Tshape = i32} : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<3x4xf32>
// CHECK: %[[T:.*]] = "tf.Const"() {value = dense<[-1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
// CHECK: "tf.Reshape"(%{{.*}}, %[[T]]) : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<6x2xf32>
func.func @reshape_const(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[3, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Reshape"(%x, %s) {T = f32, Tshape = i32} : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<3x4xf32>
  %t = "tf.Const"() {value = dense<[-1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %1 = "tf.Reshape"(%x, %t) : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<6x2xf32>
  return
}

// -----

// Tests that Reshape with a shape operand that is not a constant has as many dynamic
// dimensions as the shape has elements, or an unknown rank when that is unknown too.
// CHECK-LABEL: func.func @reshape_dynamic(
// CHECK: "tf.Reshape"(%{{.*}}, %{{.*}}) : (tensor<2x6xf32>, tensor<3xi32>) -> tensor<?x?x?xf32>
// CHECK: "tf.Reshape"(%{{.*}}, %{{.*}}) : (tensor<2x6xf32>, tensor<?xi32>) -> tensor<*xf32>
func.func @reshape_dynamic(%x: tensor<2x6xf32>, %s: tensor<3xi32>, %d: tensor<?xi32>) {
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<3xi32>) -> tensor<?x?x?xf32>
  %1 = "tf.Reshape"(%x, %d) : (tensor<2x6xf32>, tensor<?xi32>) -> tensor<*xf32>
  return
}

// -----

// Tests that Cast changes the element type to DstT and keeps the shape, to and from bool.
// CHECK-LABEL: func.func @cast(
// CHECK: "tf.Cast"(%{{.*}}) {DstT = f32, SrcT = i32, Truncate = false} : (tensor<4xi32>) -> tensor<4xf32>
// CHECK: "tf.Cast"(%{{.*}}) {DstT = i1} : (tensor<4xi32>) -> tensor<4xi1>
// CHECK: "tf.Cast"(%{{.*}}) {DstT = bf16} : (tensor<?x2xi1>) -> tensor<?x2xbf16>
func.func @cast(%x: tensor<4xi32>, %b: tensor<?x2xi1>) {
  %0 = "tf.Cast"(%x) {DstT = f32, SrcT = i32, Truncate = false} : (tensor<4xi32>) -> tensor<4xf32>
  %1 = "tf.Cast"(%x) {DstT = i1} : (tensor<4xi32>) -> tensor<4xi1>
  %2 = "tf.Cast"(%b) {DstT = bf16} : (tensor<?x2xi1>) -> tensor<?x2xbf16>
  return
}

// -----

// Tests that attributes the op does not declare (TensorFlow's _class, _output_shapes)
// survive a round trip.
// CHECK-LABEL: func.func @unknown_attrs(
// CHECK: "tf.Identity"(%{{.*}}) {T = f32, _class = ["loc:@w"], _output_shapes = [#tf.shape<4>]} : (tensor<4xf32>) -> tensor<4xf32>
func.func @unknown_attrs(%x: tensor<4xf32>) {
  %0 = "tf.Identity"(%x) {T = f32, _class = ["loc:@w"], _output_shapes = [#tf.shape<4>]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests grappler's fused ops: the epilogue arguments follow the two data inputs (num_args of
// them), then the control inputs; the result type is inferred as for Conv2D and MatMul.
// CHECK-LABEL: func.func @fused(
// CHECK: "tf._FusedConv2D"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {fused_ops = ["BiasAdd", "Relu"], num_args = 1 : i64, padding = "SAME", strides = [1, 2, 2, 1]}
// CHECK: "tf._FusedMatMul"(%{{.*}}, %{{.*}}, %{{.*}}) {fused_ops = ["BiasAdd", "Tanh"], num_args = 1 : i64, transpose_b = true}
func.func @fused(%x: tensor<1x8x8x2xf32>, %f: tensor<3x3x2x4xf32>, %b: tensor<4xf32>,
                 %a: tensor<3x5xf32>, %w: tensor<4x5xf32>, %c: !tf.control) {
  %0 = "tf._FusedConv2D"(%x, %f, %b, %c) {fused_ops = ["BiasAdd", "Relu"], num_args = 1 : i64, padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>, !tf.control) -> tensor<1x4x4x4xf32>
  %1 = "tf._FusedMatMul"(%a, %w, %b) {fused_ops = ["BiasAdd", "Tanh"], num_args = 1 : i64, transpose_b = true} : (tensor<3x5xf32>, tensor<4x5xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests IdentityN (data inputs as listed in T, then control inputs), GatherNd, TopKV2 (two
// results, i32 indices unless index_type says otherwise) and Conv2DBackpropInput (the result
// shape is the constant input_sizes).
// CHECK-LABEL: func.func @more_ops(
// CHECK: "tf.IdentityN"(%{{.*}}, %{{.*}}, %{{.*}}) {T = [f32, i32]} : (tensor<4xf32>, tensor<i32>, !tf.control) -> (tensor<4xf32>, tensor<i32>)
// CHECK: "tf.GatherNd"(%{{.*}}, %{{.*}}) : (tensor<5x3x2xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
// CHECK: "tf.TopKV2"(%{{.*}}, %{{.*}}) {index_type = i64} : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK: "tf.Conv2DBackpropInput"(%{{.*}}, %{{.*}}, %{{.*}}) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32>
func.func @more_ops(%x: tensor<4xf32>, %n: tensor<i32>, %c: !tf.control, %p: tensor<5x3x2xf32>,
                    %i: tensor<4x2xi32>, %t: tensor<2x9xf32>, %f: tensor<3x3x2x4xf32>,
                    %dy: tensor<1x4x4x4xf32>) {
  %0:2 = "tf.IdentityN"(%x, %n, %c) {T = [f32, i32]} : (tensor<4xf32>, tensor<i32>, !tf.control) -> (tensor<4xf32>, tensor<i32>)
  %1 = "tf.GatherNd"(%p, %i) : (tensor<5x3x2xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %k = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %2:2 = "tf.TopKV2"(%t, %k) {index_type = i64} : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %s = "tf.Const"() {value = dense<[1, 8, 7, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %3 = "tf.Conv2DBackpropInput"(%s, %f, %dy) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32>
  return
}

// -----

// Tests _Send (no results) and _Recv (its result type given, the element type in
// tensor_type).
// CHECK-LABEL: func.func @send_recv(
// CHECK: "tf._Send"(%{{.*}}) {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1"} : (tensor<4xf32>) -> ()
// CHECK: "tf._Recv"() {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1", tensor_type = f32} : () -> tensor<4xf32>
func.func @send_recv(%x: tensor<4xf32>) {
  "tf._Send"(%x) {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1"} : (tensor<4xf32>) -> ()
  %0 = "tf._Recv"() {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1", tensor_type = f32} : () -> tensor<4xf32>
  return
}
