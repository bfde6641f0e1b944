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
  // expected-error @+1 {{'kiln.check' op has the kind 'positive'; expected nonzero, nonnegative, in_range, below, not_nan or not_inf}}
  kiln.check "positive" %x, "m" : tensor<4xi32>
  return
}

// -----

func.func @check_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.check' op checks 'f32' values; nonzero checks integers}}
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
  // expected-error @+1 {{'kiln.check' op has bounds but is not in_range or below}}
  kiln.check "nonzero" %x bounds [5], "m" : tensor<4xi32>
  return
}

// -----

// A GPU partition's buffers are device memory: only the GPU layer's kernels take them, and
// those take nothing else.
func.func @cpu_kernel_on_gpu(%a: memref<4xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op calls 'partition_send', which takes host memory, in a function placed on a GPU}}
  kiln.kernel_call "partition_send" ins(%a : memref<4xf32>) params {key = 0 : i32}
  return
}

// -----

func.func @gpu_kernel_on_cpu(%a: memref<4xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op calls 'gpu_partition_recv', which takes device memory, outside a function placed on a GPU}}
  kiln.kernel_call "gpu_partition_recv" outs(%a : memref<4xf32>) params {key = 0 : i32}
  return
}

// -----

func.func @unknown(%a: memref<4xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op calls the unknown kernel 'gemm'; the kernel table has cholesky_f32, matrix_inverse_f32, matrix_solve_f32, triangular_solve_f32, qr_f32, self_adjoint_eig_f32, eigenvalues_f32, svd_f32, singular_values_f32, tridiagonal_solve_f32, cholesky_f64, matrix_inverse_f64, matrix_solve_f64, triangular_solve_f64, qr_f64, self_adjoint_eig_f64, eigenvalues_f64, svd_f64, singular_values_f64, tridiagonal_solve_f64, matmul_f32, matmul_epilogue_f32, matmul_residual_f32, batch_matmul_f32, attention_f32, attention_masked_f32, depthwise_conv2d_f32, pointwise_depthwise_f32, conv2d_3x3_f32, conv2d_3x3_cached_f32, conv2d_direct_f32, conv2d_gemm_f32, max_pool2d_f32, partition_send, partition_recv, gpu_matmul_f32, gpu_matmul_epilogue_f32, gpu_matmul_residual_f32, gpu_batch_matmul_f32, gpu_matmul_f16, gpu_batch_matmul_f16, gpu_conv2d_f32, gpu_conv2d_residual_f32, gpu_partition_send, gpu_partition_recv}}
  kiln.kernel_call "gemm" ins(%a : memref<4xf32>) params {}
  return
}

// -----

func.func @inputs(%a: memref<8x4xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has 1 inputs; 'matmul_f32' takes 2}}
  kiln.kernel_call "matmul_f32" ins(%a : memref<8x4xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @outputs(%a: memref<8x4xf32>, %b: memref<4x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has 0 outputs; 'matmul_f32' writes 1}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @element(%a: memref<8x4xi32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op takes 'memref<8x4xi32>' as its input 'a'; expected a static, contiguous f32 buffer of rank 2}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xi32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @layout(%a: memref<8x4xf32, strided<[8, 1]>>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op takes 'memref<8x4xf32, strided<[8, 1]>>' as its input 'a'; expected a static, contiguous f32 buffer of rank 2}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32, strided<[8, 1]>>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @param(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the parameter 'stride', which 'matmul_f32' does not take}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64, stride = 1 : i64}
  return
}

// -----

func.func @kind(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the parameter 'm' = 8 : i32; expected an i64}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i32, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @flag(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the parameter 'overwrite' = true; expected a unit attribute}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite = true}
  return
}

// -----

func.func @pair(%x: memref<1x4x4x3xf32>, %y: memref<1x2x2x3xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the parameter 'pad' = array<i64: 0, 0, 0>; expected array<i64: a, b>}}
  kiln.kernel_call "max_pool2d_f32" ins(%x : memref<1x4x4x3xf32>) outs(%y : memref<1x2x2x3xf32>)
      params {n = 1 : i64, h = 4 : i64, w = 4 : i64, c = 3 : i64, oh = 2 : i64, ow = 2 : i64, window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pad = array<i64: 0, 0, 0>}
  return
}

// -----

func.func @missing(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op lacks the parameter 'epilogue' of 'matmul_epilogue_f32'}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @epilogue_input(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the epilogue 'epilogue' reading input 1, which is not one of its epilogue inputs (2 to 1)}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<bias = input 1>}
  return
}

