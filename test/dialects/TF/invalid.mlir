// One case per diagnostic of the tf ops' verifiers: the type inference functions in
// dialects/TF/Ops/*.cpp and the constraints ODS declares in TFOps.td. An inference error is
// followed by MLIR's generic "failed to infer returned types".
// RUN: kiln-opt --verify-diagnostics --split-input-file %s

// Tests that Add rejects operands of different element types.
func.func @add_element_types(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+2 {{inputs have different element types: float32 and int32}}
  // expected-error @+1 {{'tf.Add' op failed to infer returned types}}
  %0 = "tf.Add"(%x, %y) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// Tests that a binary op's T attribute must be its operands' element type.
func.func @add_t_mismatch(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{attribute T = int32 does not match the input element type float32}}
  // expected-error @+1 {{'tf.Add' op failed to infer returned types}}
  %0 = "tf.Add"(%x, %y) {T = i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that a T attribute that is not a type is rejected.
func.func @t_not_a_type(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'tf.Mul' op attribute 'T' failed to satisfy constraint: any type attribute}}
  %0 = "tf.Mul"(%x, %y) {T = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that binary ops reject shapes that do not broadcast.
func.func @add_not_broadcastable(%x: tensor<4x3xf32>, %y: tensor<2xf32>) {
  // expected-error @+2 {{shapes float32 [4,3] and float32 [2] are not broadcast-compatible}}
  // expected-error @+1 {{'tf.Sub' op failed to infer returned types}}
  %0 = "tf.Sub"(%x, %y) : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that a declared result shape that conflicts with the inferred one is rejected.
func.func @add_result_shape(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{'tf.Add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'tf.Add' op failed to infer returned types}}
  %0 = "tf.Add"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

// Tests that a declared result element type that differs from the inferred one is
// rejected.
func.func @relu_result_element_type(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tf.Relu' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'tf.Relu' op failed to infer returned types}}
  %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that a declared result rank that differs from the inferred one is rejected.
func.func @identity_result_rank(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tf.Identity' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'tf.Identity' op failed to infer returned types}}
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}

// -----

// Tests that Identity's T attribute must be its input's element type.
func.func @identity_t_mismatch(%x: tensor<4xf32>) {
  // expected-error @+2 {{attribute T = float64 does not match the input element type float32}}
  // expected-error @+1 {{'tf.Identity' op failed to infer returned types}}
  %0 = "tf.Identity"(%x) {T = f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that a binary op needs two data inputs.
func.func @add_one_operand(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tf.Add' op expected 2 or more operands, but found 1}}
  %0 = "tf.Add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that a control token cannot be a data input.
func.func @control_as_data() {
  %c = "tf.NoOp"() : () -> !tf.control
  // expected-error @+1 {{'tf.Relu' op operand #0 must be tensor of}}
  %0 = "tf.Relu"(%c) : (!tf.control) -> tensor<4xf32>
  return
}

// -----

// Tests that float-only activations reject integer tensors.
func.func @sigmoid_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tf.Sigmoid' op operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = "tf.Sigmoid"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// Tests that MatMul rejects operands of different element types.
func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+2 {{inputs have different element types: float32 and float16}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that MatMul's T attribute must be its operands' element type.
func.func @matmul_t_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{attribute T = float16 does not match the input element type float32}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) {T = f16} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that MatMul rejects an operand of rank other than 2.
func.func @matmul_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{inputs must be 2-D, got float32 [2,3,4] and float32 [4,5]}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that MatMul rejects a 1-D second operand.
func.func @matmul_rank_b(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inputs must be 2-D, got float32 [2,3] and float32 [3]}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that MatMul rejects inner dimensions that differ.
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{inner dimensions differ: float32 [2,3] times float32 [4,5]}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that MatMul takes the inner dimension of a transposed first operand from its
// dimension 0: 2x3 transposed is 3x2, which does not fit 3x4.
func.func @matmul_inner_transpose_a(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{inner dimensions differ: float32 [2,3] (transposed) times float32 [3,4]}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) {transpose_a = true} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that MatMul takes the inner dimension of a transposed second operand from its
// dimension 1: 3x4 transposed is 4x3, which does not fit 2x3.
func.func @matmul_inner_transpose_b(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{inner dimensions differ: float32 [2,3] times float32 [3,4] (transposed)}}
  // expected-error @+1 {{'tf.MatMul' op failed to infer returned types}}
  %0 = "tf.MatMul"(%a, %b) {transpose_b = true} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that BiasAdd rejects a value and a bias of different element types.
func.func @bias_add_element_types(%x: tensor<4x10xf32>, %b: tensor<10xf64>) {
  // expected-error @+2 {{value and bias have different element types: float32 and float64}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) : (tensor<4x10xf32>, tensor<10xf64>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that BiasAdd's data_format is NHWC or NCHW.
func.func @bias_add_data_format(%x: tensor<4x10xf32>, %b: tensor<10xf32>) {
  // expected-error @+2 {{data_format must be "NHWC" or "NCHW", got "NCDHW"}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) {data_format = "NCDHW"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that BiasAdd's bias is 1-D.
func.func @bias_add_bias_rank(%x: tensor<4x10xf32>, %b: tensor<1x10xf32>) {
  // expected-error @+2 {{bias must be 1-D, got float32 [1,10]}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) : (tensor<4x10xf32>, tensor<1x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that BiasAdd's value has rank 2 or more.
func.func @bias_add_value_rank(%x: tensor<10xf32>, %b: tensor<10xf32>) {
  // expected-error @+2 {{value must have rank 2 or more, got float32 [10]}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
  return
}

// -----

// Tests that in NHWC the bias must match the last dimension.
func.func @bias_add_channels_nhwc(%x: tensor<2x3x5x7xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{bias of 3 elements does not match channel dimension 3 of float32 [2,3,5,7]}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) {data_format = "NHWC"} : (tensor<2x3x5x7xf32>, tensor<3xf32>) -> tensor<2x3x5x7xf32>
  return
}

// -----

// Tests that in NCHW the bias must match dimension 1.
func.func @bias_add_channels_nchw(%x: tensor<2x3x5x7xf32>, %b: tensor<7xf32>) {
  // expected-error @+2 {{bias of 7 elements does not match channel dimension 1 of float32 [2,3,5,7]}}
  // expected-error @+1 {{'tf.BiasAdd' op failed to infer returned types}}
  %0 = "tf.BiasAdd"(%x, %b) {data_format = "NCHW"} : (tensor<2x3x5x7xf32>, tensor<7xf32>) -> tensor<2x3x5x7xf32>
  return
}

// -----

// Tests that Reshape's T attribute must be its input's element type.
func.func @reshape_t_mismatch(%x: tensor<2x6xf32>, %s: tensor<2xi32>) {
  // expected-error @+2 {{attribute T = int32 does not match the input element type float32}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) {T = i32} : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that Reshape rejects a shape operand that is not 1-D.
func.func @reshape_shape_rank(%x: tensor<2x6xf32>, %s: tensor<1x2xi32>) {
  // expected-error @+2 {{shape must be 1-D, got int32 [1,2]}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<1x2xi32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that Reshape's shape operand is an integer tensor of i32 or i64.
func.func @reshape_shape_type(%x: tensor<2x6xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'tf.Reshape' op operand #1 must be tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xf32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that Reshape rejects a shape with two -1 dimensions.
func.func @reshape_two_unknown(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[-1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{shape has more than one -1: [-1, -1]}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that Reshape rejects a negative dimension other than -1.
func.func @reshape_negative(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[-2, 6]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{shape has a negative dimension: [-2, 6]}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x6xf32>
  return
}

// -----

// Tests that Reshape without -1 must keep the number of elements.
func.func @reshape_count(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[5, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+2 {{cannot reshape float32 [2,6] (12 elements) to [5, 2] (10 elements)}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<5x2xf32>
  return
}

// -----

// Tests that Reshape with -1 needs the known dimensions to divide the number of elements.
func.func @reshape_count_unknown(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[-1, 5]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{cannot reshape float32 [2,6] (12 elements) to [-1, 5]}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x5xf32>
  return
}

// -----

// Tests that Reshape with -1 cannot compute it when another dimension is 0.
func.func @reshape_zero_unknown(%x: tensor<2x6xf32>) {
  %s = "tf.Const"() {value = dense<[0, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{cannot reshape float32 [2,6] (12 elements) to [0, -1]}}
  // expected-error @+1 {{'tf.Reshape' op failed to infer returned types}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<0x?xf32>
  return
}

// -----

// Tests that Cast requires its DstT attribute.
func.func @cast_no_dstt(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tf.Cast' op requires attribute 'DstT'}}
  %0 = "tf.Cast"(%x) : (tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// Tests that Cast's SrcT attribute must be its input's element type.
func.func @cast_srct_mismatch(%x: tensor<4xi32>) {
  // expected-error @+2 {{attribute SrcT = int64 does not match the input element type int32}}
  // expected-error @+1 {{'tf.Cast' op failed to infer returned types}}
  %0 = "tf.Cast"(%x) {DstT = f32, SrcT = i64} : (tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// Tests that Cast's result element type must be DstT.
func.func @cast_result_type(%x: tensor<4xi32>) {
  // expected-error @+2 {{'tf.Cast' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'tf.Cast' op failed to infer returned types}}
  %0 = "tf.Cast"(%x) {DstT = f32} : (tensor<4xi32>) -> tensor<4xf64>
  return
}

// -----

// Tests that Placeholder requires its dtype attribute.
func.func @placeholder_no_dtype() {
  // expected-error @+1 {{'tf.Placeholder' op requires attribute 'dtype'}}
  %0 = "tf.Placeholder"() : () -> tensor<4xf32>
  return
}

// -----

// Tests that a Placeholder's result type must fit its shape attribute.
func.func @placeholder_shape_mismatch() {
  // expected-error @+2 {{'tf.Placeholder' op inferred type(s) 'tensor<?x784xf32>' are incompatible with return type(s) of operation 'tensor<?x10xf32>'}}
  // expected-error @+1 {{'tf.Placeholder' op failed to infer returned types}}
  %0 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<?x784>} : () -> tensor<?x10xf32>
  return
}

// -----

// Tests that a Placeholder's result element type must be its dtype.
func.func @placeholder_dtype_mismatch() {
  // expected-error @+2 {{'tf.Placeholder' op inferred type(s) 'tensor<2xi32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'tf.Placeholder' op failed to infer returned types}}
  %0 = "tf.Placeholder"() {dtype = i32, shape = #tf.shape<2>} : () -> tensor<2xf32>
  return
}

// -----

// Tests that a Const's dtype attribute must be its value's element type.
func.func @const_dtype_mismatch() {
  // expected-error @+2 {{attribute dtype = int32 does not match the input element type float32}}
  // expected-error @+1 {{'tf.Const' op failed to infer returned types}}
  %0 = "tf.Const"() {dtype = i32, value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return
}

// -----

// Tests that Const requires its value attribute.
func.func @const_no_value() {
  // expected-error @+1 {{'tf.Const' op requires attribute 'value'}}
  %0 = "tf.Const"() {dtype = f32} : () -> tensor<4xf32>
  return
}

// -----

// Tests that a Const's result type must be its value's type.
func.func @const_result_shape() {
  // expected-error @+2 {{'tf.Const' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'tf.Const' op failed to infer returned types}}
  %0 = "tf.Const"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<3xf32>
  return
}

// -----

// Tests that NoOp returns a control token, not a tensor.
func.func @noop_result() {
  // expected-error @+1 {{'tf.NoOp' op result #0 must be a control token: ordering without data, but got 'tensor<f32>'}}
  %0 = "tf.NoOp"() : () -> tensor<f32>
  return
}

// -----

// Tests that the shape attribute rejects a malformed dimension list.
func.func @shape_attr_syntax() {
  // expected-error @+1 {{invalid dimension}}
  %0 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<2x*>} : () -> tensor<*xf32>
  return
}

// -----

// Tests that a convolution's input channels must match the filter's, or be a multiple of
// them (a grouped convolution).
func.func @conv_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{the input has 3 channels but the filter expects 2 (or a divisor of them, for a grouped convolution)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a grouped convolution's outputs must split evenly between its groups.
func.func @conv_group_outputs(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{the filter's 3 output channels do not split into the 2 groups of its 2 input channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x4xf32>, tensor<3x3x2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a depthwise convolution's channels must match its filter's (no groups).
func.func @depthwise_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x1xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{the input has 4 channels but the filter expects 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.DepthwiseConv2dNative"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x4xf32>, tensor<3x3x2x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that strides along the batch dimension are rejected.
func.func @conv_batch_stride(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{strides and dilations along the batch and channel dimensions must be 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [2, 1, 1, 1]} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that an unknown padding kind is rejected.
func.func @conv_padding(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{padding must be "SAME", "VALID" or "EXPLICIT", got "FULL"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2D"(%x, %w) {padding = "FULL", strides = [1, 1, 1, 1]} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that EXPLICIT padding needs its 8 values.
func.func @conv_explicit(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{EXPLICIT padding needs 8 explicit_paddings}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2D"(%x, %w) {padding = "EXPLICIT", strides = [1, 1, 1, 1], explicit_paddings = [0, 0]} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a VALID window larger than the input is rejected.
func.func @pool_too_large(%x: tensor<1x2x2x1xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{the window (3 elements with dilation) is larger than the 2 input elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.MaxPool"(%x) {ksize = [1, 3, 3, 1], padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x2x2x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that pooling across channels is rejected.
func.func @pool_channels(%x: tensor<1x4x4x2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{pooling windows along the batch and channel dimensions must be 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.AvgPool"(%x) {ksize = [1, 2, 2, 2], padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x4x4x2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that batch norm statistics must match the channel count.
func.func @batchnorm_channels(%x: tensor<1x2x2x3xf32>, %s: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{x has 3 channels but scale has 4 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:5 = "tf.FusedBatchNorm"(%x, %s, %s, %s, %s) {is_training = false} : (tensor<1x2x2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y#0 : tensor<*xf32>
}

// -----

// Tests that a reduction axis out of range is rejected.
func.func @reduce_axis(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %a = "tf.Const"() {value = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Sum"(%x, %a) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that ArgMax's output_type must be an integer index type.
func.func @argmax_type(%x: tensor<2x3xf32>) -> tensor<*xi64> {
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{output_type must be int32 or int64, got float32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.ArgMax"(%x, %d) {output_type = f32} : (tensor<2x3xf32>, tensor<i32>) -> tensor<*xi64>
  return %0 : tensor<*xi64>
}

// -----

// Tests that Transpose's perm must be a permutation.
func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %p = "tf.Const"() {value = dense<[0, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{perm is not a permutation of 0..1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Transpose"(%x, %p) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Squeeze refuses a dimension that is not 1.
func.func @squeeze_dim(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{cannot squeeze dimension 1 of size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Squeeze"(%x) {squeeze_dims = [1]} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that ExpandDims refuses an out-of-range dim.
func.func @expand_dim(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %d = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{dim 4 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.ExpandDims"(%x, %d) : (tensor<2x3xf32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Pad's paddings must be [rank, 2] and non-negative.
func.func @pad_shape(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %p = "tf.Const"() {value = dense<[1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{paddings must be [2, 2], got 2 values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Pad"(%x, %p) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that PadV2's constant must have the input's element type.
func.func @padv2_type(%x: tensor<2x3xf32>, %c: tensor<i32>) -> tensor<*xf32> {
  %p = "tf.Const"() {value = dense<1> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @+2 {{constant_values has element type int32; the input has float32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.PadV2"(%x, %p, %c) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Select's condition must match t or be a vector along its first dimension.
func.func @select_cond(%c: tensor<2x2xi1>, %t: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{must have the shape of t}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Select"(%c, %t, %t) : (tensor<2x2xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that comparisons of different element types are rejected.
func.func @compare_types(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<*xi1> {
  // expected-error @+2 {{inputs have different element types}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Less"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<*xi1>
  return %0 : tensor<*xi1>
}

// -----

// Tests that a list op's N cannot exceed its operands.
func.func @list_n(%a: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{N = 3 but the op has 2 operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.AddN"(%a, %a) {N = 3 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that ConcatV2 inputs must agree outside the axis.
func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<*xf32> {
  %axis = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{inputs differ in dimension 0 (2 and 3), which is not the concatenation axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.ConcatV2"(%a, %b, %axis) {N = 2 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a StridedSlice shrink index must be inside the dimension.
func.func @strided_shrink(%x: tensor<4xf32>) -> tensor<*xf32> {
  %b = "tf.Const"() {value = dense<4> : tensor<1xi32>} : () -> tensor<1xi32>
  %e = "tf.Const"() {value = dense<5> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tf.Const"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{index 4 is out of range for dimension 0 of size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.StridedSlice"(%x, %b, %e, %s) {shrink_axis_mask = 1 : i64} : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a Slice must stay inside the input.
func.func @slice_range(%x: tensor<4xf32>) -> tensor<*xf32> {
  %b = "tf.Const"() {value = dense<3> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tf.Const"() {value = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{slice [3, +2) is out of range for dimension 0 of size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Slice"(%x, %b, %s) : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that GatherV2's batch_dims may not exceed its axis.
func.func @gather_batch(%p: tensor<2x3xf32>, %i: tensor<2x1xi32>) -> tensor<*xf32> {
  %a = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{batch_dims = 2 must not exceed axis = 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.GatherV2"(%p, %i, %a) {batch_dims = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that BatchMatMul batch dimensions must broadcast.
func.func @bmm_batch(%x: tensor<2x3x4xf32>, %y: tensor<3x4x5xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.BatchMatMulV2"(%x, %y) : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Tile needs one multiple per dimension.
func.func @tile_rank(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %m = "tf.Const"() {value = dense<2> : tensor<3xi32>} : () -> tensor<3xi32>
  // expected-error @+2 {{multiples has 3 entries for an input of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Tile"(%x, %m) : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Split needs a dimension divisible by num_split.
func.func @split_uneven(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{dimension 1 of size 5 does not split into 2 equal parts}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = "tf.Split"(%d, %x) {num_split = 2 : i64} : (tensor<i32>, tensor<4x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

// Tests that SplitV sizes must add up.
func.func @splitv_sizes(%x: tensor<4x5xf32>) -> tensor<*xf32> {
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %s = "tf.Const"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{size_splits add up to 3, not the 5 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = "tf.SplitV"(%x, %s, %d) {num_split = 2 : i64} : (tensor<4x5xf32>, tensor<2xi32>, tensor<i32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0 : tensor<*xf32>
}

// -----

// Tests that MirrorPad REFLECT cannot pad by the dimension's size.
func.func @mirror_too_much(%x: tensor<3xf32>) -> tensor<*xf32> {
  %p = "tf.Const"() {value = dense<[[3, 0]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  // expected-error @+2 {{paddings of dimension 0 are too large for REFLECT mode and size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.MirrorPad"(%x, %p) {mode = "REFLECT"} : (tensor<3xf32>, tensor<1x2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that SpaceToDepth needs spatial sizes divisible by the block.
func.func @space_to_depth(%x: tensor<1x3x4x1xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{dimension of size 3 is not divisible by block_size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.SpaceToDepth"(%x) {block_size = 2 : i64} : (tensor<1x3x4x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that Range cannot go away from its limit.
func.func @range_direction() -> tensor<*xi32> {
  %s = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{start 5 cannot reach limit 1 with delta 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Range"(%s, %l, %d) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

// Tests that a Range too long for any machine is an error, not an integer overflow.
func.func @range_size() -> tensor<*xf32> {
  %s = "tf.Const"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %l = "tf.Const"() {value = dense<1.0e30> : tensor<f32>} : () -> tensor<f32>
  %d = "tf.Const"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  // expected-error @+2 {{start 0, limit 1e+30 and delta 1 make 1e+30 elements, more than 2^48}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Range"(%s, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that no op may infer a shape of more than 2^48 elements (Fill's dims multiply
// past int64 here).
func.func @fill_size(%v: tensor<f32>) -> tensor<*xf32> {
  %dims = "tf.Const"() {value = dense<[4294967296, 4294967296, 16]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @+2 {{output 0 would have the shape [4294967296,4294967296,16], more than 2^48 (281474976710656) elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Fill"(%dims, %v) : (tensor<3xi64>, tensor<f32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a reduction may not name a dimension twice (TensorFlow: "Axes contains
// duplicate dimension"), also as a negative axis.
func.func @duplicate_axes(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %a = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{axes 1 and -1 are both dimension 1; each dimension may be reduced once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Sum"(%x, %a) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a PlaceholderWithDefault's default must have its declared shape (TensorFlow's
// shape function merges the two).
func.func @placeholder_default(%d: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{the default value's shape [3] does not match the declared shape [2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.PlaceholderWithDefault"(%d) {dtype = f32, shape = #tf.shape<2>} : (tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a resize cannot both align corners and use pixel centres.
func.func @resize_modes(%x: tensor<1x2x2x1xf32>) -> tensor<*xf32> {
  %s = "tf.Const"() {value = dense<4> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{align_corners and half_pixel_centers cannot both be true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.ResizeBilinear"(%x, %s) {align_corners = true, half_pixel_centers = true} : (tensor<1x2x2x1xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a _FusedConv2D epilogue TensorFlow's CPU kernel lacks is refused by name.
func.func @fused_conv_tanh(%x: tensor<1x4x4x2xf32>, %f: tensor<1x1x2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{fused_ops ["BiasAdd", "Tanh"] is not supported (Kiln supports BiasAdd or FusedBatchNorm, optionally followed by Relu, Relu6, Elu, LeakyRelu)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf._FusedConv2D"(%x, %f, %b) {fused_ops = ["BiasAdd", "Tanh"], num_args = 1 : i64, padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that num_args must match the fused ops (FusedBatchNorm takes four).
func.func @fused_conv_args(%x: tensor<1x4x4x2xf32>, %f: tensor<1x1x2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{fused_ops ["FusedBatchNorm"] takes 4 arguments, but num_args is 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf._FusedConv2D"(%x, %f, %b) {fused_ops = ["FusedBatchNorm"], num_args = 1 : i64, padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that the bias of a _FusedMatMul has one value per output column.
func.func @fused_matmul_bias(%a: tensor<3x5xf32>, %w: tensor<5x4xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // expected-error @+2 {{epilogue argument 0 must be a vector of 4 values (one per output channel), got float32 [3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf._FusedMatMul"(%a, %w, %b) {fused_ops = ["BiasAdd"], num_args = 1 : i64} : (tensor<3x5xf32>, tensor<5x4xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that IdentityN's T must match its inputs.
func.func @identityn_types(%x: tensor<4xf32>, %n: tensor<i32>) {
  // expected-error @+2 {{T[1] = float32 does not match input 1 of type int32 []}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = "tf.IdentityN"(%x, %n) {T = [f32, f32]} : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  return
}

// -----

// Tests that GatherNd index tuples cannot be longer than the rank of params.
func.func @gathernd_depth(%p: tensor<5x3xf32>, %i: tensor<4x3xi32>) -> tensor<*xf32> {
  // expected-error @+2 {{index tuples have 3 entries but params float32 [5,3] has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.GatherNd"(%p, %i) : (tensor<5x3xf32>, tensor<4x3xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that TopKV2's k cannot exceed the row length.
func.func @topk_k(%x: tensor<2x3xf32>) {
  %k = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{k = 4 is larger than the last dimension of float32 [2,3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = "tf.TopKV2"(%x, %k) : (tensor<2x3xf32>, tensor<i32>) -> (tensor<*xf32>, tensor<*xi32>)
  return
}

// -----

// Tests that Conv2DBackpropInput's gradient must have the forward Conv2D's output shape.
func.func @backprop_shape(%f: tensor<3x3x2x4xf32>, %dy: tensor<1x5x4x4xf32>) -> tensor<*xf32> {
  %s = "tf.Const"() {value = dense<[1, 8, 7, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  // expected-error @+2 {{out_backprop float32 [1,5,4,4] is not the shape of the Conv2D output float32 [1,4,4,4] for input_sizes float32 [1,8,7,2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tf.Conv2DBackpropInput"(%s, %f, %dy) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x5x4x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a label repeated within one input (a diagonal) must have one size.
func.func @einsum_diagonal(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{label 'i'}}
  // expected-error @+1 {{'tf.Einsum' op failed to infer returned types}}
  %0 = "tf.Einsum"(%x) {N = 1 : i64, equation = "ii->i"} : (tensor<3x4xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that an Einsum's terms must label every dimension of their inputs.
func.func @einsum_rank(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+2 {{equation 'ijk,kl->il' labels 3 dimensions of input 0, which has rank 2}}
  // expected-error @+1 {{'tf.Einsum' op failed to infer returned types}}
  %0 = "tf.Einsum"(%x, %y) {N = 2 : i64, equation = "ijk,kl->il"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

// Tests that a label's sizes must agree across inputs.
func.func @einsum_sizes(%x: tensor<3x4xf32>, %y: tensor<5x6xf32>) {
  // expected-error @+2 {{equation 'ij,jk->ik': label 'j' has size 4 in one input and 5 in input 1}}
  // expected-error @+1 {{'tf.Einsum' op failed to infer returned types}}
  %0 = "tf.Einsum"(%x, %y) {N = 2 : i64, equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

// Tests that every output label must come from an input, and the term count must match.
func.func @einsum_output(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+2 {{equation 'ij,jk->iz': output label 'z' is not in any input}}
  // expected-error @+1 {{'tf.Einsum' op failed to infer returned types}}
  %0 = "tf.Einsum"(%x, %y) {N = 2 : i64, equation = "ij,jk->iz"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @einsum_terms(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+2 {{equation 'ij->ij' has 1 input term for 2 inputs}}
  // expected-error @+1 {{'tf.Einsum' op failed to infer returned types}}
  %0 = "tf.Einsum"(%x, %y) {N = 2 : i64, equation = "ij->ij"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that a loop variable must keep its dtype through the body (a changing shape is
// kiln-graph-infer-shapes's to unroll or reject).
func.func @while_changes_dtype(%x: tensor<2xf32>) {
  // expected-error @+1 {{loop variable 0 is float32 [2] before the loop but the body makes it int32 [2]: Kiln compiles loops whose variables keep their dtypes}}
  %0 = "tf.While"(%x) ({
  ^bb0(%v: tensor<2xf32>):
    %t = "tf.Const"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "tf.Yield"(%t) : (tensor<i1>) -> ()
  }, {
  ^bb0(%v: tensor<2xf32>):
    %w = "tf.Cast"(%v) {DstT = i32} : (tensor<2xf32>) -> tensor<2xi32>
    "tf.Yield"(%w) : (tensor<2xi32>) -> ()
  }) {T = [f32]} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that a loop's condition yields one tensor.
func.func @while_cond_results(%x: tensor<2xf32>) {
  // expected-error @+1 {{cond must yield one tensor, not 2 values}}
  %0 = "tf.While"(%x) ({
  ^bb0(%v: tensor<2xf32>):
    "tf.Yield"(%v, %v) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }, {
  ^bb0(%v: tensor<2xf32>):
    "tf.Yield"(%v) : (tensor<2xf32>) -> ()
  }) {T = [f32]} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that a branch takes one argument per input, of the input's type.
func.func @if_arguments(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{branch 1 argument 0 of type int32 [2] does not match input 0 of type float32 [2]}}
  %0 = "tf.If"(%c, %x) ({
  ^bb0(%v: tensor<2xf32>):
    "tf.Yield"(%v) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%v: tensor<2xi32>):
    %f = "tf.Cast"(%v) {DstT = f32} : (tensor<2xi32>) -> tensor<2xf32>
    "tf.Yield"(%f) : (tensor<2xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that the branches must agree on their results' dtypes.
func.func @if_results(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{result 0 of type float32 [2] does not match branch 1's int32 [2]}}
  %0 = "tf.If"(%c, %x) ({
  ^bb0(%v: tensor<2xf32>):
    "tf.Yield"(%v) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%v: tensor<2xf32>):
    %i = "tf.Cast"(%v) {DstT = i32} : (tensor<2xf32>) -> tensor<2xi32>
    "tf.Yield"(%i) : (tensor<2xi32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that Case's branch index is an int32 scalar.
func.func @case_index(%i: tensor<2xi32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{branch_index must be an int32 scalar, not int32 [2]}}
  %0 = "tf.Case"(%i, %x) ({
  ^bb0(%v: tensor<2xf32>):
    "tf.Yield"(%v) : (tensor<2xf32>) -> ()
  }) {Tin = [f32]} : (tensor<2xi32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that ReverseV2's axes must be in range and distinct.
func.func @reverse_twice(%x: tensor<2x3xf32>) {
  %a = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{axis -1 is given twice}}
  // expected-error @+1 {{'tf.ReverseV2' op failed to infer returned types}}
  %0 = "tf.ReverseV2"(%x, %a) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reverse_range(%x: tensor<2x3xf32>) {
  %a = "tf.Const"() {value = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'tf.ReverseV2' op failed to infer returned types}}
  %0 = "tf.ReverseV2"(%x, %a) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that lists keep their length.
func.func @list_resize(%l: tensor<5x3xf32>, %i: tensor<i32>, %v: tensor<3xf32>) {
  // expected-error @+2 {{resize_if_index_out_of_bounds is not supported: lists keep their length}}
  // expected-error @+1 {{'tf.TensorListSetItem' op failed to infer returned types}}
  %0 = "tf.TensorListSetItem"(%l, %i, %v) {element_dtype = f32, resize_if_index_out_of_bounds = true} : (tensor<5x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

// Tests that ClipByValue's bounds are scalars or have the shape of t.
func.func @clip_bound_shape(%t: tensor<4x3xf32>, %lo: tensor<3xf32>, %hi: tensor<f32>) {
  // expected-error @+2 {{clip_value_min must be a scalar or have the shape of t float32 [4,3], got float32 [3]}}
  // expected-error @+1 {{'tf.ClipByValue' op failed to infer returned types}}
  %0 = "tf.ClipByValue"(%t, %lo, %hi) : (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that ClipByValue's bounds have t's element type.
func.func @clip_bound_type(%t: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<i32>) {
  // expected-error @+2 {{t and clip_value_max have different element types: float32 and int32}}
  // expected-error @+1 {{'tf.ClipByValue' op failed to infer returned types}}
  %0 = "tf.ClipByValue"(%t, %lo, %hi) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

// Tests that ApproximateEqual does not broadcast.
func.func @approximate_equal_shapes(%x: tensor<4xf32>, %y: tensor<f32>) {
  // expected-error @+2 {{x and y must have the same shape, got float32 [4] and float32 []}}
  // expected-error @+1 {{'tf.ApproximateEqual' op failed to infer returned types}}
  %0 = "tf.ApproximateEqual"(%x, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  return
}

// -----

// Tests that the bitwise ops take integers only.
func.func @bitwise_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tf.BitwiseAnd' op operand #0 must be tensor of}}
  %0 = "tf.BitwiseAnd"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that BroadcastTo's input must broadcast to the shape.
func.func @broadcast_to_mismatch(%x: tensor<2x3xf32>) {
  %s = "tf.Const"() {dtype = i32, value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{the input float32 [2,3] does not broadcast to the shape [4,3]}}
  // expected-error @+1 {{'tf.BroadcastTo' op failed to infer returned types}}
  %0 = "tf.BroadcastTo"(%x, %s) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that MatrixBandPart needs matrices and scalar bounds.
func.func @band_part_vector(%x: tensor<4xf32>, %b: tensor<i64>) {
  // expected-error @+2 {{the input must have rank 2 or more, got float32 [4]}}
  // expected-error @+1 {{'tf.MatrixBandPart' op failed to infer returned types}}
  %0 = "tf.MatrixBandPart"(%x, %b, %b) : (tensor<4xf32>, tensor<i64>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @band_part_bounds(%x: tensor<4x4xf32>, %b: tensor<i64>, %v: tensor<2xi64>) {
  // expected-error @+2 {{num_upper must be a scalar, got int64 [2]}}
  // expected-error @+1 {{'tf.MatrixBandPart' op failed to infer returned types}}
  %0 = "tf.MatrixBandPart"(%x, %b, %v) : (tensor<4x4xf32>, tensor<i64>, tensor<2xi64>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that SpaceToBatchND's padded dimensions must be multiples of the block.
func.func @space_to_batch_divisible(%x: tensor<1x5x4x3xf32>) {
  %block = "tf.Const"() {dtype = i32, value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  %pads = "tf.Const"() {dtype = i32, value = dense<0> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @+2 {{dimension 1 padded to 5 is not a multiple of its block size 2}}
  // expected-error @+1 {{'tf.SpaceToBatchND' op failed to infer returned types}}
  %0 = "tf.SpaceToBatchND"(%x, %block, %pads) : (tensor<1x5x4x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  return
}

// -----

// Tests that BatchToSpaceND's batch must hold whole blocks and its crops must fit.
func.func @batch_to_space_batch(%x: tensor<3x2x2x1xf32>) {
  %block = "tf.Const"() {dtype = i32, value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  %crops = "tf.Const"() {dtype = i32, value = dense<0> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @+2 {{the batch 3 is not a multiple of the block's 4 elements}}
  // expected-error @+1 {{'tf.BatchToSpaceND' op failed to infer returned types}}
  %0 = "tf.BatchToSpaceND"(%x, %block, %crops) : (tensor<3x2x2x1xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @batch_to_space_crops(%x: tensor<4x2x2x1xf32>) {
  %block = "tf.Const"() {dtype = i32, value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  %crops = "tf.Const"() {dtype = i32, value = dense<[[3, 2], [0, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @+2 {{crops 3 and 2 do not fit dimension 1 of 2 times 2}}
  // expected-error @+1 {{'tf.BatchToSpaceND' op failed to infer returned types}}
  %0 = "tf.BatchToSpaceND"(%x, %block, %crops) : (tensor<4x2x2x1xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  return
}

// -----

// Tests that Conv3D and the 3-D pools take NDHWC only, SAME or VALID, and 5 strides.
func.func @conv3d_format(%x: tensor<1x2x4x4x2xf32>, %w: tensor<1x1x1x2x3xf32>) {
  // expected-error @+2 {{data_format must be "NDHWC" (TensorFlow's CPU kernels have no other), got "NCDHW"}}
  // expected-error @+1 {{'tf.Conv3D' op failed to infer returned types}}
  %0 = "tf.Conv3D"(%x, %w) {data_format = "NCDHW", padding = "SAME", strides = [1, 1, 1, 1, 1]} : (tensor<1x2x4x4x2xf32>, tensor<1x1x1x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv3d_groups(%x: tensor<1x4x4x4x5xf32>, %w: tensor<1x1x1x2x3xf32>) {
  // expected-error @+2 {{the input's 5 channels are not groups of the filter's 2 input channels with 3 outputs}}
  // expected-error @+1 {{'tf.Conv3D' op failed to infer returned types}}
  %0 = "tf.Conv3D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1, 1]} : (tensor<1x4x4x4x5xf32>, tensor<1x1x1x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool3d_ksize(%x: tensor<1x4x4x4x2xf32>) {
  // expected-error @+2 {{ksize must have 5 entries}}
  // expected-error @+1 {{'tf.MaxPool3D' op failed to infer returned types}}
  %0 = "tf.MaxPool3D"(%x) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 1, 1, 1, 1]} : (tensor<1x4x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool3d_explicit(%x: tensor<1x4x4x4x2xf32>) {
  // expected-error @+2 {{padding must be "SAME" or "VALID", got "EXPLICIT"}}
  // expected-error @+1 {{'tf.AvgPool3D' op failed to infer returned types}}
  %0 = "tf.AvgPool3D"(%x) {ksize = [1, 2, 2, 2, 1], padding = "EXPLICIT", strides = [1, 1, 1, 1, 1]} : (tensor<1x4x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that Cumsum's axis is a scalar in range.
func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  %a = "tf.Const"() {dtype = i32, value = dense<2> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{axis 2 is out of range for an input of rank 2}}
  // expected-error @+1 {{'tf.Cumsum' op failed to infer returned types}}
  %0 = "tf.Cumsum"(%x, %a) : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that EnsureShape's shape must be compatible with its input's.
func.func @ensure_shape(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{the input float32 [2,3] does not have the shape [3,3]}}
  // expected-error @+1 {{'tf.EnsureShape' op failed to infer returned types}}
  %0 = "tf.EnsureShape"(%x) {shape = #tf.shape<3x3>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that LinSpace needs a positive number of values.
func.func @linspace_num(%a: tensor<f32>) {
  %n = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{num must be positive, got 0}}
  // expected-error @+1 {{'tf.LinSpace' op failed to infer returned types}}
  %0 = "tf.LinSpace"(%a, %a, %n) : (tensor<f32>, tensor<f32>, tensor<i32>) -> tensor<*xf32>
  return
}

// -----

// Tests that Bucketize's boundaries must be sorted.
func.func @bucketize_unsorted(%x: tensor<4xf32>) {
  // expected-error @+2 {{boundaries must be sorted, got 0.000000e+00 after 1.000000e+00}}
  // expected-error @+1 {{'tf.Bucketize' op failed to infer returned types}}
  %0 = "tf.Bucketize"(%x) {boundaries = [1.0 : f32, 0.0 : f32]} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

// Tests that ReverseSequence's dimensions differ and its lengths cover the batch.
func.func @reverse_sequence_dims(%x: tensor<2x5xf32>, %n: tensor<2xi32>) {
  // expected-error @+2 {{seq_dim 1 and batch_dim 1 must be two different dimensions of an input of rank 2}}
  // expected-error @+1 {{'tf.ReverseSequence' op failed to infer returned types}}
  %0 = "tf.ReverseSequence"(%x, %n) {seq_dim = 1 : i64, batch_dim = 1 : i64} : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @roll_sizes(%x: tensor<2x5xf32>, %s: tensor<2xi32>, %a: tensor<i32>) {
  // expected-error @+2 {{shift has 2 entries but axis has 1}}
  // expected-error @+1 {{'tf.Roll' op failed to infer returned types}}
  %0 = "tf.Roll"(%x, %s, %a) : (tensor<2x5xf32>, tensor<2xi32>, tensor<i32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @grad_shapes(%g: tensor<4xf32>, %x: tensor<5xf32>) {
  // expected-error @+2 {{the operands must have the same shape, got float32 [4] and float32 [5]}}
  // expected-error @+1 {{'tf.ReluGrad' op failed to infer returned types}}
  %0 = "tf.ReluGrad"(%g, %x) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bias_add_grad_rank(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{out_backprop must have rank 3 or more for data_format "NCHW"}}
  // expected-error @+1 {{'tf.BiasAddGrad' op failed to infer returned types}}
  %0 = "tf.BiasAddGrad"(%x) {data_format = "NCHW"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @data_format_letters(%x: tensor<4xi32>) {
  // expected-error @+2 {{src_format "NHWC" and dst_format "NCHH" must be permutations of one another}}
  // expected-error @+1 {{'tf.DataFormatDimMap' op failed to infer returned types}}
  %0 = "tf.DataFormatDimMap"(%x) {dst_format = "NCHH"} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @vec_permute_size(%x: tensor<3xi32>) {
  // expected-error @+2 {{x must be a vector of 4 or 2 entries or a [4, 2] or [2, 2] matrix}}
  // expected-error @+1 {{'tf.DataFormatVecPermute' op failed to infer returned types}}
  %0 = "tf.DataFormatVecPermute"(%x) : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @cross_last(%a: tensor<2x4xf32>) {
  // expected-error @+2 {{a and b must have a last dimension of 3, got float32 [2,4]}}
  // expected-error @+1 {{'tf.Cross' op failed to infer returned types}}
  %0 = "tf.Cross"(%a, %a) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @batch_matmul_v3_mixed(%a: tensor<2x3xi8>, %b: tensor<3x2xui8>) {
  // expected-error @+2 {{Kiln multiplies operands of one dtype, got int8 and uint8}}
  // expected-error @+1 {{'tf.BatchMatMulV3' op failed to infer returned types}}
  %0 = "tf.BatchMatMulV3"(%a, %b) {Tout = i32} : (tensor<2x3xi8>, tensor<3x2xui8>) -> tensor<2x2xi32>
  return
}

// -----

func.func @broadcast_args_incompatible() {
  %a = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<[4]> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{shapes [2,3] and [4] do not broadcast}}
  // expected-error @+1 {{'tf.BroadcastGradientArgs' op failed to infer returned types}}
  %0:2 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi32>, tensor<1xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  return
}

// -----

func.func @concat_offset_mismatch(%x: tensor<2x3xf32>) {
  %axis = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %a = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<[4, 5]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{shape [4,5] does not match [2,3] outside dimension 1}}
  // expected-error @+1 {{'tf.ConcatOffset' op failed to infer returned types}}
  %0:2 = "tf.ConcatOffset"(%axis, %a, %b) {N = 2 : i64} : (tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  return
}

// -----

func.func @space_to_batch_block(%x: tensor<1x4x4x1xf32>, %p: tensor<2x2xi32>) {
  // expected-error @+2 {{block_size must be an integer of 2 or more}}
  // expected-error @+1 {{'tf.SpaceToBatch' op failed to infer returned types}}
  %0 = "tf.SpaceToBatch"(%x, %p) {block_size = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<2x2xi32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @segment_prefix(%d: tensor<5x3xf32>, %ids: tensor<3xi32>, %n: tensor<i32>) {
  // expected-error @+2 {{segment_ids' shape [3] must be a prefix of data's [5,3]}}
  // expected-error @+1 {{'tf.UnsortedSegmentSum' op failed to infer returned types}}
  %0 = "tf.UnsortedSegmentSum"(%d, %ids, %n) : (tensor<5x3xf32>, tensor<3xi32>, tensor<i32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @sorted_segment_rank(%d: tensor<2x3xf32>, %ids: tensor<2x3xi32>, %n: tensor<i32>) {
  // expected-error @+2 {{segment_ids must be a vector, got int32 [2,3]}}
  // expected-error @+1 {{'tf.SegmentSumV2' op failed to infer returned types}}
  %0 = "tf.SegmentSumV2"(%d, %ids, %n) : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<i32>) -> tensor<?xf32>
  return
}

// -----

func.func @bincount_weights(%a: tensor<4xi32>, %s: tensor<i32>, %w: tensor<3xf32>) {
  // expected-error @+2 {{weights must be empty or have the values' shape int32 [4], got float32 [3]}}
  // expected-error @+1 {{'tf.Bincount' op failed to infer returned types}}
  %0 = "tf.Bincount"(%a, %s, %w) : (tensor<4xi32>, tensor<i32>, tensor<3xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @scatter_updates(%t: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expected-error @+2 {{updates must have the shape [2,3], got float32 [2,4]}}
  // expected-error @+1 {{'tf.TensorScatterAdd' op failed to infer returned types}}
  %0 = "tf.TensorScatterAdd"(%t, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_depth(%t: tensor<4x3xf32>, %i: tensor<2x3xi32>, %u: tensor<2xf32>) {
  // expected-error @+2 {{the last dimension of indices (3) must be from 1 to the rank of [4,3]}}
  // expected-error @+1 {{'tf.TensorScatterUpdate' op failed to infer returned types}}
  %0 = "tf.TensorScatterUpdate"(%t, %i, %u) : (tensor<4x3xf32>, tensor<2x3xi32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @sparse_to_dense_rank(%i: tensor<3x2xi32>, %v: tensor<3xf32>, %d: tensor<f32>) {
  %shape = "tf.Const"() {value = dense<[3, 4, 5]> : tensor<3xi32>} : () -> tensor<3xi32>
  // expected-error @+2 {{sparse_indices hold indices of rank 2 for output_shape [3,4,5]}}
  // expected-error @+1 {{'tf.SparseToDense' op failed to infer returned types}}
  %0 = "tf.SparseToDense"(%i, %shape, %v, %d) : (tensor<3x2xi32>, tensor<3xi32>, tensor<3xf32>, tensor<f32>) -> tensor<3x4x5xf32>
  return
}

// -----

func.func @diag_part_align(%x: tensor<3x5xf32>, %pad: tensor<f32>) {
  %k = "tf.Const"() {value = dense<[-1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{align must be LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT or RIGHT_RIGHT, got "UP"}}
  // expected-error @+1 {{'tf.MatrixDiagPartV3' op failed to infer returned types}}
  %0 = "tf.MatrixDiagPartV3"(%x, %k, %pad) {align = "UP"} : (tensor<3x5xf32>, tensor<2xi32>, tensor<f32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @diag_part_k(%x: tensor<3x5xf32>, %pad: tensor<f32>) {
  %k = "tf.Const"() {value = dense<[2, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{k must be a diagonal or a range [lo, hi] with lo <= hi, got [2,-1]}}
  // expected-error @+1 {{'tf.MatrixDiagPartV2' op failed to infer returned types}}
  %0 = "tf.MatrixDiagPartV2"(%x, %k, %pad) : (tensor<3x5xf32>, tensor<2xi32>, tensor<f32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @matrix_diag_size(%d: tensor<4xf32>, %pad: tensor<f32>) {
  %k = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %rows = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{a 3x3 matrix cannot hold diagonals 0 to 0 of 4 entries}}
  // expected-error @+1 {{'tf.MatrixDiagV3'}}
  %0 = "tf.MatrixDiagV3"(%d, %k, %rows, %rows, %pad) : (tensor<4xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @set_diag_shape(%x: tensor<4x5xf32>, %d: tensor<5xf32>) {
  // expected-error @+2 {{diagonal must have the shape [4], got float32 [5]}}
  // expected-error @+1 {{'tf.MatrixSetDiag' op failed to infer returned types}}
  %0 = "tf.MatrixSetDiag"(%x, %d) : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @diag_part_halves(%x: tensor<2x3x3x2xf32>) {
  // expected-error @+2 {{input must have a shape [D..., D...], got float32 [2,3,3,2]}}
  // expected-error @+1 {{'tf.DiagPart' op failed to infer returned types}}
  %0 = "tf.DiagPart"(%x) : (tensor<2x3x3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @search_rows(%s: tensor<2x6xf32>, %v: tensor<3x4xf32>) {
  // expected-error @+2 {{sorted_inputs and values must have the same leading dimensions (rows), got float32 [2,6] and float32 [3,4]}}
  // expected-error @+1 {{'tf.LowerBound' op failed to infer returned types}}
  %0 = "tf.LowerBound"(%s, %v) : (tensor<2x6xf32>, tensor<3x4xf32>) -> tensor<3x4xi32>
  return
}

// -----

func.func @in_top_k_targets(%p: tensor<3x4xf32>, %t: tensor<2xi32>, %k: tensor<i32>) {
  // expected-error @+2 {{targets must have one entry per row of predictions, got int32 [2] for float32 [3,4]}}
  // expected-error @+1 {{'tf.InTopKV2' op failed to infer returned types}}
  %0 = "tf.InTopKV2"(%p, %t, %k) : (tensor<3x4xf32>, tensor<2xi32>, tensor<i32>) -> tensor<3xi1>
  return
}

// -----

func.func @patches_ksizes(%x: tensor<1x4x4x2xf32>) {
  // expected-error @+2 {{ksizes must be [1, rows, cols, 1] of positive sizes}}
  // expected-error @+1 {{'tf.ExtractImagePatches' op failed to infer returned types}}
  %0 = "tf.ExtractImagePatches"(%x) {ksizes = [2, 2, 2, 1], strides = [1, 1, 1, 1], rates = [1, 1, 1, 1], padding = "VALID"} : (tensor<1x4x4x2xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

func.func @hsv_channels(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{images must have 3 channels in the last dimension, got float32 [2,4]}}
  // expected-error @+1 {{'tf.RGBToHSV' op failed to infer returned types}}
  %0 = "tf.RGBToHSV"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @fake_quant_range(%x: tensor<4xf32>) {
  // expected-error @+2 {{min has to be smaller than max, got min 2.000000e+00 and max 1.000000e+00}}
  // expected-error @+1 {{'tf.FakeQuantWithMinMaxArgs' op failed to infer returned types}}
  %0 = "tf.FakeQuantWithMinMaxArgs"(%x) {min = 2.0 : f32, max = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @fake_quant_channels(%x: tensor<3x8xf32>, %lo: tensor<4xf32>) {
  // expected-error @+2 {{min and max must be vectors of the last dimension of inputs float32 [3,8], got float32 [4]}}
  // expected-error @+1 {{'tf.FakeQuantWithMinMaxVarsPerChannel' op failed to infer returned types}}
  %0 = "tf.FakeQuantWithMinMaxVarsPerChannel"(%x, %lo, %lo) : (tensor<3x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @conv3d_backprop_shape(%f: tensor<3x2x3x3x4xf32>, %g: tensor<2x3x6x5x4xf32>) {
  %sizes = "tf.Const"() {value = dense<[2, 5, 6, 7, 3]> : tensor<5xi32>} : () -> tensor<5xi32>
  // expected-error @+2 {{out_backprop must have the forward Conv3D's output shape float32 [2,3,6,4,4], got float32 [2,3,6,5,4]}}
  // expected-error @+1 {{'tf.Conv3DBackpropInputV2' op failed to infer returned types}}
  %0 = "tf.Conv3DBackpropInputV2"(%sizes, %f, %g) {padding = "SAME", strides = [1, 2, 1, 2, 1]} : (tensor<5xi32>, tensor<3x2x3x3x4xf32>, tensor<2x3x6x5x4xf32>) -> tensor<2x5x6x7x3xf32>
  return
}

// -----

func.func @crop_boxes(%x: tensor<2x5x6x3xf32>, %b: tensor<4x3xf32>, %i: tensor<4xi32>, %s: tensor<2xi32>) {
  // expected-error @+2 {{boxes must be [num_boxes, 4], got float32 [4,3]}}
  // expected-error @+1 {{'tf.CropAndResize' op failed to infer returned types}}
  %0 = "tf.CropAndResize"(%x, %b, %i, %s) : (tensor<2x5x6x3xf32>, tensor<4x3xf32>, tensor<4xi32>, tensor<2xi32>) -> tensor<4x?x?x3xf32>
  return
}

// -----

func.func @bitcast_last(%x: tensor<2x3xui8>) {
  // expected-error @+2 {{bitcasting uint8 to float32 needs a last dimension of 4, got uint8 [2,3]}}
  // expected-error @+1 {{'tf.Bitcast' op failed to infer returned types}}
  %0 = "tf.Bitcast"(%x) {type = f32} : (tensor<2x3xui8>) -> tensor<2xf32>
  return
}

// -----

func.func @unique_rank(%x: tensor<2x3xi32>) {
  // expected-error @+2 {{x must have rank 1, got int32 [2,3]}}
  // expected-error @+1 {{'tf.Unique' op failed to infer returned types}}
  %y, %i = "tf.Unique"(%x) : (tensor<2x3xi32>) -> (tensor<?xi32>, tensor<6xi32>)
  return
}

// -----

func.func @nms_boxes(%b: tensor<5x3xf32>, %s: tensor<5xf32>, %n: tensor<i32>, %t: tensor<f32>) {
  // expected-error @+2 {{boxes must be [num_boxes, 4], got float32 [5,3]}}
  // expected-error @+1 {{'tf.NonMaxSuppressionV3' op failed to infer returned types}}
  %0 = "tf.NonMaxSuppressionV3"(%b, %s, %n, %t, %t) : (tensor<5x3xf32>, tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?xi32>
  return
}

// -----

func.func @nms_scores(%b: tensor<5x4xf32>, %s: tensor<6xf32>, %n: tensor<i32>, %t: tensor<f32>) {
  // expected-error @+2 {{the numbers of boxes and scores must agree, got 5 and 6}}
  // expected-error @+1 {{'tf.NonMaxSuppressionV3' op failed to infer returned types}}
  %0 = "tf.NonMaxSuppressionV3"(%b, %s, %n, %t, %t) : (tensor<5x4xf32>, tensor<6xf32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?xi32>
  return
}

// -----

func.func @combined_q(%b: tensor<1x5x2x4xf32>, %s: tensor<1x5x3xf32>, %n: tensor<i32>, %t: tensor<f32>) {
  // expected-error @+2 {{boxes must have 1 or num_classes (3) boxes per anchor, got 2}}
  // expected-error @+1 {{'tf.CombinedNonMaxSuppression' op failed to infer returned types}}
  %0:4 = "tf.CombinedNonMaxSuppression"(%b, %s, %n, %n, %t, %t) : (tensor<1x5x2x4xf32>, tensor<1x5x3xf32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<1x?x4xf32>, tensor<1x?xf32>, tensor<1x?xf32>, tensor<1xi32>)
  return
}

// -----

func.func @combined_total() {
  %b = "tf.Const"() {value = dense<0.0> : tensor<1x5x1x4xf32>} : () -> tensor<1x5x1x4xf32>
  %s = "tf.Const"() {value = dense<0.0> : tensor<1x5x3xf32>} : () -> tensor<1x5x3xf32>
  %p = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %n = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %t = "tf.Const"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  // expected-error @+2 {{max_total_size = 0 must be positive}}
  // expected-error @+1 {{'tf.CombinedNonMaxSuppression' op failed to infer returned types}}
  %0:4 = "tf.CombinedNonMaxSuppression"(%b, %s, %p, %n, %t, %t) : (tensor<1x5x1x4xf32>, tensor<1x5x3xf32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<1x?x4xf32>, tensor<1x?xf32>, tensor<1x?xf32>, tensor<1xi32>)
  return
}

// -----

func.func @scale_and_translate_kernel(%x: tensor<1x4x4x1xf32>, %s: tensor<2xi32>, %f: tensor<2xf32>) {
  // expected-error @+2 {{kernel_type "cubic" is not one of lanczos1, lanczos3, lanczos5, gaussian, box, triangle, keyscubic, mitchellcubic}}
  // expected-error @+1 {{'tf.ScaleAndTranslate' op failed to infer returned types}}
  %0 = "tf.ScaleAndTranslate"(%x, %s, %f, %f) {kernel_type = "cubic"} : (tensor<1x4x4x1xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x?x?x1xf32>
  return
}

// -----

func.func @adjust_channels(%x: tensor<2x4x4x4xf32>, %f: tensor<f32>) {
  // expected-error @+2 {{images must have rank 3 or more and 3 channels in the last dimension, got float32 [2,4,4,4]}}
  // expected-error @+1 {{'tf.AdjustHue' op failed to infer returned types}}
  %0 = "tf.AdjustHue"(%x, %f) : (tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
  return
}

// -----

func.func @adjust_scale(%x: tensor<2x4x3xf32>, %f: tensor<2xf32>) {
  // expected-error @+2 {{scale must be a scalar, got float32 [2]}}
  // expected-error @+1 {{'tf.AdjustSaturation' op failed to infer returned types}}
  %0 = "tf.AdjustSaturation"(%x, %f) : (tensor<2x4x3xf32>, tensor<2xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

// Tests that a filter gradient needs constant filter_sizes matching the input's channels.
func.func @filter_grad_channels(%x: tensor<1x4x4x3xf32>, %dy: tensor<1x4x4x2xf32>) {
  %sizes = "tf.Const"() {value = dense<[3, 3, 2, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  // expected-error @+2 {{the input's 3 channels do not match filter_sizes [3,3,2,2]}}
  // expected-error @+1 {{'tf.Conv2DBackpropFilter' op failed to infer returned types}}
  %0 = "tf.Conv2DBackpropFilter"(%x, %sizes, %dy) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x4x4x3xf32>, tensor<4xi32>, tensor<1x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @filter_grad_sizes(%x: tensor<1x4x4x3xf32>, %s: tensor<4xi32>, %dy: tensor<1x4x4x2xf32>) {
  // expected-error @+2 {{filter_sizes must be a constant}}
  // expected-error @+1 {{'tf.DepthwiseConv2dNativeBackpropFilter' op failed to infer returned types}}
  %0 = "tf.DepthwiseConv2dNativeBackpropFilter"(%x, %s, %dy) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x4x4x3xf32>, tensor<4xi32>, tensor<1x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that a pooling gradient's grad has the forward pool's output shape.
func.func @max_pool_grad_shape(%x: tensor<1x4x4x3xf32>, %y: tensor<1x2x2x3xf32>, %g: tensor<1x3x2x3xf32>) {
  // expected-error @+2 {{grad must have the shape of orig_output float32 [1,2,2,3], got float32 [1,3,2,3]}}
  // expected-error @+1 {{'tf.MaxPoolGrad' op failed to infer returned types}}
  %0 = "tf.MaxPoolGrad"(%x, %y, %g) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1]} : (tensor<1x4x4x3xf32>, tensor<1x2x2x3xf32>, tensor<1x3x2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @avg_pool_grad_shape(%g: tensor<1x3x3x3xf32>) {
  %sizes = "tf.Const"() {value = dense<[1, 4, 4, 3]> : tensor<4xi32>} : () -> tensor<4xi32>
  // expected-error @+2 {{grad must have the forward op's output shape float32 [1,2,2,3], got float32 [1,3,3,3]}}
  // expected-error @+1 {{'tf.AvgPoolGrad' op failed to infer returned types}}
  %0 = "tf.AvgPoolGrad"(%sizes, %g) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<1x3x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that the cross-entropy losses take [batch, classes] logits and labels of one row
// each.
func.func @sparse_cross_entropy_labels(%f: tensor<3x5xf32>, %l: tensor<4xi32>) {
  // expected-error @+2 {{labels int32 [4] must have one entry per row of features float32 [3,5]}}
  // expected-error @+1 {{'tf.SparseSoftmaxCrossEntropyWithLogits' op failed to infer returned types}}
  %0:2 = "tf.SparseSoftmaxCrossEntropyWithLogits"(%f, %l) : (tensor<3x5xf32>, tensor<4xi32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @cross_entropy_broadcast(%f: tensor<3x5xf32>, %l: tensor<2x5xf32>) {
  // expected-error @+2 {{features float32 [3,5] and labels float32 [2,5] do not broadcast}}
  // expected-error @+1 {{'tf.SoftmaxCrossEntropyWithLogits' op failed to infer returned types}}
  %0:2 = "tf.SoftmaxCrossEntropyWithLogits"(%f, %l) : (tensor<3x5xf32>, tensor<2x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

// Tests that FusedBatchNormGrad's vectors have x's channels.
func.func @batch_norm_grad_channels(%dy: tensor<2x3x3x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{x has 4 channels but scale has 3 elements}}
  // expected-error @+1 {{'tf.FusedBatchNormGradV2' op failed to infer returned types}}
  %0:5 = "tf.FusedBatchNormGradV2"(%dy, %dy, %s, %s, %s) : (tensor<2x3x3x4xf32>, tensor<2x3x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

// Tests that DynamicStitch needs constant indices (its result's size is their largest + 1).
func.func @stitch_fed_indices(%i: tensor<2xi32>, %d: tensor<2x3xf32>) {
  // expected-error @+2 {{indices must be constants (the result's size is their largest + 1)}}
  // expected-error @+1 {{'tf.DynamicStitch' op failed to infer returned types}}
  %0 = "tf.DynamicStitch"(%i, %d) {N = 1 : i64} : (tensor<2xi32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @unique_v2_axis(%x: tensor<4x2xi32>) {
  %axis = "tf.Const"() {value = dense<[1]> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{axis must be a constant [] or [0]: Kiln's Unique takes a vector}}
  // expected-error @+1 {{'tf.UniqueV2' op failed to infer returned types}}
  %0:2 = "tf.UniqueV2"(%x, %axis) : (tensor<4x2xi32>, tensor<1xi32>) -> (tensor<*xi32>, tensor<*xi32>)
  return
}

// -----

func.func @approx_top_k_dimension(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{reduction_dimension must be the last, got 0}}
  // expected-error @+1 {{'tf.ApproxTopK' op failed to infer returned types}}
  %0:2 = "tf.ApproxTopK"(%x) {k = 2 : i64, reduction_dimension = 0 : i64} : (tensor<4x6xf32>) -> (tensor<*xf32>, tensor<*xi32>)
  return
}

// -----

func.func @unary_composition_names(%x: tensor<4xf32>) {
  // expected-error @+2 {{op_names holds a string ("MatMul"), not a unary op _UnaryOpsComposition may chain}}
  // expected-error @+1 {{'tf._UnaryOpsComposition' op failed to infer returned types}}
  %0 = "tf._UnaryOpsComposition"(%x) {op_names = ["Relu", "MatMul"]} : (tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @mirror_pad_grad_paddings(%g: tensor<5xf32>) {
  %p = "tf.Const"() {value = dense<[[2, 1]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  // expected-error @+2 {{paddings of dimension 0 (2, 1) do not fit REFLECT mode and the gradient's size 5}}
  // expected-error @+1 {{'tf.MirrorPadGrad' op failed to infer returned types}}
  %0 = "tf.MirrorPadGrad"(%g, %p) {mode = "REFLECT"} : (tensor<5xf32>, tensor<1x2xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @slice_update_shape(%x: tensor<4x3xf32>, %v: tensor<3x3xf32>) {
  %b = "tf.Const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+2 {{value float32 [3,3] must have the slice's shape [2,3]}}
  // expected-error @+1 {{'tf.TensorStridedSliceUpdate' op failed to infer returned types}}
  %0 = "tf.TensorStridedSliceUpdate"(%x, %b, %e, %s, %v) : (tensor<4x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dynamic_partition_shape(%d: tensor<4x2xf32>, %p: tensor<3xi32>) {
  // expected-error @+2 {{partitions int32 [3] must have the shape of data's leading dimensions, data float32 [4,2]}}
  // expected-error @+1 {{'tf.DynamicPartition' op failed to infer returned types}}
  %0:2 = "tf.DynamicPartition"(%d, %p) {num_partitions = 2 : i64} : (tensor<4x2xf32>, tensor<3xi32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

// Tests the stateless random ops' checks: Philox only, bounds constant and ordered.
func.func @random_alg(%k: tensor<1xui64>, %c: tensor<2xui64>) {
  %shape = "tf.Const"() {value = dense<[3]> : tensor<1xi32>} : () -> tensor<1xi32>
  %alg = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{alg must be Philox (1) or auto-select (3), TensorFlow's CPU algorithm, got 2}}
  // expected-error @+1 {{'tf.StatelessRandomUniformV2' op failed to infer returned types}}
  %0 = "tf.StatelessRandomUniformV2"(%shape, %k, %c, %alg) : (tensor<1xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<*xf32>
  return
}

// -----

func.func @random_bounds(%seed: tensor<2xi32>) {
  %shape = "tf.Const"() {value = dense<[3]> : tensor<1xi32>} : () -> tensor<1xi32>
  %lo = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+2 {{Need minval < maxval, got 5 >= 5}}
  // expected-error @+1 {{'tf.StatelessRandomUniformInt' op failed to infer returned types}}
  %0 = "tf.StatelessRandomUniformInt"(%shape, %seed, %lo, %lo) : (tensor<1xi32>, tensor<2xi32>, tensor<i32>, tensor<i32>) -> tensor<*xi32>
  return
}

// -----

func.func @random_fed_bounds(%seed: tensor<2xi32>, %lo: tensor<i32>, %hi: tensor<i32>) {
  %shape = "tf.Const"() {value = dense<[3]> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{minval and maxval must be scalar constants}}
  // expected-error @+1 {{'tf.StatelessRandomUniformInt' op failed to infer returned types}}
  %0 = "tf.StatelessRandomUniformInt"(%shape, %seed, %lo, %hi) : (tensor<1xi32>, tensor<2xi32>, tensor<i32>, tensor<i32>) -> tensor<*xi32>
  return
}

// -----

func.func @random_seed_shape(%seed: tensor<3xi32>) {
  %shape = "tf.Const"() {value = dense<[3]> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @+2 {{seed must have shape [2], got int32 [3]}}
  // expected-error @+1 {{'tf.StatelessRandomNormal' op failed to infer returned types}}
  %0 = "tf.StatelessRandomNormal"(%shape, %seed) : (tensor<1xi32>, tensor<3xi32>) -> tensor<*xf32>
  return
}

// -----

// Tests that Betainc's operands are scalars or of one shape (TensorFlow broadcasts no
// further).
func.func @betainc_shapes(%a: tensor<3xf32>, %b: tensor<2xf32>, %x: tensor<3xf32>) {
  // expected-error @+2 {{a, b and x must be scalars or of one shape, got float32 [3] and float32 [2]}}
  // expected-error @+1 {{'tf.Betainc' op failed to infer returned types}}
  %0 = "tf.Betainc"(%a, %b, %x) : (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @quantize_axis(%x: tensor<3x4xf32>, %lo: tensor<f32>) {
  // expected-error @+2 {{axis should be -1 or in [0, 2), got 2}}
  // expected-error @+1 {{'tf.QuantizeAndDequantizeV2' op failed to infer returned types}}
  %0 = "tf.QuantizeAndDequantizeV2"(%x, %lo, %lo) {axis = 2 : i64} : (tensor<3x4xf32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @tridiagonal_shape(%d: tensor<1x4xf32>, %r: tensor<3x2xf32>) {
  // expected-error @+2 {{the diagonals must be [..., 1, 3] of rhs's type and batch, got float32 [1,4] for rhs float32 [3,2]}}
  // expected-error @+1 {{'tf.TridiagonalMatMul' op failed to infer returned types}}
  %0 = "tf.TridiagonalMatMul"(%d, %d, %d, %r) : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @cholesky_not_square(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{the input must hold square matrices, got float32 [2,3,4]}}
  // expected-error @+1 {{'tf.Cholesky' op failed to infer returned types}}
  %0 = "tf.Cholesky"(%x) : (tensor<2x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @qr_vector(%x: tensor<4xf32>) {
  // expected-error @+2 {{the input must be a matrix or a batch of them (rank 2 or more), got float32 [4]}}
  // expected-error @+1 {{'tf.Qr' op failed to infer returned types}}
  %0:2 = "tf.Qr"(%x) : (tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @solve_rows(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{rhs must have as many rows as the matrix, got float32 [4,2] for float32 [3,3]}}
  // expected-error @+1 {{'tf.MatrixSolve' op failed to infer returned types}}
  %0 = "tf.MatrixSolve"(%a, %b) : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that MatrixSolve's batches must be equal (MatrixTriangularSolve's broadcast).
func.func @solve_batch(%a: tensor<3x3xf32>, %b: tensor<2x3x2xf32>) {
  // expected-error @+2 {{matrix and rhs must have the same batch dimensions, got float32 [3,3] and float32 [2,3,2]}}
  // expected-error @+1 {{'tf.MatrixSolve' op failed to infer returned types}}
  %0 = "tf.MatrixSolve"(%a, %b) : (tensor<3x3xf32>, tensor<2x3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @triangular_batch(%a: tensor<2x3x3xf32>, %b: tensor<4x3x2xf32>) {
  // expected-error @+2 {{the batch dimensions of float32 [2,3,3] and float32 [4,3,2] do not broadcast}}
  // expected-error @+1 {{'tf.MatrixTriangularSolve' op failed to infer returned types}}
  %0 = "tf.MatrixTriangularSolve"(%a, %b) : (tensor<2x3x3xf32>, tensor<4x3x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @tridiagonal_shape(%d: tensor<2x5xf32>, %b: tensor<5x1xf32>) {
  // expected-error @+2 {{diagonals must be [..., 3, M] and rhs [..., M, K] with one batch, got float32 [2,5] and float32 [5,1]}}
  // expected-error @+1 {{'tf.TridiagonalSolve' op failed to infer returned types}}
  %0 = "tf.TridiagonalSolve"(%d, %b) : (tensor<2x5xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @tridiagonal_perturb(%d: tensor<3x5xf32>, %b: tensor<5x1xf32>) {
  // expected-error @+2 {{Kiln does not support perturb_singular (a pivot perturbed away from 0)}}
  // expected-error @+1 {{'tf.TridiagonalSolve' op failed to infer returned types}}
  %0 = "tf.TridiagonalSolve"(%d, %b) {perturb_singular = true} : (tensor<3x5xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @fake_quant_grad_shapes(%g: tensor<3x4xf32>, %x: tensor<3x8xf32>) {
  // expected-error @+2 {{gradients must have the inputs' shape, got float32 [3,4] and float32 [3,8]}}
  // expected-error @+1 {{'tf.FakeQuantWithMinMaxArgsGradient' op failed to infer returned types}}
  %0 = "tf.FakeQuantWithMinMaxArgsGradient"(%g, %x) : (tensor<3x4xf32>, tensor<3x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @fake_quant_grad_bounds(%g: tensor<3x8xf32>, %lo: tensor<4xf32>) {
  // expected-error @+2 {{min and max must be vectors of the last dimension of inputs float32 [3,8], got float32 [4]}}
  // expected-error @+1 {{'tf.FakeQuantWithMinMaxVarsPerChannelGradient' op failed to infer returned types}}
  %0:3 = "tf.FakeQuantWithMinMaxVarsPerChannelGradient"(%g, %g, %lo, %lo) : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @resize_grad_channels(%g: tensor<1x4x4x3xf32>, %x: tensor<1x2x2x2xf32>) {
  // expected-error @+2 {{grads and original_image must have the same batch and channels, got float32 [1,4,4,3] and float32 [1,2,2,2]}}
  // expected-error @+1 {{'tf.ResizeBilinearGrad' op failed to infer returned types}}
  %0 = "tf.ResizeBilinearGrad"(%g, %x) : (tensor<1x4x4x3xf32>, tensor<1x2x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @lrn_grad_shapes(%dy: tensor<1x2x2x4xf32>, %x: tensor<1x2x2x5xf32>) {
  // expected-error @+2 {{input_grads, input_image and output_image must be of one type and shape, got float32 [1,2,2,4] and float32 [1,2,2,5]}}
  // expected-error @+1 {{'tf.LRNGrad' op failed to infer returned types}}
  %0 = "tf.LRNGrad"(%dy, %x, %x) : (tensor<1x2x2x4xf32>, tensor<1x2x2x5xf32>, tensor<1x2x2x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @batch_norm_ex_activation(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{activation_mode must be Identity, Relu, Relu6, Elu or LeakyRelu, got "Tanh"}}
  // expected-error @+1 {{'tf._FusedBatchNormEx' op failed to infer returned types}}
  %0:6 = "tf._FusedBatchNormEx"(%x, %s, %s, %s, %s) {activation_mode = "Tanh", is_training = false} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @batch_norm_ex_side(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>, %side: tensor<1x2x2x4xf32>) {
  // expected-error @+2 {{the side input must be of y's type float32 [1,2,2,3], got float32 [1,2,2,4]}}
  // expected-error @+1 {{'tf._FusedBatchNormEx' op failed to infer returned types}}
  %0:6 = "tf._FusedBatchNormEx"(%x, %s, %s, %s, %s, %side) {num_side_inputs = 1 : i64, is_training = false} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x2x2x4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}
