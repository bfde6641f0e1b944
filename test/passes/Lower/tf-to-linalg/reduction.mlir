// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Reduction.cpp.

// Tests that a Mean with keep_dims reduces, divides by the count and reshapes.
// CHECK-LABEL: func.func @mean
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
  // CHECK: arith.addf
  // CHECK: %[[N:.*]] = arith.constant 1.200000e+01 : f32
  // CHECK: arith.divf %{{.*}}, %[[N]]
  // CHECK: tensor.expand_shape {{.*}} into tensor<2x1x1xf32>
  %a = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Mean"(%x, %a) {keep_dims = true} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Tests ArgMax: a reduction carrying the best value and its index, a strict comparison so
// the first index wins.
// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.cmpf ogt
  // CHECK: linalg.index 1
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ArgMax"(%x, %d) : (tensor<2x5xf32>, tensor<i32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests TopKV2 as a heap per row: the row's first k elements rise into a heap of k values
// and i64 indices whose root is the worst in the order "larger, or equal and earlier, with
// NaN above every number"; a later element better than the root replaces it and sinks; the
// heap is then emptied worst first into positions k-1 down to 0.
// CHECK-LABEL: func.func @topk
func.func @topk(%t: tensor<2x9xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  // CHECK: scf.for %[[R:.*]] = %c0 to %c2 step %c1 iter_args
  // CHECK: tensor.empty() : tensor<3xf32>
  // CHECK: tensor.empty() : tensor<3xi64>
  // CHECK: scf.for %[[I:.*]] = %c0 to %c9 step %c1 iter_args
  // CHECK: tensor.extract %arg0[%[[R]], %[[I]]]
  // CHECK: scf.if
  // CHECK: scf.while
  // CHECK: arith.cmpf uno
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf oeq
  // CHECK: arith.cmpi slt
  // CHECK: } else {
  // CHECK: scf.while
  // CHECK: scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args
  // CHECK: %[[SIZE:.*]] = arith.subi %c3{{.*}}, %[[J]]
  // CHECK: %[[AT:.*]] = arith.subi %[[SIZE]], %c1
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[AT]]] : tensor<2x3xf32>
  // CHECK: arith.trunci {{.*}} : i64 to i32
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[AT]]] : tensor<2x3xi32>
  // CHECK: scf.while
  %k = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.TopKV2"(%t, %k) : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// Tests each reduction's identity and combiner: Sum from 0 with addf, Max from -inf with