// -----

func.func @residual_shape(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %r: memref<8x8xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its residual buffer to be 8x16 (from its parameters), or a view of it with 16 channels, but it is 'memref<8x8xf32>'}}
  kiln.kernel_call "matmul_residual_f32" ins(%a, %b, %r : memref<8x4xf32>, memref<4x16xf32>, memref<8x8xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<>}
  return
}

// -----

func.func @unread(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %s: memref<16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has input 2, which no epilogue reads}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %s : memref<8x4xf32>, memref<4x16xf32>, memref<16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<>}
  return
}

// -----

func.func @twice(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %s: memref<16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op reads input 2 in two epilogue fields}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %s : memref<8x4xf32>, memref<4x16xf32>, memref<16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<scale = input 2, bias = input 2>}
  return
}

// -----

func.func @epilogue_rank(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %s: memref<1x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the epilogue input 2 of type 'memref<1x16xf32>'; expected a static, contiguous f32 buffer of rank 1}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %s : memref<8x4xf32>, memref<4x16xf32>, memref<1x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<scale = input 2>}
  return
}

// -----

func.func @shape(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its a buffer to be 8x5 (from its parameters), but it is 'memref<8x4xf32>'}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 5 : i64}
  return
}

// -----

func.func @output_view(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<2x4x8x2xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its c buffer to be 8x16 (from its parameters), or a view of it with 16 channels, but it is 'memref<2x4x8x2xf32>'}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<2x4x8x2xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @packed(%a: memref<8x4xf32>, %b: memref<64xf32>, %c: memref<8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its packed b buffer to hold 128 floats, but it is 'memref<64xf32>'}}
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<64xf32>) outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64, packed_b}
  return
}

// -----

func.func @pool(%x: memref<1x6x6x16xf32>, %w: memref<3x3x16x16xf32>, %y: memref<1x3x3x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has max_pool without overwrite}}
  kiln.kernel_call "conv2d_3x3_f32" ins(%x, %w : memref<1x6x6x16xf32>, memref<3x3x16x16xf32>) outs(%y : memref<1x3x3x16xf32>)
      params {n = 1 : i64, h = 6 : i64, w = 6 : i64, c = 16 : i64, f = 16 : i64, oh = 6 : i64, ow = 6 : i64, pad = array<i64: 1, 1>, max_pool}
  return
}

// -----

func.func @epilogue_field(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  // expected-error @+2 {{expected one of scale, bias, lo, hi, swish, in that order; got 'scale'}}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<bias = 1.0, scale = 2.0>}
  return
}

// -----

// expected-error @+1 {{'kiln.model' op has no entry point}}
kiln.model "m" {
}

// -----

// expected-error @+1 {{'kiln.model' op is named 'my-model', which is not a C identifier (the prefix of its symbols)}}
kiln.model "my-model" {
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
  // expected-error @+1 {{'kiln.entry' op is the second entry point named 'run'}}
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.state' op is the second state named 'w'}}
  kiln.state "w" : tensor<2xf32>
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  kiln.entry "run" feeds [] fetches []
}
// expected-error @+1 {{'kiln.model' op is the second kiln.model of the module}}
kiln.model "n" {
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op runs 'nowhere', which is not a function}}
  kiln.entry "run" = @nowhere feeds [] fetches []
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has 1 feeds, reads 0 state, has 1 fetches and writes 0 state, but 'main' takes 2 arguments and returns 1}}
  kiln.entry "run" = @main feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
}
func.func private @main(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has the feed 'x:0' of type 'tensor<2xf32>', but 'main' has 'tensor<4xf32>'}}
  kiln.entry "run" = @main feeds [#kiln.tensor<"x:0" : tensor<2xf32>>] fetches [#kiln.tensor<"y:0">]
}
func.func private @main(tensor<4xf32>) -> tensor<4xf32>

// -----

kiln.model "m" {
  // expected-error @+1 {{'x:0' is frozen with the dynamic type 'tensor<?xf32>'; an entry point's tensors have static shapes}}
  kiln.entry "run" feeds [#kiln.tensor<"x:0" : tensor<?xf32>>] fetches []
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'x:0' has rank 17; an entry point's tensors have at most 16 dimensions}}
  kiln.entry "run" feeds [#kiln.tensor<"x:0" : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>>] fetches []
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op reads the state 'w', which the model lacks}}
  kiln.entry "run" feeds [] fetches [] {state = ["w"]}
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op writes the state 'v', which the model lacks}}
  kiln.entry "run" feeds [] fetches [] {updates = ["v"]}
}

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op writes the state 'w' twice}}
  kiln.entry "run" feeds [] fetches [] {updates = ["w", "w"]}
}

