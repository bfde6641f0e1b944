// Smoke tests of kiln-opt: its help lists Kiln's passes and pipelines, and the CPU pipeline
// takes a tf function to the LLVM dialect.
// RUN: kiln-opt --help | FileCheck %s --check-prefix=HELP
// RUN: kiln-opt --kiln-cpu-pipeline %s | FileCheck %s

// HELP-DAG: --kiln-graph-infer-shapes
// HELP-DAG: --kiln-graph-prune
// HELP-DAG: --kiln-graph-fold-constants
// HELP-DAG: --kiln-lower-copies-to-linalg
// HELP-DAG: --kiln-lower-kernel-calls
// HELP-DAG: --kiln-lower-tf-to-linalg
// HELP-DAG: --kiln-lower-use-destinations
// HELP-DAG: --kiln-lower-assign-scratch
// HELP-DAG: --kiln-graph-pipeline
// HELP-DAG: --kiln-lower-pipeline
// HELP-DAG: --kiln-llvm-pipeline
// HELP-DAG: --kiln-cpu-pipeline

// Tests that a small graph lowers all the way to the LLVM dialect.
// CHECK-LABEL: llvm.func @main(
// CHECK-NOT: "tf.
// CHECK-NOT: linalg.
// CHECK: llvm.return
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tf.Relu"(%x) {T = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Add"(%0, %x) {T = f32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
