// RUN: kiln-opt --kiln-lower-tf-to-linalg %s | FileCheck %s

// Tests that lists are their dense tensors: a reserve is zeros, FromTensor and Stack are the
// tensor itself, GetItem and SetItem the slice at the index, clamped into [0, N).
// CHECK-LABEL: func.func @lists
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<i32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[L:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<5x3xf32>)
// CHECK: %[[E:.*]] = tensor.extract %[[I]][] : tensor<i32>
// CHECK: %[[IX:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[IX]], %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[SET:.*]] = tensor.insert_slice %[[V]] into %[[L]][%[[AT]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
// CHECK: %[[GET:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
// CHECK: return %[[SET]], %[[GET]]
func.func @lists(%x: tensor<5x3xf32>, %i: tensor<i32>, %v: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>) {
  %shape = "tf.Const"() {value = dense<3> : tensor<1xi32>} : () -> tensor<1xi32>
  %five = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.TensorListReserve"(%shape, %five) {element_dtype = f32} : (tensor<1xi32>, tensor<i32>) -> tensor<5x3xf32>
  %s = "tf.TensorListSetItem"(%l, %i, %v) {element_dtype = f32} : (tensor<5x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<5x3xf32>
  %stacked = "tf.TensorListStack"(%s, %shape) {element_dtype = f32} : (tensor<5x3xf32>, tensor<1xi32>) -> tensor<5x3xf32>
  %f = "tf.TensorListFromTensor"(%x, %shape) : (tensor<5x3xf32>, tensor<1xi32>) -> tensor<5x3xf32>
  %g = "tf.TensorListGetItem"(%f, %i, %shape) {element_dtype = f32} : (tensor<5x3xf32>, tensor<i32>, tensor<1xi32>) -> tensor<3xf32>
  return %stacked, %g : tensor<5x3xf32>, tensor<3xf32>
}

// Tests that a scatter into a list writes row k of the tensor into element indices[k], for
// each k in turn, in a loop carrying the list (indices clamped into [0, N)).
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[L:.*]]: tensor<5x3xf32>, %[[T:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<2xi32>)
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[L]]) -> (tensor<5x3xf32>)
// CHECK: %[[E:.*]] = tensor.extract %[[I]][%[[K]]] : tensor<2xi32>
// CHECK: %[[IX:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[IX]], %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[T]][%[[K]], 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
// CHECK: %[[UP:.*]] = tensor.insert_slice %[[ROW]] into %[[ACC]][%[[AT]], 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<5x3xf32>
// CHECK: scf.yield %[[UP]]
// CHECK: return %[[R]]
func.func @scatter(%l: tensor<5x3xf32>, %t: tensor<2x3xf32>, %i: tensor<2xi32>) -> tensor<5x3xf32> {
  %s = "tf.TensorListScatterIntoExistingList"(%l, %t, %i) {element_dtype = f32} : (tensor<5x3xf32>, tensor<2x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  return %s : tensor<5x3xf32>
}