// -----

kiln.model "m" {
  kiln.entry "Run" feeds [] fetches []
  // expected-error @+1 {{'kiln.entry' op is the second entry point named 'run' (names are compared ignoring case)}}
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op has 1 feeds, reads 1 state, has 0 fetches and writes 1 state, but 'step' takes 2 arguments and returns 0}}
  kiln.entry "step" = @step feeds [#kiln.tensor<"x:0">] fetches [] {state = ["w"], updates = ["w"]}
}
func.func private @step(tensor<4xf32>, tensor<4xf32>)

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op has the state 'w' of type 'tensor<4xf32>', but 'step' writes it as 'tensor<4xf64>'}}
  kiln.entry "step" = @step feeds [] fetches [] {state = ["w"], updates = ["w"]}
}
func.func private @step(tensor<4xf32>) -> tensor<4xf64>

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op has the state 'w' of type 'tensor<4xf32>', but 'step' reads it as 'tensor<2xf32>'}}
  kiln.entry "step" = @step feeds [] fetches [] {state = ["w"]}
}
func.func private @step(tensor<2xf32>)

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has a part reading feed 1 of 1}}
  kiln.entry "run" feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
      {parts = [#kiln.part<function = @p, device = "/cpu:0", inputs = [1], outputs = [0]>]}
}
func.func private @p()

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has two parts writing fetch 0 ('y:0')}}
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"y:0">]
      {parts = [#kiln.part<function = @p, device = "/cpu:0", inputs = [], outputs = [0]>,
                #kiln.part<function = @p, device = "/cpu:1", inputs = [], outputs = [0]>]}
}
func.func private @p()

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has fetch 1, which no part writes}}
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"y:0">, #kiln.tensor<"z:0">]
      {parts = [#kiln.part<function = @p, device = "/cpu:0", inputs = [], outputs = [0]>]}
}
func.func private @p()

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.entry' op has a part running 'q', which is not a function}}
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"y:0">]
      {parts = [#kiln.part<function = @q, device = "/cpu:0", inputs = [], outputs = [0]>]}
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.state' op 'w' has unsupported element type 'i4'}}
  kiln.state "w" : tensor<4xi4>
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  // expected-error @+1 {{'kiln.state' op 'w' has rank 17; at most 16 is supported}}
  kiln.state "w" : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  kiln.entry "run" feeds [] fetches []
}

// -----

kiln.model "m" {
  kiln.state "w" : tensor<4xf32>
  // expected-error @+1 {{'kiln.entry' op uses state, so it cannot run on several devices yet}}
  kiln.entry "run" feeds [] fetches [#kiln.tensor<"a:0">, #kiln.tensor<"b:0">] {state = ["w"],
      parts = [#kiln.part<function = @p, device = "/cpu:0", inputs = [], outputs = [0]>,
               #kiln.part<function = @q, device = "/cpu:1", inputs = [], outputs = [1]>]}
}
func.func private @p()
func.func private @q()

// -----

func.func @batch_shape(%a: memref<3x8x4xf32>, %b: memref<3x4x16xf32>, %c: memref<3x8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its b buffer to hold 1 contiguous 4x16 matrices (from its parameters), but it is 'memref<3x4x16xf32>'}}
  kiln.kernel_call "batch_matmul_f32" ins(%a, %b : memref<3x8x4xf32>, memref<3x4x16xf32>) outs(%c : memref<3x8x16xf32>) params {batch = 3 : i64, m = 8 : i64, n = 16 : i64, k = 4 : i64, broadcast_b}
  return
}

// -----

func.func @batch_count(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<3x8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its c buffer to hold 2 contiguous 8x16 matrices (from its parameters), but it is 'memref<3x8x16xf32>'}}
  kiln.kernel_call "batch_matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<3x8x16xf32>) params {batch = 2 : i64, m = 8 : i64, n = 16 : i64, k = 4 : i64, broadcast_a, broadcast_b}
  return
}

// -----

