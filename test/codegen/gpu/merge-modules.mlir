// RUN: kiln-opt --split-input-file --kiln-gpu-merge-modules %s | FileCheck %s

// Tests that outlined kernels of the same name from different modules land in one module,
// each named after its old module as a PTX identifier (no dots), with one copy of a function
// outlining copied into two of them, and that the launches follow them.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @kiln_kernels::@f_kernel blocks
// CHECK: gpu.launch_func @kiln_kernels::@f_kernel_0 blocks
// CHECK: gpu.launch_func @kiln_kernels::@main_gpu0_kernel blocks
// CHECK: gpu.module @kiln_kernels [#nvvm.target<chip = "sm_90">] {
// CHECK: func.func @helper(
// CHECK-NOT: func.func @helper(
// CHECK: gpu.func @f_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK: memref.store {{.*}} : memref<4xf32>
// CHECK: gpu.func @f_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK: memref.load {{.*}} : memref<4xf32>
// CHECK: gpu.func @main_gpu0_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK-NOT: gpu.module
// CHECK-NOT: func.func @helper(
module attributes {gpu.container_module} {
  func.func @f(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @main.gpu0_kernel::@main.gpu0_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @f_kernel [#nvvm.target<chip = "sm_90">] {
    func.func @helper(%x: i32) -> i32 {
      return %x : i32
    }
    gpu.func @f_kernel(%a: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      memref.store %z, %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_0 [#nvvm.target<chip = "sm_90">] {
    func.func @helper(%x: i32) -> i32 {
      return %x : i32
    }
    gpu.func @f_kernel(%a: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @main.gpu0_kernel [#nvvm.target<chip = "sm_90">] {
    gpu.func @main.gpu0_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that a kernel whose location names a graph node takes its function's name and that
// node's, as a PTX identifier, a second kernel of the same node with a suffix.
// CHECK-LABEL: func.func @named
// CHECK: gpu.launch_func @kiln_kernels::@named_model_dense_Softmax blocks
// CHECK: gpu.launch_func @kiln_kernels::@named_model_dense_Softmax_1 blocks
// CHECK: gpu.func @named_model_dense_Softmax(
// CHECK: gpu.func @named_model_dense_Softmax_1(
module attributes {gpu.container_module} {
  func.func @named(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @named_kernel::@named_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @named_kernel_0::@named_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @named_kernel {
    gpu.func @named_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    } loc(fused["model/dense/Softmax", "model/dense/Softmax_max"])
  }
  gpu.module @named_kernel_0 {
    gpu.func @named_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    } loc("model/dense/Softmax")
  }
}

// -----

// Tests that a kernel's workgroup buffers are aligned to 32 bytes (what the tensor cores'
// loads need; the NVVM lowering would align them to their element), one that has an
// alignment keeping it.
// CHECK-LABEL: func.func @shared
// CHECK: gpu.func @shared_kernel(%{{.*}}: memref<4xf16>) workgroup(%{{.*}} : memref<64x40xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel
module attributes {gpu.container_module} {
  func.func @shared(%a: memref<4xf16>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @shared_kernel::@shared_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf16>)
    return
  }
  gpu.module @shared_kernel [#nvvm.target<chip = "sm_90">] {
    gpu.func @shared_kernel(%a: memref<4xf16>)
        workgroup(%t : memref<64x40xf16, #gpu.address_space<workgroup>>,
                  %u : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel {
      gpu.return
    }
  }
}
