// One case per diagnostic of the kiln ops' verifiers.
// RUN: kiln-opt --verify-diagnostics --split-input-file %s

func.func @missing(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.partition' op calls 'nowhere', which is not a function}}
  kiln.partition @nowhere(%x) on "/cpu:0" : (tensor<4xf32>) -> ()
  return
}

// -----

func.func private @part(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.partition' op has the type '(tensor<4xf32>) -> ()' but 'part' has '(tensor<4xf32>) -> tensor<4xf32>'}}
  kiln.partition @part(%x) on "/cpu:0" : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @recv_tensor_without_result(%e: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.recv' op into a tensor needs a result}}
  "kiln.recv"(%e) {tensor_name = "a"} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @recv_buffer_with_result(%b: memref<4xf32>) {
  // expected-error @+1 {{'kiln.recv' op into a buffer has no result}}
  %0 = "kiln.recv"(%b) {tensor_name = "a"} : (memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @recv_other_type(%e: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.recv' op yields 'tensor<2xf32>' into 'tensor<4xf32>'}}
  %0 = kiln.recv "a" into %e : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @check_kind(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.check' op has the kind 'positive'; expected nonzero, nonnegative or in_range}}
  kiln.check "positive" %x, "m" : tensor<4xi32>
  return
}

// -----

func.func @check_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.check' op checks 'f32' values; only integers are checked}}
  kiln.check "nonzero" %x, "m" : tensor<4xf32>
  return
}

// -----

func.func @check_bounds(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'kiln.check' op has 2 bounds; expected 1 or one per position of the last dimension (3)}}
  kiln.check "in_range" %x bounds [5, 5], "m" : tensor<4x3xi32>
  return
}

// -----

func.func @check_stray_bounds(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.check' op has bounds but is not in_range}}
  kiln.check "nonzero" %x bounds [5], "m" : tensor<4xi32>
  return
}