func.func @batch_zero(%a: memref<3x8x4xf32>, %b: memref<3x4x16xf32>, %c: memref<3x8x16xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects a batch of at least 1, but it is 0}}
  kiln.kernel_call "batch_matmul_f32" ins(%a, %b : memref<3x8x4xf32>, memref<3x4x16xf32>) outs(%c : memref<3x8x16xf32>) params {batch = 0 : i64, m = 8 : i64, n = 16 : i64, k = 4 : i64}
  return
}

// -----

func.func @attention_v(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x6x4xf32>) {
  %e = tensor.empty() : tensor<2x3x5x4xf32>
  // expected-error @+1 {{'kiln.attention' op expects its v to be 2x3x7x4 (from q's shape and its layout flags), but it is 'tensor<2x3x6x4xf32>'}}
  %o = kiln.attention %q, %k, %v into %e {scale = 1.0 : f32} : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x6x4xf32> -> tensor<2x3x5x4xf32>
  return
}

// -----

func.func @attention_layout(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x4xf32>) {
  %e = tensor.empty() : tensor<2x3x5x4xf32>
  // expected-error @+1 {{'kiln.attention' op expects its result to be 2x5x3x4 (from q's shape and its layout flags), but it is 'tensor<2x3x5x4xf32>'}}
  %o = kiln.attention %q, %k, %v into %e {scale = 1.0 : f32, out_seq_major} : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32> -> tensor<2x3x5x4xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<3x5x8xf32>, %k: tensor<3x7x8xf32>, %v: tensor<3x7x4xf32>) {
  %e = tensor.empty() : tensor<3x5x4xf32>
  // expected-error @+1 {{'kiln.attention' op takes f32 tensors of rank 4; 'tensor<3x5x8xf32>' is not one}}
  %o = kiln.attention %q, %k, %v into %e {scale = 1.0 : f32} : tensor<3x5x8xf32>, tensor<3x7x8xf32>, tensor<3x7x4xf32> -> tensor<3x5x4xf32>
  return
}

// -----

func.func @attention_scale(%q: memref<1x2x4x8xf32>, %k: memref<1x2x4x8xf32>, %v: memref<1x2x4x8xf32>, %o: memref<1x2x4x8xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op has the parameter 'scale' = 1 : i64; expected an f32}}
  kiln.kernel_call "attention_f32" ins(%q, %k, %v : memref<1x2x4x8xf32>, memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) outs(%o : memref<1x2x4x8xf32>) params {batch = 1 : i64, heads = 2 : i64, sq = 4 : i64, sk = 4 : i64, d = 8 : i64, dv = 8 : i64, scale = 1 : i64}
  return
}

// -----

func.func @attention_shape(%q: memref<1x2x4x8xf32>, %k: memref<1x2x4x8xf32>, %v: memref<1x2x4x8xf32>, %o: memref<1x2x4x8xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its k buffer to be 1x4x2x8 (from its parameters), but it is 'memref<1x2x4x8xf32>'}}
  kiln.kernel_call "attention_f32" ins(%q, %k, %v : memref<1x2x4x8xf32>, memref<1x2x4x8xf32>, memref<1x2x4x8xf32>) outs(%o : memref<1x2x4x8xf32>) params {batch = 1 : i64, heads = 2 : i64, sq = 4 : i64, sk = 4 : i64, d = 8 : i64, dv = 8 : i64, scale = 0.5 : f32, k_seq_major}
  return
}

// -----

func.func @attention_mask_keys(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x4xf32>, %m: tensor<2x1x5x1xf32>) {
  %e = tensor.empty() : tensor<2x3x5x4xf32>
  // expected-error @+1 {{'kiln.attention' op expects a mask that broadcasts to 2x3x5x7 (its last dimension 7), but it is 'tensor<2x1x5x1xf32>'}}
  %o = kiln.attention %q, %k, %v mask %m : tensor<2x1x5x1xf32> into %e {scale = 1.0 : f32} : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32> -> tensor<2x3x5x4xf32>
  return
}

// -----

func.func @attention_mask_strides(%q: memref<2x2x4x8xf32>, %k: memref<2x2x4x8xf32>, %v: memref<2x2x4x8xf32>, %m: memref<2x1x1x4xf32>, %o: memref<2x2x4x8xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its mask buffer to broadcast to 2x2x4x4 with strides 4, 4, 0 (from its parameters), but it is 'memref<2x1x1x4xf32>'}}
  kiln.kernel_call "attention_masked_f32" ins(%q, %k, %v, %m : memref<2x2x4x8xf32>, memref<2x2x4x8xf32>, memref<2x2x4x8xf32>, memref<2x1x1x4xf32>) outs(%o : memref<2x2x4x8xf32>) params {batch = 2 : i64, heads = 2 : i64, sq = 4 : i64, sk = 4 : i64, d = 8 : i64, dv = 8 : i64, scale = 0.5 : f32, mask_batch_stride = 4 : i64, mask_head_stride = 4 : i64, mask_row_stride = 0 : i64}
  return
}

