// Round-trips the kiln ops through the printer and the parser (custom and generic forms).
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --mlir-print-op-generic %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @entry
// CHECK-NEXT: %[[A:.*]] = kiln.partition @part0(%arg0) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: kiln.partition @part1() on "/cpu:1" : () -> ()
// CHECK-NEXT: return %[[A]]
func.func @entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.partition @part0(%x) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
  kiln.partition @part1() on "/cpu:1" : () -> ()
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func private @part0
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = kiln.recv "b:0;/cpu:0" into %[[E]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: kiln.send %arg0 as "a:0;/cpu:1" : tensor<4xf32>
func.func private @part0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = kiln.recv "b:0;/cpu:0" into %e : tensor<4xf32> -> tensor<4xf32>
  kiln.send %x as "a:0;/cpu:1" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func private @part1
// CHECK: kiln.recv "a:0;/cpu:1" into %[[B:.*]] : memref<4xf32>
// CHECK-NEXT: kiln.send %[[B]] as "b:0;/cpu:0" : memref<4xf32>
func.func private @part1() {
  %b = memref.alloc() : memref<4xf32>
  kiln.recv "a:0;/cpu:1" into %b : memref<4xf32>
  kiln.send %b as "b:0;/cpu:0" : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @checks
// CHECK-NEXT: kiln.check "nonzero" %arg0, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
// CHECK-NEXT: kiln.check "in_range" %arg1 bounds [5, 3], "indices{index} = {value} does not index into params of shape [5,3]" {unsigned_values} : memref<2x2xi64>
// CHECK-NEXT: kiln.check "nonnegative" %arg2, "y{index} = {value}" : tensor<i8>
func.func @checks(%y: tensor<4xi32>, %i: memref<2x2xi64>, %p: tensor<i8>) {
  kiln.check "nonzero" %y, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
  kiln.check "in_range" %i bounds [5, 3], "indices{index} = {value} does not index into params of shape [5,3]" {unsigned_values} : memref<2x2xi64>
  kiln.check "nonnegative" %p, "y{index} = {value}" : tensor<i8>
  return
}

// The kernel calls of every family, with flags, pairs and epilogues (fields at their
// identity are not printed; a non-finite bound prints in hex).
// CHECK-LABEL: func.func @kernel_calls
// CHECK-NEXT: kiln.kernel_call "matmul_f32" ins(%arg0, %arg1 : memref<8x4xf32>, memref<4x16xf32>) outs(%arg2 : memref<8x16xf32>) params {k = 4 : i64, m = 8 : i64, n = 16 : i64, overwrite}
// CHECK-NEXT: kiln.kernel_call "matmul_epilogue_f32" ins(%arg0, %arg1, %arg3, %arg4 : memref<8x4xf32>, memref<4x16xf32>, memref<16xf32>, memref<16xf32>) outs(%arg2 : memref<8x16xf32>) params {epilogue = #kiln.epilogue<scale = input 2, bias = input 3, lo = 0.000000e+00, hi = 6.000000e+00>, k = 4 : i64, m = 8 : i64, n = 16 : i64, overwrite}
// CHECK-NEXT: kiln.kernel_call "matmul_epilogue_f32" {{.*}} params {epilogue = #kiln.epilogue<scale = 5.000000e-01, bias = -1.000000e+00, hi = 0x7FC00000, swish>, k = 4 : i64, m = 8 : i64, n = 16 : i64, packed_b}
// CHECK-NEXT: kiln.kernel_call "matmul_epilogue_f32" {{.*}} params {epilogue = #kiln.epilogue<>, k = 4 : i64, m = 8 : i64, n = 16 : i64}
// CHECK-NEXT: kiln.kernel_call "max_pool2d_f32" ins(%arg5 : memref<1x4x4x3xf32>) outs(%arg6 : memref<1x2x2x3xf32>) params {c = 3 : i64, h = 4 : i64, n = 1 : i64, oh = 2 : i64, ow = 2 : i64, pad = array<i64: 0, 0>, strides = array<i64: 2, 2>, w = 4 : i64, window = array<i64: 2, 2>}
// CHECK-NEXT: kiln.kernel_call "partition_send" ins(%arg7 : memref<3xi8>) params {key = 0 : i32}
// CHECK-NEXT: kiln.kernel_call "partition_recv" outs(%arg7 : memref<3xi8>) params {key = 1 : i32}
func.func @kernel_calls(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>, %s: memref<16xf32>, %t: memref<16xf32>,
                        %x: memref<1x4x4x3xf32>, %y: memref<1x2x2x3xf32>, %bytes: memref<3xi8>, %packed: memref<128xf32>) {
  kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %s, %t : memref<8x4xf32>, memref<4x16xf32>, memref<16xf32>, memref<16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite, epilogue = #kiln.epilogue<scale = input 2, bias = input 3, lo = 0.0, hi = 6.0>}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %packed : memref<8x4xf32>, memref<128xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, packed_b, epilogue = #kiln.epilogue<scale = 0.5, bias = -1.0, hi = 0x7FC00000, swish>}
  kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
      params {m = 8 : i64, n = 16 : i64, k = 4 : i64, epilogue = #kiln.epilogue<>}
  kiln.kernel_call "max_pool2d_f32" ins(%x : memref<1x4x4x3xf32>) outs(%y : memref<1x2x2x3xf32>)
      params {n = 1 : i64, h = 4 : i64, w = 4 : i64, c = 3 : i64, oh = 2 : i64, ow = 2 : i64, window = array<i64: 2, 2>, strides = array<i64: 2, 2>, pad = array<i64: 0, 0>}
  kiln.kernel_call "partition_send" ins(%bytes : memref<3xi8>) params {key = 0 : i32}
  kiln.kernel_call "partition_recv" outs(%bytes : memref<3xi8>) params {key = 1 : i32}
  return
}

// A model with state shared by three entry points: init writes w, train_step reads and
// writes it, predict reads it; frozen and unfrozen tensors, an alias, and an entry whose
// function is taken by parts.
// CHECK-LABEL: kiln.model "counter" {
// CHECK-NEXT: kiln.state "w" : tensor<4xf32>
// CHECK-NEXT: kiln.state "steps" : tensor<i64>
// CHECK-NEXT: kiln.entry "init" = @init feeds [] fetches [] {updates = ["w", "steps"]}
// CHECK-NEXT: kiln.entry "train_step" = @train_step feeds [#kiln.tensor<"g:0" : tensor<4xf32>>] fetches [#kiln.tensor<"loss:0">] {state = ["w", "steps"], updates = ["w", "steps"]}
// CHECK-NEXT: kiln.entry "predict" feeds [#kiln.tensor<"x:0" alias "x" : tensor<4xf32>>] fetches [#kiln.tensor<"y:0" : tensor<4xf32>>] {parts = [#kiln.part<function = @predict, device = "/cpu:0", inputs = [0], outputs = [0], scratch_bytes = 64, status = true>], state = ["w"]}
// CHECK-NEXT: }
kiln.model "counter" {
  kiln.state "w" : tensor<4xf32>
  kiln.state "steps" : tensor<i64>
  kiln.entry "init" = @init feeds [] fetches [] {updates = ["w", "steps"]}
  kiln.entry "train_step" = @train_step feeds [#kiln.tensor<"g:0" : tensor<4xf32>>]
      fetches [#kiln.tensor<"loss:0">] {state = ["w", "steps"], updates = ["w", "steps"]}
  kiln.entry "predict" feeds [#kiln.tensor<"x:0" alias "x" : tensor<4xf32>>]
      fetches [#kiln.tensor<"y:0" : tensor<4xf32>>]
      {state = ["w"], parts = [#kiln.part<function = @predict, device = "/cpu:0", inputs = [0], outputs = [0], scratch_bytes = 64, status = true>]}
}
func.func private @init() -> (tensor<4xf32>, tensor<i64>)
func.func private @train_step(tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<f32>, tensor<4xf32>, tensor<i64>)
func.func private @predict(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: func.func @attention
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {k_seq_major, scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<2x3x5x8xf32>, tensor<2x7x3x8xf32>, tensor<2x3x7x4xf32> -> tensor<2x3x5x4xf32>
func.func @attention(%q: tensor<2x3x5x8xf32>, %k: tensor<2x7x3x8xf32>, %v: tensor<2x3x7x4xf32>) -> tensor<2x3x5x4xf32> {
  %e = tensor.empty() : tensor<2x3x5x4xf32>
  %o = kiln.attention %q, %k, %v into %e {scale = 0.125 : f32, k_seq_major}
      : tensor<2x3x5x8xf32>, tensor<2x7x3x8xf32>, tensor<2x3x7x4xf32> -> tensor<2x3x5x4xf32>
  return %o : tensor<2x3x5x4xf32>
}

// CHECK-LABEL: func.func @attention_mask
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x1x1x7xf32> into %{{.*}} {scale = 1.250000e-01 : f32}
func.func @attention_mask(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x4xf32>, %m: tensor<2x1x1x7xf32>) -> tensor<2x3x5x4xf32> {
  %e = tensor.empty() : tensor<2x3x5x4xf32>
  %o = kiln.attention %q, %k, %v mask %m : tensor<2x1x1x7xf32> into %e {scale = 0.125 : f32}
      : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32> -> tensor<2x3x5x4xf32>
  return %o : tensor<2x3x5x4xf32>
}

// The tensor form, kiln.kernel: a linear-algebra kernel with two results and a status.
// CHECK-LABEL: func.func @kernel
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3x3xf64>
// CHECK-NEXT: %[[OK:.*]] = tensor.empty() : tensor<2xi32>
// CHECK-NEXT: %{{.*}}:2 = kiln.kernel "matrix_inverse_f64" ins(%arg0 : tensor<2x3x3xf64>) outs(%[[E]], %[[OK]] : tensor<2x3x3xf64>, tensor<2xi32>) params {adjoint, batch = 2 : i64, n = 3 : i64} -> tensor<2x3x3xf64>, tensor<2xi32>
func.func @kernel(%a: tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2xi32>) {
  %e = tensor.empty() : tensor<2x3x3xf64>
  %ok = tensor.empty() : tensor<2xi32>
  %inverse, %status = kiln.kernel "matrix_inverse_f64" ins(%a : tensor<2x3x3xf64>) outs(%e, %ok : tensor<2x3x3xf64>, tensor<2xi32>)
      params {batch = 2 : i64, n = 3 : i64, adjoint} -> tensor<2x3x3xf64>, tensor<2xi32>
  return %inverse, %status : tensor<2x3x3xf64>, tensor<2xi32>
}
