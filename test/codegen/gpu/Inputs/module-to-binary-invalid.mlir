// Modules kiln-gpu-module-to-binary cannot compile (module-to-binary.mlir): two without a
// target around one it compiles; the errors come in the modules' order.
gpu.module @untargeted {
  llvm.func @one() attributes {gpu.kernel, nvvm.kernel} {
    llvm.return
  }
}
gpu.module @fine [#nvvm.target<chip = "sm_80">] {
  llvm.func @two() attributes {gpu.kernel, nvvm.kernel} {
    llvm.return
  }
}
gpu.module @untargeted_too {
  llvm.func @three() attributes {gpu.kernel, nvvm.kernel} {
    llvm.return
  }
}