// -----

func.func @gpu_conv_groups(%x: memref<1x4x4x3xf32>, %f: memref<4x3x3x1xf32>, %y: memref<1x2x2x4xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op has 2 groups, which do not divide its 3 input and 4 output channels}}
  kiln.kernel_call "gpu_conv2d_f32" ins(%x, %f : memref<1x4x4x3xf32>, memref<4x3x3x1xf32>) outs(%y : memref<1x2x2x4xf32>) params {n = 1, h = 4, w = 4, c = 3, f = 4, kh = 3, kw = 3, oh = 2, ow = 2, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, groups = 2}
  return
}

// -----

func.func @gpu_conv_filter(%x: memref<1x4x4x2xf32>, %f: memref<3x3x2x4xf32>, %y: memref<1x2x2x4xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op expects its filter buffer to be 4x3x3x2 (from its parameters), but it is 'memref<3x3x2x4xf32>'}}
  kiln.kernel_call "gpu_conv2d_f32" ins(%x, %f : memref<1x4x4x2xf32>, memref<3x3x2x4xf32>) outs(%y : memref<1x2x2x4xf32>) params {n = 1, h = 4, w = 4, c = 2, f = 4, kh = 3, kw = 3, oh = 2, ow = 2, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, groups = 1}
  return
}

// -----

func.func @gpu_matmul_relu6(%a: memref<4x3xf32>, %b: memref<3x2xf32>, %t: memref<2xf32>, %c: memref<4x2xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op has the epilogue #kiln.epilogue<bias = input 2, lo = 0.000000e+00, hi = 6.000000e+00>, which cuBLASLt cannot apply: a product's takes a scalar scale, a bias buffer or none, a Relu or nothing, and overwrites its output}}
  kiln.kernel_call "gpu_matmul_epilogue_f32" ins(%a, %b, %t : memref<4x3xf32>, memref<3x2xf32>, memref<2xf32>) outs(%c : memref<4x2xf32>) params {m = 4, n = 2, k = 3, overwrite, epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

func.func @gpu_matmul_no_depth(%a: memref<4x0xf32>, %b: memref<0x2xf32>, %r: memref<4x2xf32>, %c: memref<4x2xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op has k = 0: cuBLASLt's products need k >= 1}}
  kiln.kernel_call "gpu_matmul_residual_f32" ins(%a, %b, %r : memref<4x0xf32>, memref<0x2xf32>, memref<4x2xf32>) outs(%c : memref<4x2xf32>) params {m = 4, n = 2, k = 0, overwrite, epilogue = #kiln.epilogue<>}
  return
}

// -----

func.func @gpu_conv_relu6(%x: memref<1x4x4x2xf32>, %f: memref<4x3x3x2xf32>, %b: memref<4xf32>, %y: memref<1x2x2x4xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op has the epilogue #kiln.epilogue<bias = input 2, lo = 0.000000e+00, hi = 6.000000e+00>, which cuDNN cannot apply: a convolution's takes a scalar scale, a bias buffer or none, a Relu or nothing, and overwrites its output}}
  kiln.kernel_call "gpu_conv2d_f32" ins(%x, %f, %b : memref<1x4x4x2xf32>, memref<4x3x3x2xf32>, memref<4xf32>) outs(%y : memref<1x2x2x4xf32>) params {n = 1, h = 4, w = 4, c = 2, f = 4, kh = 3, kw = 3, oh = 2, ow = 2, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, groups = 1, overwrite, epilogue = #kiln.epilogue<bias = input 2, lo = 0.0, hi = 6.0>}
  return
}

// -----

func.func @gpu_conv_residual_shape(%x: memref<1x4x4x2xf32>, %f: memref<4x3x3x2xf32>, %r: memref<1x2x2x2xf32>, %y: memref<1x2x2x4xf32>) attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op expects its residual buffer to be 1x2x2x4 (from its parameters), or a view of it with 4 channels, but it is 'memref<1x2x2x2xf32>'}}
  kiln.kernel_call "gpu_conv2d_residual_f32" ins(%x, %f, %r : memref<1x4x4x2xf32>, memref<4x3x3x2xf32>, memref<1x2x2x2xf32>) outs(%y : memref<1x2x2x4xf32>) params {n = 1, h = 4, w = 4, c = 2, f = 4, kh = 3, kw = 3, oh = 2, ow = 2, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, groups = 1, overwrite, epilogue = #kiln.epilogue<lo = 0.0>}
  return
}

// -----

func.func @f16_product_of_f32(%a: memref<2x3xf32>, %b: memref<3x4xf16>, %c: memref<2x4xf16>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'kiln.kernel_call' op takes 'memref<2x3xf32>' as its input 'a'; expected a static, contiguous f16 buffer of rank 2}}
  kiln.kernel_call "gpu_matmul_f16" ins(%a, %b : memref<2x3xf32>, memref<3x4xf16>) outs(%c : memref<2x4xf16>) params {m = 2 : i64, n = 4 : i64, k = 3 : i64}
  return
}

