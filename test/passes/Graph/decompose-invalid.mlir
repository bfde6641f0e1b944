// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-decompose %s

// Tests that an Einsum with an input of unknown shape is an error at its node that says
// how to give the shape.
func.func @dynamic(%a: tensor<?x6xf32>, %b: tensor<6x7xf32>) -> tensor<?x7xf32> {
  // expected-error @unknown {{node 'e' (Einsum): needs inputs of known shape, got float32 [?,6] (give the feeds' shapes with --feed)}}
  %0 = "tf.Einsum"(%a, %b) {N = 2 : i64, equation = "ij,jk->ik"} : (tensor<?x6xf32>, tensor<6x7xf32>) -> tensor<?x7xf32> loc("e")
  return %0 : tensor<?x7xf32>
}

// -----

// Tests that a "..." dimension of size 1 broadcast against a larger one is refused, naming
// it (TensorFlow broadcasts it; the decomposition does not yet).
func.func @broadcast(%a: tensor<1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  // expected-error @unknown {{node 'e' (Einsum): broadcasts ... dimension 0 (size 1 against 3), which is not supported yet}}
  %0 = "tf.Einsum"(%a, %b) {N = 2 : i64, equation = "...ij,...jk->...ik"} : (tensor<1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32> loc("e")
  return %0 : tensor<3x4x6xf32>
}

// -----

// Tests that a SpaceToBatchND whose paddings are not known is an error at its node.
func.func @space_batch_fed(%x: tensor<2x4x4x3xf32>, %p: tensor<2x2xi32>) -> tensor<*xf32> {
  %block = "tf.Const"() {dtype = i32, value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+1 {{needs static shapes and a constant block shape, paddings and crops}}
  %0 = "tf.SpaceToBatchND"(%x, %block, %p) : (tensor<2x4x4x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a MaxPoolV2 whose ksize is fed is an error at its node.
func.func @max_pool_v2_fed(%x: tensor<1x4x4x1xf32>, %k: tensor<4xi32>) -> tensor<?x?x?x?xf32> {
  // expected-error @+1 {{ksize must be a constant}}
  %0 = "tf.MaxPoolV2"(%x, %k, %k) {padding = "VALID"} : (tensor<1x4x4x1xf32>, tensor<4xi32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that a BroadcastGradientArgs of shapes not known while compiling is an error that
// says so.
func.func @gradient_args_fed(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<?xi32> {
  // expected-error @+1 {{needs its shapes known at compile time}}
  %0:2 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  return %0#0 : tensor<?xi32>
}
