// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-freeze-interface %s | FileCheck %s

// Tests that each feed and fetch of the model's entry point gets its static type, keeping
// its name and alias.
// CHECK-LABEL: kiln.model "m" {
// CHECK-NEXT: kiln.entry "run" = @main feeds [#kiln.tensor<"x:0" alias "x" : tensor<2x8xf32>>, #kiln.tensor<"k:0" : tensor<i32>>] fetches [#kiln.tensor<"y:0" : tensor<2x8xui8>>]
kiln.model "m" {
  kiln.entry "run" = @main feeds [#kiln.tensor<"x:0" alias "x">, #kiln.tensor<"k:0">] fetches [#kiln.tensor<"y:0">]
}
func.func @main(%x: tensor<2x8xf32>, %k: tensor<i32>) -> tensor<2x8xui8> {
  %0 = "tf.Cast"(%x) {SrcT = f32, DstT = ui8} : (tensor<2x8xf32>) -> tensor<2x8xui8>
  return %0 : tensor<2x8xui8>
}

// -----

// Tests that a module without a kiln.model (IR written by hand) gets one, for its first
// public function, whose feeds and fetches are named by position.
// CHECK-LABEL: kiln.model "main" {
// CHECK-NEXT: kiln.entry "run" = @f feeds [#kiln.tensor<"input0" : tensor<4xf32>>, #kiln.tensor<"input1" : tensor<4xf32>>] fetches [#kiln.tensor<"output0" : tensor<4xf32>>]
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.AddV2"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an unfed Placeholder is reported at its node.
func.func @unfed() -> tensor<4xf32> {
  // expected-error @+1 {{Placeholder is needed by a fetch but is not fed}}
  %0 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<4>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a dynamic shape left after shape inference is reported at its node.
func.func @dynamic(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{its output has the shape float32 [?], not fully known}}
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a feed without a static shape is reported as the cause, by its tensor name.
kiln.model "m" {
  kiln.entry "run" = @dynamic_feed feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
}
// expected-error @+1 {{input 'x:0' has the shape float32 [?]; give it a static shape}}
func.func @dynamic_feed(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "tf.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a feed of a dtype the C ABI lacks is reported by its name.
kiln.model "m" {
  kiln.entry "run" = @main feeds [#kiln.tensor<"x:0">] fetches []
}
// expected-error @+1 {{input 'x:0' has unsupported element type 'i4'}}
func.func @main(%x: tensor<4xi4>) {
  return
}

// -----

// Tests that a fetch of more than KILN_MAX_RANK dimensions is reported by its name.
kiln.model "m" {
  kiln.entry "run" = @main feeds [] fetches [#kiln.tensor<"y:0">]
}
// expected-error @+1 {{output 'y:0' has rank 17; at most 16 is supported}}
func.func @main() -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32> {
  %0 = "tf.Const"() {value = dense<1.0> : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>, dtype = f32} : () -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return %0 : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
}
