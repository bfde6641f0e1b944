// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-gpu-kernels %s

// Tests that what has no GPU lowering is an error at the op, naming the function and device.
func.func private @host(memref<4xf32>)
func.func @calls(%x: memref<4xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-error @+1 {{'func.call' op has no GPU lowering (in 'calls', placed on kiln.device "/job:localhost/replica:0/task:0/device:GPU:0")}}
  func.call @host(%x) : (memref<4xf32>) -> ()
  return
}

// -----

func.func private @host(memref<4xf32>)
func.func @loop_calls(%x: memref<4xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op has no GPU lowering (in 'loop_calls'}}
  scf.for %i = %c0 to %c1 step %c1 {
    func.call @host(%x) : (memref<4xf32>) -> ()
  }
  return
}
