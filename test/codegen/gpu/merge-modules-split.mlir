// RUN: kiln-opt --kiln-gpu-merge-modules="modules=3 kernels-per-module=1" %s | FileCheck %s
// RUN: kiln-opt --kiln-gpu-merge-modules="modules=3 kernels-per-module=2" %s | FileCheck %s --check-prefix=TWO
// RUN: kiln-opt --kiln-gpu-merge-modules %s | FileCheck %s --check-prefix=ONE

// Tests that many kernels go into several modules, each kernel, in program order, into the
// one with the fewest operations so far (a, 7 operations with itself, to the first; b, 3,
// to the second; c, 5, to the third; d to the second, the lightest then), that each module
// has a copy of the functions its kernels call (directly or through another) and no other,
// and that the launches follow the kernels. Four kernels at two a module make two modules
// (c to the second, 3 operations then; d to the first, 7 against 8), and the default is one
// module.
// CHECK: gpu.launch_func @kiln_kernels::@a blocks
// CHECK: gpu.launch_func @kiln_kernels_1::@b blocks
// CHECK: gpu.launch_func @kiln_kernels_2::@c blocks
// CHECK: gpu.launch_func @kiln_kernels_1::@d blocks
// a calls twice; c calls helper, which calls twice; b and d call nothing.
// CHECK-LABEL: gpu.module @kiln_kernels [#nvvm.target<chip = "sm_90">] {
// CHECK-NOT: func.func @helper(
// CHECK: func.func @twice(
// CHECK-NOT: func.func @helper(
// CHECK: gpu.func @a(
// CHECK-LABEL: gpu.module @kiln_kernels_1 [#nvvm.target<chip = "sm_90">] {
// CHECK-NOT: func.func
// CHECK: gpu.func @b(
// CHECK-NOT: func.func
// CHECK: gpu.func @d(
// CHECK-LABEL: gpu.module @kiln_kernels_2 [#nvvm.target<chip = "sm_90">] {
// CHECK: func.func @helper(
// CHECK: func.func @twice(
// CHECK: gpu.func @c(
// TWO: gpu.launch_func @kiln_kernels::@a blocks
// TWO: gpu.launch_func @kiln_kernels_1::@b blocks
// TWO: gpu.launch_func @kiln_kernels_1::@c blocks
// TWO: gpu.launch_func @kiln_kernels::@d blocks
// TWO-NOT: gpu.module @kiln_kernels_2
// ONE-COUNT-4: gpu.launch_func @kiln_kernels::@
// ONE-NOT: gpu.module @kiln_kernels_1
module attributes {gpu.container_module} {
  func.func @f(%a: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xi32>)
    gpu.launch_func @b::@b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xi32>)
    gpu.launch_func @c::@c blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xi32>)
    gpu.launch_func @d::@d blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xi32>)
    return
  }
  gpu.module @a [#nvvm.target<chip = "sm_90">] {
    func.func @helper(%x: i32) -> i32 {
      %y = func.call @twice(%x) : (i32) -> i32
      return %y : i32
    }
    func.func @twice(%x: i32) -> i32 {
      %y = arith.addi %x, %x : i32
      return %y : i32
    }
    gpu.func @a(%a: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xi32>
      %w = func.call @twice(%v) : (i32) -> i32
      memref.store %w, %a[%c0] : memref<4xi32>
      memref.store %w, %a[%c0] : memref<4xi32>
      gpu.return
    }
  }
  gpu.module @b [#nvvm.target<chip = "sm_90">] {
    gpu.func @b(%a: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      gpu.return
    }
  }
  gpu.module @c [#nvvm.target<chip = "sm_90">] {
    func.func @helper(%x: i32) -> i32 {
      %y = func.call @twice(%x) : (i32) -> i32
      return %y : i32
    }
    func.func @twice(%x: i32) -> i32 {
      %y = arith.addi %x, %x : i32
      return %y : i32
    }
    gpu.func @c(%a: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xi32>
      %w = func.call @helper(%v) : (i32) -> i32
      gpu.return
    }
  }
  gpu.module @d [#nvvm.target<chip = "sm_90">] {
    gpu.func @d(%a: memref<4xi32>) kernel {
      gpu.return
    }
  }
}
