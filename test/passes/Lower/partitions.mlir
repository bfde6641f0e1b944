// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-partitions %s | FileCheck %s

// Tests that the entry function goes and each partition becomes public; the model's entry
// point runs the parts instead of the function, each with its device and the positions of
// its inputs and outputs in the entry's feeds and fetches.
// CHECK-NOT: func.func @main(
// CHECK: func.func @main.cpu0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK: func.func @main.cpu1(%{{.*}}: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.partition @main.cpu0(%x, %y) on "/cpu:0" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1:2 = kiln.partition @main.cpu1(%y) on "/cpu:1" : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %1#1, %0, %1#0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @main.cpu0(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.AddV2"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @main.cpu1(%y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tf.Neg"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %y : tensor<4xf32>, tensor<4xf32>
}
// CHECK: kiln.model "m" {
// CHECK-NEXT: kiln.entry "run" feeds [#kiln.tensor<"x:0">, #kiln.tensor<"y:0">] fetches [#kiln.tensor<"a:0">, #kiln.tensor<"b:0">, #kiln.tensor<"c:0">]
// CHECK-SAME: {parts = [#kiln.part<function = @main.cpu0, device = "/cpu:0", inputs = [0, 1], outputs = [1]>, #kiln.part<function = @main.cpu1, device = "/cpu:1", inputs = [1], outputs = [2, 0]>]}
kiln.model "m" {
  kiln.entry "run" = @main feeds [#kiln.tensor<"x:0">, #kiln.tensor<"y:0">] fetches [#kiln.tensor<"a:0">, #kiln.tensor<"b:0">, #kiln.tensor<"c:0">]
}

// -----

func.func private @p(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @declaration(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.partition' op calls 'p', which is not a function with a body}}
  %0 = kiln.partition @p(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @p(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.partition @p(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{'tf.Neg' beside kiln.partition ops: a function cut into partitions may only call them}}
  %1 = "tf.Neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func private @p() -> tensor<4xf32> {
  %0 = "tf.Const"() {dtype = f32, value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @twice() -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.partition' op has a result that is not exactly one output of 'twice'}}
  %0 = kiln.partition @p() on "/cpu:0" : () -> tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func private @p(%x: tensor<4xf32>) {
  return
}
// expected-error @+1 {{output 0 is not computed by a partition}}
func.func @unwritten(%x: tensor<4xf32>) -> tensor<4xf32> {
  kiln.partition @p(%x) on "/cpu:0" : (tensor<4xf32>) -> ()
  return %x : tensor<4xf32>
}

// -----

// Tests that an entry point that runs a whole function gets one part running it, with every
// feed and fetch, on no particular device.
// CHECK: func.func @whole(
// CHECK: kiln.entry "run" feeds [#kiln.tensor<"x:0">, #kiln.tensor<"y:0">] fetches [#kiln.tensor<"z:0">]
// CHECK-SAME: {parts = [#kiln.part<function = @whole, device = "", inputs = [0, 1], outputs = [0]>]}
func.func @whole(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.AddV2"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
kiln.model "m" {
  kiln.entry "run" = @whole feeds [#kiln.tensor<"x:0">, #kiln.tensor<"y:0">] fetches [#kiln.tensor<"z:0">]
}

// -----

func.func private @p(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{is cut into partitions, but no kiln.entry runs it}}
func.func @orphan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.partition @p(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an entry point with state runs its function as one part, which reads the state
// after its inputs and writes it after its outputs.
// CHECK: kiln.entry "step" feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
// CHECK-SAME: {parts = [#kiln.part<function = @step, device = "", inputs = [0], outputs = [0]>], state = ["w"], updates = ["w"]}
kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  kiln.entry "step" = @step feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">] {state = ["w"], updates = ["w"]}
}
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tf.AddV2"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op uses state, so it cannot run on several devices yet}}
  kiln.entry "step" = @cut feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">] {state = ["w"]}
}
func.func private @p(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @cut(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.partition @p(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
