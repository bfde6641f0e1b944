// RUN: kiln-opt --kiln-gpu-host %s | FileCheck %s

// Tests that a GPU partition works on its device arena: the scratch at 0, then the weights
// (copied up only on the call that allocated the arena), then the input (copied in) and the
// output (copied out before the runtime ends the call), 256-byte aligned; the function
// keeps the arena's size for `kiln compile --stats`.
memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> {alignment = 64 : i64}

// CHECK: memref.global "private" @main.gpu0.gpu_arena : memref<2xi64> = dense<0>
// CHECK-LABEL: func.func @main.gpu0(
// CHECK-SAME: %[[X:[^:]*]]: memref<4xf32>, %[[Y:[^:]*]]: memref<4xf32>, %[[S:[^:]*]]: memref<64xi8>)
// CHECK-SAME: kiln.gpu_arena_bytes = 1024 : i64
// CHECK: %[[SLOT:.*]] = memref.get_global @main.gpu0.gpu_arena : memref<2xi64>
// CHECK: %[[BYTES:.*]] = arith.constant 1024 : i64
// CHECK: %[[BASE:.*]] = call @kiln_mgpu_part_begin(%[[SLOT]], %[[BYTES]]) : (memref<2xi64>, i64) -> memref<1xi8>
// CHECK: %[[ARENA:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [1024], strides: [1]
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[DW:.*]] = memref.view %[[ARENA]][%[[C256]]][] : memref<1024xi8> to memref<4xf32>
// CHECK: memref.load %[[SLOT]][%{{.*}}] : memref<2xi64>
// CHECK: scf.if
// CHECK: %[[W:.*]] = memref.get_global @w : memref<4xf32>
// CHECK: gpu.memcpy  %[[DW]], %[[W]] : memref<4xf32>, memref<4xf32>
// CHECK: }
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: %[[DX:.*]] = memref.view %[[ARENA]][%[[C512]]][] : memref<1024xi8> to memref<4xf32>
// CHECK: gpu.memcpy  %[[DX]], %[[X]] : memref<4xf32>, memref<4xf32>
// CHECK: %[[C768:.*]] = arith.constant 768 : index
// CHECK: %[[DY:.*]] = memref.view %[[ARENA]][%[[C768]]][] : memref<1024xi8> to memref<4xf32>
// CHECK: %[[DS:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<1024xi8> to memref<64xi8>
// CHECK: %[[T:.*]] = memref.view %[[DS]]
// CHECK: gpu.launch
// CHECK: memref.load %[[DX]]
// CHECK: memref.load %[[DW]]
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: memref.store %{{.*}}, %[[DY]]
// CHECK: gpu.memcpy  %[[Y]], %[[DY]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: call @kiln_mgpu_part_end(%[[SLOT]]) : (memref<2xi64>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @kiln_mgpu_part_begin(memref<2xi64>, i64) -> memref<1xi8>
// CHECK: func.func private @kiln_mgpu_part_end(memref<2xi64>)
func.func @main.gpu0(%x: memref<4xf32>, %y: memref<4xf32>, %s: memref<64xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %w = memref.get_global @w : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.view %s[%c0][] : memref<64xi8> to memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %x[%tx] : memref<4xf32>
    %b = memref.load %w[%tx] : memref<4xf32>
    %c = arith.addf %a, %b : f32
    memref.store %c, %t[%tx] : memref<4xf32>
    memref.store %c, %y[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

kiln.model "m" {
  kiln.entry "run" feeds [#kiln.tensor<"x:0" : tensor<4xf32>>] fetches [#kiln.tensor<"y:0" : tensor<4xf32>>] {parts = [#kiln.part<function = @main.gpu0, device = "/job:localhost/replica:0/task:0/device:GPU:0", inputs = [0], outputs = [0], scratch_bytes = 64>]}
}
