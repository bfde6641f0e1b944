// RUN: kiln-opt --split-input-file --kiln-gpu-kernels %s | FileCheck %s
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=reassociate=false' %s | FileCheck %s --check-prefix=STRICT
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=tensor-cores=false' %s | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=vectorise=false' %s | FileCheck %s --check-prefix=NOVEC
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=allow-tf32=true' %s | FileCheck %s --check-prefix=TF32
// RUN: kiln-opt --split-input-file '--kiln-gpu-kernels=contract=false' %s | FileCheck %s --check-prefix=NOCONTRACT

// Tests that an elementwise op on a GPU becomes one launch of one thread per element, the
// flat index split row-major (the last dimension fastest), guarded against the last block's
// spare threads (rows of 99: not a multiple of 4, so not vectorised).
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
// CHECK-NOT: linalg
func.func @elementwise(%x: memref<10x99xf32>, %y: memref<10x99xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<10x99xf32>) outs(%y : memref<10x99xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that an elementwise op whose rows are a multiple of 4 long takes 4 elements per
// thread (8 x 64 elements: 128 threads): the operands along the row read with one aligned
// vector load each, the bias along the row too, a value per row (which does not vary
// along it) loaded once and broadcast like the body's constant, the body applied to
// vectors (its attributes kept: fastmath, cmpf's predicate), one aligned vector store.
// Not vectorised: a transposed read (@transposed), a view whose rows start off a
// multiple of 4 (@offset), an i8 buffer (@bytes); with vectorise=false nothing is. An
// output the body reads is loaded as a vector too (@accumulate).
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @vectorised
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{[^=]*}}= %c128{{(_[0-9]+)?}},
// CHECK: arith.cmpi ult, %{{.*}}, %c128
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: arith.muli %{{.*}}, %c4
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: memref.load %arg2[{{.*}}] : memref<8xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<4xf32>
// CHECK: vector.broadcast {{.*}} : f32 to vector<4xf32>
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK: arith.cmpf olt, {{.*}} : vector<4xf32>
// CHECK: math.exp {{.*}} : vector<4xf32>
// CHECK: arith.select {{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[X:.*]] = vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: %[[OLD:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[OLD]] fastmath<contract> : vector<4xf32>
// CHECK: vector.store %[[SUM]], %arg1[{{.*}}] {alignment = 16 : i64}
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @offset
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @bytes
// CHECK-NOT: vector.
// NOVEC-LABEL: func.func @vectorised
// NOVEC-NOT: vector.
func.func @vectorised(%x: memref<8x64xf32>, %b: memref<64xf32>, %r: memref<8xf32>,
                      %y: memref<8x64xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#id, #bc, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %r : memref<8x64xf32>, memref<64xf32>, memref<8xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %q: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s1 = arith.addf %a, %c fastmath<contract> : f32
    %m = arith.mulf %s1, %q : f32
    %lt = arith.cmpf olt, %m, %zero : f32
    %e = math.exp %m : f32
    %sel = arith.select %lt, %e, %m : f32
    linalg.yield %sel : f32
  }
  return
}
func.func @accumulate(%x: memref<8x64xf32>, %y: memref<8x64xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  }
  return
}
func.func @transposed(%x: memref<64x8xf32>, %y: memref<8x64xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x8xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
func.func @offset(%x: memref<8x64xf32, strided<[68, 1], offset: 2>>, %y: memref<8x64xf32>,
                  %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xf32, strided<[68, 1], offset: 2>>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
func.func @bytes(%x: memref<8x64xi8>, %y: memref<8x64xi8>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xi8>) outs(%y : memref<8x64xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  }
  return
}

// -----

// Tests that a reduction along the innermost dimension (a row's sum) gets a block per
// output element: each thread sums a strided share of the row (neighbouring threads read
// neighbouring elements), the block combines the shares (gpu.all_reduce) and thread 0 adds
// the total to the output; with reassociate=false (--strict-float) the sum stays in order
// in one thread per row, and a small nest gets a block of a whole warp.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sums
// CHECK: gpu.launch blocks(%[[ROW:[^,]*]], {{.*}}) in ({{[^=]*}}= %c8{{(_[0-9]+)?}}, {{.*}}) threads(%[[T:[^,]*]], {{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}},
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %[[I:.*]] = %[[T]] to %c1000 step %c256{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %arg0[{{.*}}] : memref<8x1000xf32>
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[ACC]] fastmath<contract> : f32
// CHECK: scf.yield %[[S]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[OLD:.*]] = memref.load %arg1[{{.*}}] : memref<8xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]] fastmath<contract> : f32
// CHECK: memref.store %[[NEW]], %arg1[{{.*}}] : memref<8xf32>
// STRICT-LABEL: func.func @row_sums
// STRICT: gpu.launch {{.*}} threads({{.*}}) in ({{[^=]*}}= %c32{{(_[0-9]+)?}},
// STRICT: arith.cmpi ult, %{{.*}}, %c8
// STRICT: scf.if
// STRICT: scf.for
// STRICT: arith.addf
// STRICT-NOT: gpu.all_reduce
func.func @row_sums(%x: memref<8x1000xf32>, %y: memref<8xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a row maximum of a computed value (softmax's) gets the same block reduction,
// the body's own ops (linalg.index too) inside the strided loop, started at -inf.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[NEG]]) -> (f32) {
// CHECK: memref.load %arg0
// CHECK: arith.index_cast %[[I]]
// CHECK: arith.mulf
// CHECK: arith.maximumf %{{.*}}, %[[ACC]] : f32
// CHECK: gpu.all_reduce maximumf
func.func @row_max(%x: memref<4x128xf32>, %y: memref<4xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %m = arith.mulf %a, %jf : f32
    %t = arith.maximumf %m, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a matrix product (left to generated code: --no-kernels, or element types no
// library takes) becomes a tiled kernel: 128 x 128 output tiles where the output has 128
// rows and columns (a 2 x 2 grid for 256 x 256; 64 x 64 tiles of 4 x 4 outputs a thread
// below that: the TILED prefix of @half_product) of 256 threads, both operands staged 16
// deep through workgroup memory (A's tile transposed, its rows padded to 132), 64 outputs
// per thread (8 x 8) carried through the depth loop from the output's values with the
// next stage's 16 elements (fetched before this stage's steps), each step reading the
// thread's two groups of 4 rows of A and of columns of B as one vector each, then 64
// bodies (each element's sum in k order; their multiplications and additions flagged
// `contract`, so that the device compiler fuses them, not with contract=false), written
// out for a depth of 16 a stage; the results stored where inside the output. A product
// of another body (@max_plus) keeps its body too. Where k is not a multiple of 16
// (@max_plus: 37), its first 37 % 16 = 5 steps are those of a stage loaded at depth 0,
// written out before the loop, whose whole stages then start at depth 5 (the fetch past
// the last clamped onto the last as a whole: no element's depth is clamped); under two
// stages (@max_plus_short: 20) both are in the loop, the second's depths clamped element
// by element, each stage's steps a loop over its depth.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @product
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c2{{(_[0-9]+)?}}, {{[^=]*}}= %c2{{(_[0-9]+)?}}, {{[^=]*}}= %c1) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}}, {{.*}}) workgroup(%[[SA:.*]] : memref<16x132xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<16x128xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-64: memref.load %arg2
// CHECK-COUNT-8: memref.load %arg1
// CHECK: scf.for {{.*}} to %c8{{(_[0-9]+)?}} {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-8: memref.store {{.*}}, %[[SB]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %arg1
// CHECK-NOT: scf.for
// CHECK: vector.load %[[SA]][{{.*}}] {alignment = 16 : i64} : memref<16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %[[SA]]
// CHECK: vector.load %[[SB]][{{.*}}] {alignment = 16 : i64} : memref<16x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %[[SB]]
// CHECK-COUNT-64: arith.addf {{.*}} fastmath<contract> : f32
// CHECK-COUNT-15: vector.load %[[SB]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-COUNT-64: memref.store {{.*}}, %arg2
// CHECK-NOT: gpu.all_reduce
// CHECK-LABEL: func.func @max_plus
// CHECK: gpu.launch {{.*}} workgroup(%[[MA:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: scf.for
// CHECK: gpu.barrier
// CHECK: vector.load %[[MA]][%c0
// CHECK: arith.addf {{.*}} fastmath<contract> : f32
// CHECK-NEXT: arith.maximumf
// CHECK-COUNT-15: arith.maximumf
// CHECK-COUNT-4: vector.load %[[MA]]
// CHECK-NOT: vector.load %[[MA]]
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} to %c2{{(_[0-9]+)?}} {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: gpu.barrier
// CHECK: %[[LAST:.*]] = arith.minui %{{.*}}, %c16{{(_[0-9]+)?}} : index
// CHECK: arith.addi %[[LAST]], %c5{{(_[0-9]+)?}} : index
// CHECK-NOT: scf.for
// CHECK-COUNT-16: vector.load %[[MA]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-LABEL: func.func @max_plus_short
// CHECK: gpu.launch {{.*}} workgroup(%[[MS:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} to %c2{{(_[0-9]+)?}}
// CHECK: gpu.barrier
// CHECK: arith.minui %{{.*}}, %c19{{(_[0-9]+)?}} : index
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: vector.load %[[MS]]
// CHECK: arith.addf {{.*}} fastmath<contract> : f32
// CHECK-NEXT: arith.maximumf
// CHECK-COUNT-15: arith.maximumf
// CHECK: gpu.barrier
// NOCONTRACT-LABEL: func.func @product
// NOCONTRACT: arith.mulf
// NOCONTRACT-NOT: fastmath<contract>
// NOCONTRACT-LABEL: func.func @max_plus
// With allow-tf32 (--allow-tf32) the tensor cores take it, its operands f32 staged in
// rows padded by 4 (16 bytes), 4 steps of 8 deep per stage.
// TF32-LABEL: func.func @product
// TF32: gpu.launch {{.*}} workgroup(%[[TA:.*]] : memref<64x36xf32, #gpu.address_space<workgroup>>, %[[TB:.*]] : memref<32x68xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x72xf32, #gpu.address_space<workgroup>>)
// TF32-NOT: arith.extf
// TF32: gpu.subgroup_mma_load_matrix %[[TA]]{{.*}} {leadDimension = 36 : index} {{.*}} -> !gpu.mma_matrix<16x8xf32, "AOp">
// TF32: gpu.subgroup_mma_load_matrix %[[TB]]{{.*}} {leadDimension = 68 : index} {{.*}} -> !gpu.mma_matrix<8x16xf32, "BOp">
// TF32-COUNT-16: gpu.subgroup_mma_compute
// TF32-NOT: gpu.subgroup_mma_compute
// TF32: gpu.barrier
// TF32-NOT: arith.truncf
// TF32: memref.store {{.*}}, %arg2
func.func @product(%a: memref<256x128xf32>, %b: memref<128x256xf32>, %c: memref<256x256xf32>,
                   %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<256x128xf32>, memref<128x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %t = arith.addf %m, %z : f32
    linalg.yield %t : f32
  }
  return
}
func.func @max_plus(%a: memref<100x37xf32>, %b: memref<37x100xf32>, %c: memref<100x100xf32>,
                    %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<100x37xf32>, memref<37x100xf32>) outs(%c : memref<100x100xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.addf %x, %y : f32
    %t = arith.maximumf %m, %z : f32
    linalg.yield %t : f32
  }
  return
}
func.func @max_plus_short(%a: memref<100x20xf32>, %b: memref<20x100xf32>,
                          %c: memref<100x100xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<100x20xf32>, memref<20x100xf32>) outs(%c : memref<100x100xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.addf %x, %y : f32
    %t = arith.maximumf %m, %z : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a product of f16 sums in f32, as cuBLAS's f16 products do. On the tensor
// cores (the default): a block of 4 warps (128 threads) per 64 x 64 tile, the output's
// old values widened into a 64 x 72 f32 tile of workgroup memory (a thread's 32 of them
// in one column, rows thread / 64 + 2 q, so that its loads are one address and constant
// offsets) and loaded as four 16 x 16 accumulators per warp, A and B staged 32 deep (rows
// padded to 40 and 72) with
// the depth past k zeroed, 8 elements (16 bytes) a load and store where rows allow (A
// along its depth, B along its columns), the next stage fetched into registers (carried
// by the loop) before this stage's two wmma steps of 2 x 2 products, the accumulators
// stored back to the f32 tile, rounded to f16 once and stored where inside the output.
// Without tensor cores (tensor-cores=false): the tiled kernel and one thread per output
// (under 16 rows), the output's values widened before the depth loops, each step's
// operands widened, the sums rounded to f16 once, when stored. A product of any other
// body keeps it (@product).
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @half_product
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{[^=]*}}= %c128{{(_[0-9]+)?}}, {{.*}}) workgroup(%[[TA:.*]] : memref<64x40xf16, #gpu.address_space<workgroup>>, %[[TB:.*]] : memref<32x72xf16, #gpu.address_space<workgroup>>, %[[TC:.*]] : memref<64x72xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c64
// CHECK-NOT: arith.remui
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK-COUNT-32: memref.store %{{.*}}, %[[TC]][%{{.*}}, %[[COL]]] : memref<64x72xf32
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[TC]]{{.*}} {leadDimension = 72 : index} : memref<64x72xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<64x4096xf16>, vector<8xf16>
// CHECK: arith.select {{.*}} : vector<8xf16>
// CHECK: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<4096x64xf16>, vector<8xf16>
// CHECK: scf.for {{.*}} to %c128{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
// CHECK: vector.store {{.*}}, %[[TA]][{{.*}}] {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store {{.*}}, %[[TB]][{{.*}}] {alignment = 16 : i64} : memref<32x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK: vector.load %arg0
// CHECK: vector.load %arg1
// CHECK: gpu.subgroup_mma_load_matrix %[[TA]]{{.*}} {leadDimension = 40 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[TB]]{{.*}} {leadDimension = 72 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_store_matrix {{.*}}, %[[TC]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store {{.*}}, %arg2
// The second product has one row: no tile of 16, so one thread per output.
// CHECK: gpu.launch
// CHECK-NOT: subgroup_mma
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store {{.*}}, %arg5
// TILED-LABEL: func.func @half_product
// TILED: gpu.launch {{.*}} workgroup(%[[HA:.*]] : memref<16x68xf16, #gpu.address_space<workgroup>>, %[[HB:.*]] : memref<16x64xf16, #gpu.address_space<workgroup>>)
// TILED-COUNT-16: arith.extf {{.*}} : f16 to f32
// TILED: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f16, f16, f16, f16, f16, f16, f16, f16)
// TILED: gpu.barrier
// TILED: vector.load %[[HA]][{{.*}}] {alignment = 8 : i64} : memref<16x68xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// TILED-COUNT-4: arith.extf {{.*}} : f16 to f32
// TILED: vector.load %[[HB]][{{.*}}] {alignment = 8 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// TILED-COUNT-4: arith.extf {{.*}} : f16 to f32
// TILED-COUNT-16: arith.addf {{.*}} fastmath<contract> : f32
// TILED-NOT: arith.addf {{.*}} : f16
// TILED: gpu.barrier
// TILED: arith.truncf {{.*}} : f32 to f16
// TILED: memref.store {{.*}}, %arg2
// TILED: gpu.launch
// TILED: arith.extf {{.*}} : f16 to f32
// TILED: scf.for {{.*}} -> (f32)
// TILED: arith.mulf {{.*}} fastmath<contract> : f32
// TILED: arith.addf {{.*}} fastmath<contract> : f32
// TILED: arith.truncf {{.*}} : f32 to f16
// TILED: memref.store {{.*}}, %arg5
func.func @half_product(%a: memref<64x4096xf16>, %b: memref<4096x64xf16>, %c: memref<64x64xf16>,
                        %v: memref<1x4096xf16>, %w: memref<4096x64xf16>, %y: memref<1x64xf16>,
                        %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x4096xf16>, memref<4096x64xf16>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%v, %w : memref<1x4096xf16>, memref<4096x64xf16>) outs(%y : memref<1x64xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %q, %x : f16
    %t = arith.addf %m, %z : f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests that a mean over H and W of an NHWC image, a reduction before a parallel
// dimension, runs one thread per (n, c), the reductions inside it (not one thread per n),
// the sum carried through the loops in a register: the output loaded once before them and
// stored once after, not in every step.
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @spatial_sum
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c16{{(_[0-9]+)?}}, {{.*}}) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}},
// CHECK: arith.cmpi ult, %{{.*}}, %c4096
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[N:.*]], %[[C:.*]]] : memref<2x2048xf32>
// CHECK: %[[OUTER:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32)
// CHECK: %[[INNER:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32)
// CHECK: %[[V:.*]] = memref.load %arg0
// CHECK-NOT: memref.store
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[B]]
// CHECK: scf.yield %[[S]]
// CHECK: scf.yield %[[INNER]]
// CHECK: memref.store %[[OUTER]], %arg1[%[[N]], %[[C]]]
// CHECK-NOT: gpu.all_reduce
func.func @spatial_sum(%x: memref<2x7x7x2048xf32>, %y: memref<2x2048xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  linalg.generic {indexing_maps = [#in, #out],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x : memref<2x7x7x2048xf32>) outs(%y : memref<2x2048xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a reduction to one value runs on one block (of 64 threads for 64 values),
// that copies become kernels, and that views stay on the host.
#in = affine_map<(d0) -> (d0)>
#out = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @total
// CHECK: %[[V:.*]] = memref.subview
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %[[ONE:c1[_0-9]*]], {{[^=]*}}= %[[ONE2:c1[_0-9]*]], {{[^=]*}}= %[[ONE2]]) threads({{.*}}) in ({{[^=]*}}= %c64, {{[^=]*}}= %[[ONE2]], {{[^=]*}}= %[[ONE2]])
// CHECK: scf.for
// CHECK: gpu.all_reduce add
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: memref.load %[[V]]
// CHECK: memref.store {{.*}} : memref<8xf32>
// CHECK: gpu.terminator
func.func @total(%x: memref<64xf32>, %y: memref<f32>, %z: memref<8xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %v = memref.subview %x[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction"]}
      ins(%x : memref<64xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  memref.copy %v, %z : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
  return
}

// -----

// Tests that a loop nest a lowering wrote itself runs on one thread.
// CHECK-LABEL: func.func @hand_written
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %[[ONE:c1[_0-9]*]], {{[^=]*}}= %[[ONE]], {{[^=]*}}= %[[ONE]]) threads({{.*}}) in ({{[^=]*}}= %[[ONE]], {{[^=]*}}= %[[ONE]], {{[^=]*}}= %[[ONE]])
// CHECK-NEXT: scf.for
// CHECK: memref.store
// CHECK: gpu.terminator
func.func @hand_written(%x: memref<4xi32>, %y: memref<4xi32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xi32>
    memref.store %v, %y[%i] : memref<4xi32>
  }
  return
}

// -----

// Tests that a function on the CPU is left alone.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @on_cpu
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @on_cpu(%x: memref<4xf32>, %y: memref<4xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:CPU:0"} {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Tests that the GPU layer's transfers (a GPU partition beside CPU ones) stay host calls
// between the kernels.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @transfers
// CHECK: kiln.kernel_call "gpu_partition_recv" outs(%arg0 : memref<64xf32>) params {key = 0 : i32}
// CHECK: gpu.launch
// CHECK: kiln.kernel_call "gpu_partition_send" ins(%arg1 : memref<64xf32>) params {key = 1 : i32}
func.func @transfers(%x: memref<64xf32>, %y: memref<64xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  kiln.kernel_call "gpu_partition_recv" outs(%x : memref<64xf32>) params {key = 0 : i32}
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  kiln.kernel_call "gpu_partition_send" ins(%y : memref<64xf32>) params {key = 1 : i32}
  return
}

// -----

// Tests that a copy inside a loop a lowering wrote (a TensorList scatter: rows copied to
// where an index says) becomes loops inside that loop's one-thread kernel.
// CHECK-LABEL: func.func @scatter_rows
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: memref.load %arg1
// CHECK: memref.subview
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
func.func @scatter_rows(%x: memref<6x3xf32>, %i: memref<6xi32>, %y: memref<6x3xf32>,
                        %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %r = %c0 to %c6 step %c1 {
    %v = memref.load %i[%r] : memref<6xi32>
    %to = arith.index_cast %v : i32 to index
    %src = memref.subview %x[%r, 0] [1, 3] [1, 1] : memref<6x3xf32> to memref<1x3xf32, strided<[3, 1], offset: ?>>
    %dst = memref.subview %y[%to, 0] [1, 3] [1, 1] : memref<6x3xf32> to memref<1x3xf32, strided<[3, 1], offset: ?>>
    memref.copy %src, %dst : memref<1x3xf32, strided<[3, 1], offset: ?>> to memref<1x3xf32, strided<[3, 1], offset: ?>>
  }
  return
}

// -----

// Tests that the fill of a reduction's output right before it (a depthwise convolution's
// zeros) becomes the value its loops start from: one kernel, no fill kernel before it,
// the output stored once. A block reduction (row sums) keeps its fill: it adds its total
// to what the output holds.
#f = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4, d2)>
#o = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#rin = affine_map<(d0, d1) -> (d0, d1)>
#rout = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @filled_window
// STRICT-LABEL: func.func @filled_window
func.func @filled_window(%x: memref<6x6x8xf32>, %w: memref<3x3x8xf32>, %y: memref<4x4x8xf32>, %r: memref<64x128xf32>, %s: memref<64xf32>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %zero = arith.constant 0.0 : f32
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NOT: memref.store
  // CHECK: gpu.launch
  // CHECK-NOT: memref.load %arg2
  // CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
  // CHECK: scf.for
  // CHECK: memref.store %{{.*}}, %arg2
  // CHECK: gpu.terminator
  linalg.fill ins(%zero : f32) outs(%y : memref<4x4x8xf32>)
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%w : memref<3x3x8xf32>) outs(%y : memref<4x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = linalg.index 2 : index
    %ki = linalg.index 3 : index
    %kj = linalg.index 4 : index
    %ii = arith.addi %i, %ki : index
    %jj = arith.addi %j, %kj : index
    %v = memref.load %x[%ii, %jj, %c] : memref<6x6x8xf32>
    %m = arith.mulf %v, %in : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  // The row sums: the fill's kernel, then the block reduction's.
  // CHECK: gpu.launch
  // CHECK: gpu.launch
  // CHECK: gpu.all_reduce
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  linalg.generic {indexing_maps = [#rin, #rout], iterator_types = ["parallel", "reduction"]}
      ins(%r : memref<64x128xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = arith.addf %in, %o : f32
    linalg.yield %a : f32
  }
  return
}