// -----

func.func @linalg_sizes(%a: memref<2x3x3xf32>, %l: memref<2x3x4xf32>) {
  // expected-error @+1 {{'kiln.kernel_call' op expects its l buffer to hold 18 elements (from its parameters), but it is 'memref<2x3x4xf32>'}}
  kiln.kernel_call "cholesky_f32" ins(%a : memref<2x3x3xf32>) outs(%l : memref<2x3x4xf32>) params {batch = 2 : i64, n = 3 : i64}
  return
}

// -----

func.func @linalg_element(%a: memref<3x3xf32>, %x: memref<3x3xf32>, %ok: memref<f32>) {
  // expected-error @+1 {{'kiln.kernel_call' op takes 'memref<f32>' as its output 'ok'; expected a static, contiguous i32 buffer}}
  kiln.kernel_call "matrix_inverse_f32" ins(%a : memref<3x3xf32>) outs(%x, %ok : memref<3x3xf32>, memref<f32>) params {batch = 1 : i64, n = 3 : i64}
  return
}

// -----

func.func @kernel_unknown(%a: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.kernel' op names the unknown kernel 'lu_f32'}}
  %0 = kiln.kernel "lu_f32" ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) params {} -> tensor<4xf32>
  return
}

// -----

func.func @kernel_gpu(%a: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.kernel' op names 'gpu_partition_recv', a GPU kernel; it takes tensors of host kernels only}}
  %0 = kiln.kernel "gpu_partition_recv" outs(%a : tensor<4xf32>) params {key = 0 : i32} -> tensor<4xf32>
  return
}

// -----

func.func @kernel_epilogue(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'kiln.kernel' op names 'matmul_epilogue_f32', which takes epilogues}}
  %0 = kiln.kernel "matmul_epilogue_f32" ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%a : tensor<2x2xf32>) params {} -> tensor<2x2xf32>
  return
}

// -----

func.func @kernel_reads_outputs(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'kiln.kernel' op names 'matmul_f32', which reads its outputs unless told not to}}
  %0 = kiln.kernel "matmul_f32" ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%a : tensor<2x2xf32>) params {} -> tensor<2x2xf32>
  return
}

// -----

func.func @kernel_count(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{'kiln.kernel' op has 1 inputs and 1 inits; 'matrix_inverse_f32' reads 1 and writes 2}}
  %0 = kiln.kernel "matrix_inverse_f32" ins(%a : tensor<3x3xf32>) outs(%a : tensor<3x3xf32>) params {} -> tensor<3x3xf32>
  return
}

// -----

func.func @kernel_results(%a: tensor<3x3xf32>, %b: tensor<9xf32>) {
  // expected-error @+1 {{'kiln.kernel' op must have its inits' types as its results' types}}
  %0 = kiln.kernel "cholesky_f32" ins(%a : tensor<3x3xf32>) outs(%a : tensor<3x3xf32>) params {} -> tensor<9xf32>
  return
}

// -----

func.func @kernel_element(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{'kiln.kernel' op takes 'tensor<3x3xf64>' as 'a'; 'cholesky_f32' takes a f32 tensor}}
  %0 = kiln.kernel "cholesky_f32" ins(%a : tensor<3x3xf64>) outs(%a : tensor<3x3xf64>) params {} -> tensor<3x3xf64>
  return
}

// -----

func.func @check_int_not_nan(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.check' op checks 'i32' values; not_nan checks floats}}
  kiln.check "not_nan" %x, "x" : tensor<4xi32>
  return
}
