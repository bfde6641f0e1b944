// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that an elementwise op no other strategy takes (rows of 99: not a multiple of 4)
// becomes linalg's parallel loops, one launch of one thread per element, the flat index
// split row-major and guarded against the last block's spare threads.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], {{.*}}) in ({{[^=]*}}= %c4{{(_[0-9]+)?}}, {{.*}}) threads(%[[TX:[^,]*]], {{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}},
// CHECK: %[[B:.*]] = arith.muli %[[BX]], %c256
// CHECK: %[[ID:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %c990 : index
// CHECK: scf.if %[[IN]] {
// CHECK: arith.remui %[[ID]], %c99
// CHECK: arith.divui %[[ID]], %c99
// CHECK: memref.load %{{.*}} : memref<10x99xf32>
// CHECK: math.tanh
// CHECK: memref.store %{{.*}} : memref<10x99xf32>
// CHECK: gpu.terminator
func.func @elementwise(%x: memref<10x99xf32>, %y: memref<10x99xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: parallel-loops: none of the other strategies fits}}
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<10x99xf32>) outs(%y : memref<10x99xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a named op (a copy, which becomes a linalg.copy) becomes linalg's parallel
// loops too: one thread per element of a view (8 elements: a block of a warp).
// CHECK-LABEL: func.func @copy
// CHECK: %[[V:.*]] = memref.subview
// CHECK: gpu.launch blocks({{.*}}) threads({{.*}}) in ({{[^=]*}}= %c32{{(_[0-9]+)?}},
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: memref.load %[[V]]
// CHECK: memref.store {{.*}} : memref<8xf32>
// CHECK: gpu.terminator
func.func @copy(%x: memref<64xf32>, %z: memref<8xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %v = memref.subview %x[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
  // expected-remark @+1 {{kernel strategy: parallel-loops: a named op, not a generic one}}
  memref.copy %v, %z : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
  return
}
