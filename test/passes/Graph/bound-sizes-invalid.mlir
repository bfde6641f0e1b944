// RUN: not kiln-opt --split-input-file --kiln-graph-bound-sizes %s 2>&1 | FileCheck %s
// RUN: not kiln-opt --kiln-graph-bound-sizes=bounds=nowhere=3 %S/bound-sizes.mlir 2>&1 | FileCheck %s --check-prefix=UNUSED

// UNUSED: error: --bound nowhere=3: the graph has no node 'nowhere' whose result size depends on values

// Tests that an op Kiln does not bound through is an error at its node, naming the op that
// made the size.
// CHECK: error: loc("soft"): takes a tensor of a size that depends on the values at node 'w' (Where), which Kiln bounds through elementwise ops
func.func @softmax(%m: tensor<8xf32>) -> tensor<?x1xf32> {
  %k = "tf.Const"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %c = "tf.Greater"(%m, %k) : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
  %w = "tf.Where"(%c) : (tensor<8xi1>) -> tensor<?x1xi64> loc("w")
  %f = "tf.Cast"(%w) {DstT = f32} : (tensor<?x1xi64>) -> tensor<?x1xf32>
  %s = "tf.Softmax"(%f) : (tensor<?x1xf32>) -> tensor<?x1xf32> loc("soft")
  return %s : tensor<?x1xf32>
}

// -----

// Tests that a division by a padded tensor is refused: its padding would fail the check.
// CHECK: error: loc("q"): takes a tensor of a size that depends on the values at node 'w' (Where)
func.func @division(%m: tensor<8xi32>) -> tensor<?x1xi64> {
  %w = "tf.Where"(%m) : (tensor<8xi32>) -> tensor<?x1xi64> loc("w")
  %q = "tf.FloorDiv"(%w, %w) : (tensor<?x1xi64>, tensor<?x1xi64>) -> tensor<?x1xi64> loc("q")
  return %q : tensor<?x1xi64>
}

// -----

// Tests that a padded tensor combined with a static one of the bound's size is refused.
// CHECK: error: loc("a"): combines a tensor of value-dependent size with one of static size 4 in dimension 0; Kiln cannot check at compile time that they agree
func.func @mismatch(%m: tensor<4xi1>, %x: tensor<4x1xi64>) -> tensor<?x1xi64> {
  %w = "tf.Where"(%m) : (tensor<4xi1>) -> tensor<?x1xi64> loc("w")
  %a = "tf.AddV2"(%w, %x) : (tensor<?x1xi64>, tensor<4x1xi64>) -> tensor<?x1xi64> loc("a")
  return %a : tensor<?x1xi64>
}

// -----

// Tests that a padded tensor used inside a loop or conditional is refused at that op.
// CHECK: error: loc("if"): takes a tensor of a size that depends on the values at node 'w' (Where)
func.func @region(%m: tensor<4xi1>, %p: tensor<i1>) -> tensor<i64> {
  %w = "tf.Where"(%m) : (tensor<4xi1>) -> tensor<?x1xi64> loc("w")
  %r = "tf.If"(%p, %w) ({
  ^bb0(%a: tensor<?x1xi64>):
    %axes = "tf.Const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
    %s = "tf.Sum"(%a, %axes) : (tensor<?x1xi64>, tensor<2xi32>) -> tensor<i64>
    "tf.Yield"(%s) : (tensor<i64>) -> ()
  }, {
  ^bb0(%a: tensor<?x1xi64>):
    %z = "tf.Const"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    "tf.Yield"(%z) : (tensor<i64>) -> ()
  }) {Tin = [i64]} : (tensor<i1>, tensor<?x1xi64>) -> tensor<i64> loc("if")
  return %r : tensor<i64>
}
