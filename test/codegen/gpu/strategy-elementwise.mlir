// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that an elementwise op whose rows are aligned multiples of 4 elements is made a
// vectorised elementwise kernel: one thread per 4 elements of a row (8 x 64 elements: 128
// threads), each operand read with one aligned vector load, the body applied to vectors,
// one aligned vector store.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @accumulate
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{[^=]*}}= %c128{{(_[0-9]+)?}},
// CHECK: arith.cmpi ult, %{{.*}}, %c128
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: arith.muli %{{.*}}, %c4
// CHECK: %[[X:.*]] = vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: %[[OLD:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[OLD]] fastmath<contract> : vector<4xf32>
// CHECK: vector.store %[[SUM]], %arg1[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: gpu.terminator
func.func @accumulate(%x: memref<8x64xf32>, %y: memref<8x64xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: vectorised-elementwise: elementwise, its operands' rows multiples of 4 elements that start aligned}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  }
  return
}
