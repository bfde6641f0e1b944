// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-stream))' %s | FileCheck %s

// Tests that a function's copies, fills and launches, the weights' copy inside an scf.if
// too, are queued on the one stream the function takes on entry, and that it waits for
// the stream before it returns; a call between them (a library call) stays as it is.
// CHECK-LABEL: func.func @part
// CHECK-NEXT: %[[S:.*]] = gpu.wait async
// CHECK: scf.if
// CHECK: gpu.memcpy async [%[[S]]] %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>
// CHECK: gpu.memcpy async [%[[S]]] %{{.*}}, %arg0
// CHECK-NEXT: gpu.memset async [%[[S]]]
// CHECK-NEXT: call @library
// CHECK-NEXT: gpu.launch_func async [%[[S]]] @kiln_kernels::@k blocks
// CHECK-NEXT: gpu.memcpy async [%[[S]]] %arg1, %{{.*}}
// CHECK-NEXT: gpu.wait [%[[S]]]
// CHECK-NEXT: return
// CHECK-NOT: gpu.wait
// A function without GPU work is left alone.
// CHECK-LABEL: func.func @host
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  func.func private @library(memref<4xf32>)
  func.func @part(%x: memref<4xf32>, %y: memref<4xf32>, %d: memref<4xf32>, %w: memref<4xf32>,
                  %fresh: i1) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    scf.if %fresh {
      %h = memref.alloc() : memref<4xf32>
      gpu.memcpy %w, %h : memref<4xf32>, memref<4xf32>
    }
    gpu.memcpy %d, %x : memref<4xf32>, memref<4xf32>
    gpu.memset %w, %zero : memref<4xf32>, f32
    call @library(%d) : (memref<4xf32>) -> ()
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xf32>, %w : memref<4xf32>)
    gpu.memcpy %y, %d : memref<4xf32>, memref<4xf32>
    return
  }
  func.func @host() {
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Work that is already asynchronous is ordered by its function, not by the pass.
module attributes {gpu.container_module} {
  func.func @ordered(%x: memref<4xf32>, %d: memref<4xf32>) {
    // expected-error @+1 {{'gpu.wait' op is already asynchronous: kiln-gpu-stream orders a function's GPU work itself}}
    %t = gpu.wait async
    %u = gpu.memcpy async [%t] %d, %x : memref<4xf32>, memref<4xf32>
    gpu.wait [%u]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @ordered(%x: memref<4xf32>, %d: memref<4xf32>, %t: !gpu.async.token) {
    // expected-error @+1 {{'gpu.memcpy' op is already asynchronous: kiln-gpu-stream orders a function's GPU work itself}}
    %u = gpu.memcpy async [%t] %d, %x : memref<4xf32>, memref<4xf32>
    return
  }
}