// maximumf (NaN-propagating, as TensorFlow's), Min from +inf with minimumf, Prod from 1
// with muli, an integer Min from INT32_MAX with minsi; over the last axis or the first.
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>)
    -> (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi32>) {
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: linalg.fill ins(%[[ZERO]] : f32)
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0 : tensor<2x3xf32>)
  // CHECK: arith.addf
  // CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK: linalg.fill ins(%[[NEGINF]] : f32)
  // CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} outs({{.*}} : tensor<3xf32>)
  // CHECK: arith.maximumf
  // CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
  // CHECK: linalg.fill ins(%[[INF]] : f32)
  // CHECK: arith.minimumf
  // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
  // CHECK: linalg.fill ins(%[[ONE]] : i32)
  // CHECK: arith.muli
  // CHECK: %[[MAXINT:.*]] = arith.constant 2147483647 : i32
  // CHECK: linalg.fill ins(%[[MAXINT]] : i32)
  // CHECK: arith.minsi
  %d1 = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %d0 = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Sum"(%x, %d1) {keep_dims = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2xf32>
  %1 = "tf.Max"(%x, %d0) {keep_dims = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<3xf32>
  %2 = "tf.Min"(%x, %d1) {keep_dims = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2xf32>
  %3 = "tf.Prod"(%i, %d1) {keep_dims = false} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  %4 = "tf.Min"(%i, %d1) {keep_dims = false} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  return %0, %1, %2, %3, %4
      : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Tests ArgMin: from +inf and index 0, a strict less-than so the first index wins, the
// index in output_type.
// CHECK-LABEL: func.func @argmin
func.func @argmin(%x: tensor<2x5xf32>) -> tensor<2xi32> {
  // CHECK: arith.constant 0x7F800000 : f32
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: %[[LESS:.*]] = arith.cmpf olt
  // CHECK: %[[I:.*]] = linalg.index 1
  // CHECK: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
  // CHECK: arith.select %[[LESS]], %in, %out : f32
  // CHECK: arith.select %[[LESS]], %[[I32]], %{{.*}} : i32
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ArgMin"(%x, %d) {output_type = i32} : (tensor<2x5xf32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Tests All and Any: reductions of booleans starting from true with andi, and from false
// with ori.
// CHECK-LABEL: func.func @all_any
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.andi
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.ori
func.func @all_any(%x: tensor<3x4xi1>) -> (tensor<3xi1>, tensor<3xi1>) {
  %axis = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.All"(%x, %axis) : (tensor<3x4xi1>, tensor<i32>) -> tensor<3xi1>
  %1 = "tf.Any"(%x, %axis) : (tensor<3x4xi1>, tensor<i32>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// -----

// Tests Cumsum, exclusive and reversed: a loop over the scanned dimension from its end,
// carrying the running sums of the other dimensions; each step writes the sums so far into
// its slice of the result before adding its own slice (so an in-place update of the total
// cannot clobber what is written).
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[R:[^ ]*]] = %{{.*}}, %[[T:[^ ]*]] = %[[ZERO]]) -> (tensor<3x6xf32>, tensor<3xf32>)
// CHECK: %[[AT:.*]] = arith.subi %{{.*}}, %[[K]] : index
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, %[[AT]]] [3, 1] [1, 1] : tensor<3x6xf32> to tensor<3xf32>
// CHECK: %[[W:.*]] = tensor.insert_slice %[[T]] into %[[R]][0, %[[AT]]] [3, 1] [1, 1]
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[S]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: arith.addf
// CHECK: scf.yield %[[W]], %[[N]]
func.func @cumsum(%x: tensor<3x6xf32>) -> tensor<3x6xf32> {
  %a = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Cumsum"(%x, %a) {exclusive = true, reverse = true} : (tensor<3x6xf32>, tensor<i32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// Tests Cumprod of integers: the running products start from 1 and each step writes the
// updated products (not exclusive), from the start (not reversed).
// CHECK-LABEL: func.func @cumprod
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[%[[K]], 0] [1, 4] [1, 1] : tensor<5x4xi32> to tensor<4xi32>
// CHECK: %[[N:.*]] = linalg.generic
// CHECK: arith.muli
// CHECK: tensor.insert_slice %[[N]] into
func.func @cumprod(%x: tensor<5x4xi32>) -> tensor<5x4xi32> {
  %a = "tf.Const"() {dtype = i32, value = dense<-2> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Cumprod"(%x, %a) : (tensor<5x4xi32>, tensor<i32>) -> tensor<5x4xi32>
  return %0 : tensor<5x4xi32>
}

// -----

// Tests LowerBound and UpperBound as counts over the sorted row (loops rows, m, n; the row
// read at (row, n), the value at (row, m)): s < v, and !(v < s) as the unordered v >= s so
// that a NaN value counts every element, as the binary search ends.
// CHECK-DAG: #[[ROWN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[ROWM:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @search
// CHECK: linalg.generic {indexing_maps = [#[[ROWN]], #[[ROWM]], #[[ROWM]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[LT:.*]] = arith.cmpf olt, %in, %in_0 : f32
// CHECK: %[[ONE:.*]] = arith.extui %[[LT]] : i1 to i32
// CHECK: arith.addi %out, %[[ONE]] : i32
// CHECK: linalg.generic
// CHECK: %[[GE:.*]] = arith.cmpf uge, %in_0, %in : f32
// CHECK: %[[ONE64:.*]] = arith.extui %[[GE]] : i1 to i64
// CHECK: arith.addi %out, %[[ONE64]] : i64
func.func @search(%s: tensor<2x6xf32>, %v: tensor<2x4xf32>) -> (tensor<2x4xi32>, tensor<2x4xi64>) {
  %0 = "tf.LowerBound"(%s, %v) : (tensor<2x6xf32>, tensor<2x4xf32>) -> tensor<2x4xi32>
  %1 = "tf.UpperBound"(%s, %v) {out_type = i64} : (tensor<2x6xf32>, tensor<2x4xf32>) -> tensor<2x4xi64>
  return %0, %1 : tensor<2x4xi32>, tensor<2x4xi64>
}

// -----

// Tests InTopKV2: a count per row of the predictions greater than the target's (read inside
// the loop at the clamped target), then target in range, its prediction finite (|p| < inf)
// and the count below k (read inside the loop, so that a fed k works on a GPU too).
// CHECK-LABEL: func.func @in_top_k
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[T:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<3x4xf32>
// CHECK: arith.cmpf ogt, %in, %[[T]] : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg1, %arg2 : tensor<3xi32>, tensor<3xi32>, tensor<i32>)
// CHECK: %[[RANGE:.*]] = arith.andi
// CHECK: %[[FINITE:.*]] = arith.cmpf olt
// CHECK: %[[TOP:.*]] = arith.cmpi slt, %in, %in_{{.*}} : i32
// CHECK: %[[OK:.*]] = arith.andi %[[RANGE]], %[[FINITE]] : i1
// CHECK: arith.andi %[[OK]], %[[TOP]] : i1
func.func @in_top_k(%p: tensor<3x4xf32>, %t: tensor<3xi32>, %k: tensor<i32>) -> tensor<3xi1> {
  %0 = "tf.InTopKV2"(%p, %t, %k) : (tensor<3x4xf32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
