// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=warpgroup-mma=true' %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-kernels %s | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=warpgroup-mma=true' --kiln-gpu-lower-nvgpu %s | FileCheck %s --check-prefix=LOWERED

// Tests kiln-gpu-kernels' Hopper products (warpgroup-mma, kiln compile --gpu-arch sm_90a):
// an f16 product of 4096 x 1280 outputs, 200 deep, its A and B row-major, gets two
// warpgroups (256 threads) per 128 x 256 tile (a grid of 5 x 32: at least one tile per
// SM of an H200, 132), each 64 rows of it, 4
// stages of 48 KiB of dynamic shared memory and 1 KiB to align them; on the host a tensor
// map per operand (A in boxes of 128 x 64, B of 64 x 64, both swizzled 128 bytes); in the
// kernel four mbarriers, the first three stages loaded before the loop over the 4 steps
// of 64 (A's box and B's four), each step waiting for its stage, each warpgroup
// multiplying its 64 rows of A (8 KiB into the stage) by B (transposed: its rows are the
// depth), waiting for the block, then loading the stage three ahead; after the loop, each
// warpgroup's sums into its rows of a shared tile, added to the output's old values,
// rounded to f16, where inside, 8 columns a thread (16 passes of 8 rows).
// Without the option (OFF), the same product is wmma's. kiln-gpu-lower-nvgpu (LOWERED)
// turns the host's tensor maps into the runtime's call and the kernel's ops into NVVM's.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @hopper_product
// CHECK: %[[UA:.*]] = memref.cast %arg0 : memref<4096x200xf16> to memref<*xf16>
// CHECK: %[[MA:.*]] = nvgpu.tma.create.descriptor %[[UA]] box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: %[[UB:.*]] = memref.cast %arg1 : memref<200x1280xf16> to memref<*xf16>
// CHECK: %[[MB:.*]] = nvgpu.tma.create.descriptor %[[UB]] box[%c64{{.*}}, %c64{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c5{{(_[0-9]+)?}}, {{[^=]*}}= %c32{{(_[0-9]+)?}}, {{.*}}) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}}, {{.*}}) dynamic_shared_memory_size %c197632_i32
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-COUNT-4: nvgpu.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK-COUNT-2: nvgpu.tma.prefetch.descriptor
// CHECK: nvgpu.mbarrier.arrive.expect_tx {{.*}}, %c49152
// CHECK: nvgpu.tma.async.load %[[MA]]
// CHECK-COUNT-4: nvgpu.tma.async.load %[[MB]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load %[[MA]]
// CHECK-COUNT-4: nvgpu.tma.async.load %[[MB]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load %[[MA]]
// CHECK-COUNT-4: nvgpu.tma.async.load %[[MB]]
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// CHECK: scf.for {{.*}} to %c4{{.*}} iter_args
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
// CHECK: nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x256xf16, #gpu.address_space<workgroup>>>
// CHECK: nvgpu.warpgroup.mma {{.*}} {transposeB}
// CHECK: gpu.barrier
// CHECK: nvgpu.tma.async.load %[[MA]]
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.warpgroup.mma.store {{.*}} to memref<64x256xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} to %c16
// CHECK: scf.if
// CHECK: vector.load {{.*}} : memref<128x256xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK: vector.load %arg2{{.*}} {alignment = 16 : i64} : memref<4096x1280xf16>, vector<8xf16>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: vector.store {{.*}}, %arg2{{.*}} {alignment = 16 : i64}
// OFF-LABEL: func.func @hopper_product
// OFF-NOT: nvgpu
// OFF: gpu.subgroup_mma_compute
// LOWERED-LABEL: func.func @hopper_product
// LOWERED: llvm.call @mgpuTensorMapEncodeTiledMemref
// LOWERED: llvm.call @mgpuTensorMapEncodeTiledMemref
// LOWERED: gpu.launch
// LOWERED: nvvm.mbarrier.init
// LOWERED: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LOWERED: nvvm.mbarrier.try_wait.parity
// LOWERED: nvvm.wgmma.fence.aligned
// LOWERED-COUNT-4: nvvm.wgmma.mma_async
// LOWERED: nvvm.wgmma.commit.group.sync.aligned
// LOWERED: nvvm.wgmma.wait.group.sync.aligned 1
// The sums' store finds a thread's rows from its warp's index in the block (tid.x / 32,
// times 16): both warpgroups store through the first 64 rows' view, the second's rows
// 64 to 127 after them (kiln-gpu-kernels relies on this; a lowering taking the warp's
// index in its warpgroup instead would fail here).
// LOWERED: nvvm.wgmma.wait.group.sync.aligned 0
// LOWERED: %[[VIEW:.*]] = memref.view {{.*}} to memref<64x256xf32, #gpu.address_space<workgroup>>
// LOWERED: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// LOWERED: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// LOWERED: %[[WARP:.*]] = llvm.udiv %[[TID]], %[[C32]] : i32
// LOWERED: llvm.mul %[[WARP]], %{{.*}} : i32
// LOWERED: memref.store {{.*}}, %[[VIEW]]
// LOWERED-NOT: nvgpu.
func.func @hopper_product(%a: memref<4096x200xf16>, %b: memref<200x1280xf16>,
                          %c: memref<4096x1280xf16>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4096x200xf16>, memref<200x1280xf16>) outs(%c : memref<4096x1280xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests the products the Hopper kernel leaves to wmma: B read transposed (its rows are the
// columns: TMA would need the other wgmma layout), A a view whose rows start 4 elements
// (8 bytes) apart from 16-byte alignment, too few outputs (64 rows), and f32.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @not_hopper
// CHECK-NOT: nvgpu
// CHECK-COUNT-3: gpu.subgroup_mma_compute
// CHECK-NOT: nvgpu
// CHECK: return
func.func @not_hopper(%a: memref<256x200xf16>, %bt: memref<320x200xf16>, %c: memref<256x320xf16>,
                      %v: memref<256x200xf16, strided<[204, 1], offset: 4>>,
                      %b: memref<200x320xf16>, %d: memref<256x320xf16>,
                      %sa: memref<64x200xf16>, %sc: memref<64x320xf16>,
                      %fa: memref<256x200xf32>, %fb: memref<200x320xf32>, %fc: memref<256x320xf32>,
                      %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<256x200xf16>, memref<320x200xf16>) outs(%c : memref<256x320xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%v, %b : memref<256x200xf16, strided<[204, 1], offset: 4>>, memref<200x320xf16>)
      outs(%d : memref<256x320xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sa, %b : memref<64x200xf16>, memref<200x320xf16>) outs(%sc : memref<64x320xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%fa, %fb : memref<256x200xf32>, memref<200x320xf32>) outs(%fc : memref<256x320xf32>) {
  ^bb0(%x: f32, %q: f32, %z: f32):
    %m = arith.mulf %x, %q : f32
    %t = arith.addf %z, %m : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests a partition with both kinds: the large product Hopper's kernel (in 128 x 128
// tiles: 2 x 2 of 128 x 256 would leave most SMs idle), the small one wmma's; kiln-gpu-lower-nvgpu lowers the first and leaves the second's loop, which
// carries wmma fragments, as it is.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @mixed
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// CHECK: nvgpu.warpgroup.mma
// CHECK: gpu.subgroup_mma_compute
// LOWERED-LABEL: func.func @mixed
// LOWERED: llvm.call @mgpuTensorMapEncodeTiledMemref
// LOWERED: nvvm.wgmma.mma_async
// LOWERED: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">
// LOWERED: gpu.subgroup_mma_compute
func.func @mixed(%a: memref<256x200xf16>, %b: memref<200x320xf16>, %c: memref<256x320xf16>,
                 %sa: memref<64x200xf16>, %sc: memref<64x320xf16>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<256x200xf16>, memref<200x320xf16>) outs(%c : memref<256x320xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sa, %b : memref<64x200xf16>, memref<200x320xf16>) outs(%sc : memref<64x320xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests a Hopper product after a fill of its output (MatMul's zeros), its depth loop not
// yet last: the fill is the sums' starting value (no kernel of its own, the output not
// read), and an output whose rows do not start 16-byte aligned (a view of rows 300 apart)
// stored one element a thread (128 x 128 tiles: half a row of the tile a pass, 64 passes).
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @filled
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: gpu.launch
// CHECK: nvgpu.warpgroup.mma
// CHECK: %[[START:.*]] = arith.extf %[[ZERO]] : f16 to f32
// CHECK: scf.for {{.*}} to %c64
// CHECK-NOT: memref.load %arg2
// CHECK: arith.addf %[[START]], {{.*}} : f32
// CHECK: memref.store {{.*}}, %arg2
// CHECK-NOT: gpu.launch
func.func @filled(%a: memref<256x200xf16>, %b: memref<200x296xf16>, %c: memref<256x296xf16, strided<[300, 1]>>,
                  %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<256x296xf16, strided<[300, 1]>>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<256x200xf16>, memref<200x296xf16>) outs(%c : memref<256x296xf16, strided<[300, 1]>>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests a Hopper product under 256 columns (136): 128 x 128 tiles (a grid of 2 x 2), B's
// stages two boxes, 3 stages of 32 KiB, each warpgroup's sums 64 x 128. (A product of 256
// or more columns with fewer tiles of 256 than an H200's 132 SMs gets these too: @mixed's.)
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @narrow
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c2{{(_[0-9]+)?}}, {{[^=]*}}= %c2{{(_[0-9]+)?}}, {{.*}}) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}}, {{.*}}) dynamic_shared_memory_size %c99328_i32
// CHECK: num_barriers = 3
// CHECK: nvgpu.mbarrier.arrive.expect_tx {{.*}}, %c32768
// CHECK: nvgpu.tma.async.load
// CHECK-COUNT-2: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-3: nvgpu.tma.async.load
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// CHECK: nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
// CHECK: nvgpu.warpgroup.mma.store {{.*}} to memref<64x128xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} to %c8
func.func @narrow(%a: memref<256x200xf16>, %b: memref<200x136xf16>, %c: memref<256x136xf16>,
                  %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<256x200xf16>, memref<200x136xf16>) outs(%c : memref<256x136xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}
