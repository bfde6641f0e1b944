// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-resolve-lists %s | FileCheck %s

// Tests that a list reserved with an unknown element shape (as tf.map_fn reserves its
// outputs) takes its length from the reserve and its element shape from the item a loop
// sets into it: the reserve, the loop variable (input, arguments, result) and the stacked
// result all become tensor<5x3xf32>.
// CHECK-LABEL: func.func @map_like
// CHECK-SAME: -> tensor<5x3xf32>
// CHECK: "tf.TensorListReserve"{{.*}} -> tensor<5x3xf32>
// CHECK: "tf.While"
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<5x3xf32>):
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<5x3xf32>):
// CHECK: "tf.TensorListSetItem"{{.*}} -> tensor<5x3xf32>
// CHECK: -> (tensor<i32>, tensor<5x3xf32>)
// CHECK: "tf.TensorListStack"{{.*}} -> tensor<5x3xf32>
func.func @map_like(%x: tensor<3xf32>) -> tensor<*xf32> {
  %unknown = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %five = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.TensorListReserve"(%unknown, %five) {element_dtype = f32} : (tensor<i32>, tensor<i32>) -> tensor<*xf32>
  %r:2 = "tf.While"(%zero, %l) ({
  ^bb0(%i: tensor<i32>, %a: tensor<*xf32>):
    %c = "tf.Const"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %a: tensor<*xf32>):
    %item = "tf.Const"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %s = "tf.TensorListSetItem"(%a, %i, %item) {element_dtype = f32} : (tensor<*xf32>, tensor<i32>, tensor<3xf32>) -> tensor<?x3xf32>
    "tf.Yield"(%i, %s) : (tensor<i32>, tensor<?x3xf32>) -> ()
  }) {T = [i32, f32]} : (tensor<i32>, tensor<*xf32>) -> (tensor<i32>, tensor<*xf32>)
  %shape = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %y = "tf.TensorListStack"(%r#1, %shape) {element_dtype = f32} : (tensor<*xf32>, tensor<i32>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}

// -----

// Tests that a list whose element shape nothing gives is an error at its reserve.
func.func @unknown_element(%i: tensor<i32>) -> tensor<*xf32> {
  %unknown = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %five = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+1 {{the element shape of this TensorList is not known at compile time: nothing that makes, sets, reads or stacks it gives a static element shape}}
  %l = "tf.TensorListReserve"(%unknown, %five) {element_dtype = f32} : (tensor<i32>, tensor<i32>) -> tensor<*xf32>
  %shape = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %y = "tf.TensorListGetItem"(%l, %i, %shape) {element_dtype = f32} : (tensor<*xf32>, tensor<i32>, tensor<i32>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}

// -----

// Tests that items of different shapes set into one list are an error.
func.func @conflict(%i: tensor<i32>, %a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  %unknown = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %five = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.TensorListReserve"(%unknown, %five) {element_dtype = f32} : (tensor<i32>, tensor<i32>) -> tensor<*xf32>
  %s = "tf.TensorListSetItem"(%l, %i, %a) {element_dtype = f32} : (tensor<*xf32>, tensor<i32>, tensor<3xf32>) -> tensor<?x3xf32>
  %t = "tf.Identity"(%s) : (tensor<?x3xf32>) -> tensor<*xf32>
  // expected-error @+1 {{this TensorList's elements are [4] here but [3] elsewhere}}
  %u = "tf.TensorListSetItem"(%t, %i, %b) {element_dtype = f32} : (tensor<*xf32>, tensor<i32>, tensor<4xf32>) -> tensor<*xf32>
  return %u : tensor<*xf32>
}

// -----

// Tests that a scatter into a list (a TensorArray's unstack) gives its element shape, and
// that what a gather reads is one list with it.
// CHECK-LABEL: func.func @scattered
// CHECK: "tf.TensorListReserve"{{.*}} -> tensor<6x3xf32>
// CHECK: "tf.TensorListScatterIntoExistingList"{{.*}} -> tensor<6x3xf32>
// CHECK: "tf.TensorListGather"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}}: (tensor<6x3xf32>
func.func @scattered(%x: tensor<6x3xf32>, %i: tensor<2xi32>) -> tensor<*xf32> {
  %unknown = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %six = "tf.Const"() {value = dense<6> : tensor<i32>} : () -> tensor<i32>
  %rows = "tf.Const"() {value = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>} : () -> tensor<6xi32>
  %l = "tf.TensorListReserve"(%unknown, %six) {element_dtype = f32} : (tensor<i32>, tensor<i32>) -> tensor<*xf32>
  %s = "tf.TensorListScatterIntoExistingList"(%l, %x, %rows) {element_dtype = f32} : (tensor<*xf32>, tensor<6x3xf32>, tensor<6xi32>) -> tensor<*xf32>
  %g = "tf.TensorListGather"(%s, %i, %unknown) {element_dtype = f32} : (tensor<*xf32>, tensor<2xi32>, tensor<i32>) -> tensor<*xf32>
  return %g : tensor<*xf32>
}
