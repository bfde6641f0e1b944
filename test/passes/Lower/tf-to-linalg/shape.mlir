// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Shape.cpp.

// Tests that a Range left to run time (too large to fold) is start + T(i) * delta per
// element, multiplied and added in the element type, and on integers in integer arithmetic.
// CHECK-LABEL: func.func @range
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[X:.*]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[M]] : f32
// CHECK: linalg.generic
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.muli
// CHECK: arith.addi
func.func @range(%s: tensor<f32>, %d: tensor<f32>, %si: tensor<i64>, %di: tensor<i64>)
    -> (tensor<2000000xf32>, tensor<2000000xi64>) {
  %l = "tf.Const"() {value = dense<3.0e6> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Range"(%s, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2000000xf32>
  %li = "tf.Const"() {value = dense<3000000> : tensor<i64>} : () -> tensor<i64>
  %1 = "tf.Range"(%si, %li, %di) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2000000xi64>
  return %0, %1 : tensor<2000000xf32>, tensor<2000000xi64>
}

// -----

// Tests Transpose, PadV2 with its scalar and Squeeze.
// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<2x1x3xf32>, %c: tensor<f32>) -> (tensor<3x2x1xf32>, tensor<4x1x4xf32>, tensor<2x3xf32>) {
  // CHECK: linalg.transpose {{.*}} permutation = [2, 0, 1]
  // CHECK: %[[V:.*]] = tensor.extract %arg1[]
  // CHECK: tensor.pad %arg0 low[1, 0, 0] high[1, 0, 1]
  // CHECK: tensor.yield %[[V]]
  // CHECK: tensor.collapse_shape
  %p = "tf.Const"() {value = dense<[2, 0, 1]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "tf.Transpose"(%x, %p) : (tensor<2x1x3xf32>, tensor<3xi32>) -> tensor<3x2x1xf32>
  %pads = "tf.Const"() {value = dense<[[1, 1], [0, 0], [0, 1]]> : tensor<3x2xi32>} : () -> tensor<3x2xi32>
  %1 = "tf.PadV2"(%x, %pads, %c) : (tensor<2x1x3xf32>, tensor<3x2xi32>, tensor<f32>) -> tensor<4x1x4xf32>
  %2 = "tf.Squeeze"(%x) : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<3x2x1xf32>, tensor<4x1x4xf32>, tensor<2x3xf32>
}

// -----

// Tests ConcatV2 (slices inserted at running offsets), Pack (each value reshaped to a
// slice of size 1) and AddN (one elementwise sum), with a control input dropped.
// CHECK-LABEL: func.func @lists
func.func @lists(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x3xf32>) {
  // CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 3] [1, 1]
  // CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 3] [2, 1] [1, 1]
  // CHECK: tensor.insert_slice %{{.*}}[0, 1, 0] [2, 1, 3] [1, 1, 1]
  // CHECK: linalg.generic
  // CHECK: arith.addf
  // CHECK: arith.addf
  %axis = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ConcatV2"(%a, %b, %axis) {N = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<i32>) -> tensor<2x4xf32>
  %1 = "tf.Pack"(%a, %a) {N = 2 : i64, axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
  %n = "tf.NoOp"() : () -> !tf.control
  %2 = "tf.AddN"(%a, %a, %a, %n) {N = 3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, !tf.control) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests that StridedSlice becomes a gather over the result: a negative stride gives a
// negative multiplier, a shrunk dimension a fixed index.
// CHECK-LABEL: func.func @strided_slice
func.func @strided_slice(%x: tensor<4x5xf32>) -> tensor<3xf32> {
  // CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<3xf32>)
  // CHECK-DAG: %[[ROW:.*]] = arith.constant 2 : index
  // CHECK-DAG: %[[I:.*]] = linalg.index 0 : index
  // CHECK-DAG: %[[MINUS:.*]] = arith.constant -2 : index
  // CHECK: %[[S:.*]] = arith.muli %[[I]], %[[MINUS]]
  // CHECK: %[[C:.*]] = arith.addi %[[S]], %{{.*}}
  // CHECK: tensor.extract %arg0[%[[ROW]], %[[C]]]
  %b = "tf.Const"() {value = dense<[2, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {value = dense<[3, -6]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[1, -2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.StridedSlice"(%x, %b, %e, %s) {shrink_axis_mask = 1 : i64} : (tensor<4x5xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests GatherV2 (an index read from `indices`, range-checked, then a read of `params`),
// Tile (indices modulo the input size) and Fill.
// CHECK-LABEL: func.func @gather_tile_fill
func.func @gather_tile_fill(%p: tensor<5x3xf32>, %i: tensor<4xi32>, %v: tensor<f32>) -> (tensor<4x3xf32>, tensor<10x3xf32>, tensor<2x2xf32>) {
  // CHECK: %[[RAW:.*]] = tensor.extract %arg1
  // CHECK: %[[IDX:.*]] = arith.index_cast %[[RAW]]
  // CHECK: arith.cmpi ult, %[[IDX]]
  // CHECK: tensor.extract %arg0
  // CHECK: arith.remui
  // CHECK: %[[V:.*]] = tensor.extract %arg2[]
  // CHECK: linalg.fill ins(%[[V]] : f32)
  %a = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.GatherV2"(%p, %i, %a) : (tensor<5x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<4x3xf32>
  %m = "tf.Const"() {value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %1 = "tf.Tile"(%p, %m) : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<10x3xf32>
  %d = "tf.Const"() {value = dense<2> : tensor<2xi32>} : () -> tensor<2xi32>
  %2 = "tf.Fill"(%d, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<10x3xf32>, tensor<2x2xf32>
}

// -----

// Tests that Split, SplitV and Unpack become static slices (Unpack's then reshaped).
// CHECK-LABEL: func.func @split
func.func @split(%x: tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>, tensor<6xf32>) {
  // CHECK: tensor.extract_slice %arg0[0, 0] [4, 2] [1, 1]
  // CHECK: tensor.extract_slice %arg0[0, 2] [4, 2] [1, 1]
  // CHECK: tensor.extract_slice %arg0[0, 4] [4, 2] [1, 1]
  // CHECK: tensor.extract_slice %arg0[0, 1] [4, 3] [1, 1]
  // CHECK: tensor.extract_slice %arg0[3, 0] [1, 6] [1, 1]
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %s:3 = "tf.Split"(%d, %x) {num_split = 3 : i64} : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
  %sizes = "tf.Const"() {value = dense<[1, 3, -1]> : tensor<3xi32>} : () -> tensor<3xi32>
  %v:3 = "tf.SplitV"(%x, %sizes, %d) {num_split = 3 : i64} : (tensor<4x6xf32>, tensor<3xi32>, tensor<i32>) -> (tensor<4x1xf32>, tensor<4x3xf32>, tensor<4x2xf32>)
  %u:4 = "tf.Unpack"(%x) {num = 4 : i64} : (tensor<4x6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %s#1, %v#1, %u#3 : tensor<4x2xf32>, tensor<4x3xf32>, tensor<6xf32>
}

// -----

// Tests DepthToSpace, MirrorPad and OneHot as gathers from computed indices.
// CHECK-LABEL: func.func @rearrange
func.func @rearrange(%x: tensor<1x2x2x4xf32>, %y: tensor<3xf32>, %i: tensor<2xi32>, %on: tensor<f32>, %off: tensor<f32>) -> (tensor<1x4x4x1xf32>, tensor<6xf32>, tensor<2x3xf32>) {
  // CHECK-DAG: arith.divui
  // CHECK-DAG: arith.remui
  // CHECK: tensor.extract %arg0
  // CHECK: arith.cmpi slt
  // CHECK: arith.cmpi sge
  // CHECK: tensor.extract %arg1
  // CHECK: arith.cmpi eq
  // CHECK: arith.select
  %0 = "tf.DepthToSpace"(%x) {block_size = 2 : i64} : (tensor<1x2x2x4xf32>) -> tensor<1x4x4x1xf32>
  %p = "tf.Const"() {value = dense<[[2, 1]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %1 = "tf.MirrorPad"(%y, %p) {mode = "REFLECT"} : (tensor<3xf32>, tensor<1x2xi32>) -> tensor<6xf32>
  %d = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %2 = "tf.OneHot"(%i, %d, %on, %off) : (tensor<2xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<1x4x4x1xf32>, tensor<6xf32>, tensor<2x3xf32>
}

// -----

// Tests GatherNd (each entry of the index tuple range-checked, zero when any is out of
// range) and IdentityN (its inputs, unchanged).
// CHECK-LABEL: func.func @gathernd_identityn
func.func @gathernd_identityn(%p: tensor<5x3x2xf32>, %i: tensor<4x2xi32>, %x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4x2xf32>, tensor<4xf32>, tensor<i32>) {
  // CHECK: %[[ROW:.*]] = linalg.index 0
  // CHECK: tensor.extract %arg1[%[[ROW]], %{{.*}}]
  // CHECK: %[[OK0:.*]] = arith.cmpi ult, %{{.*}}, %c5
  // CHECK: %[[I0:.*]] = arith.select %[[OK0]]
  // CHECK: %[[OK1:.*]] = arith.cmpi ult, %{{.*}}, %c3
  // CHECK: %[[ALL:.*]] = arith.andi %{{.*}}, %[[OK1]]
  // CHECK: %[[I1:.*]] = arith.select %[[OK1]]
  // CHECK: %[[COL:.*]] = linalg.index 1
  // CHECK: %[[V:.*]] = tensor.extract %arg0[%[[I0]], %[[I1]], %[[COL]]]
  // CHECK: arith.select %[[ALL]], %[[V]]
  // CHECK: return %{{.*}}, %arg2, %arg3
  %1 = "tf.GatherNd"(%p, %i) : (tensor<5x3x2xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %0:2 = "tf.IdentityN"(%x, %n) {T = [f32, i32]} : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  return %1, %0#0, %0#1 : tensor<4x2xf32>, tensor<4xf32>, tensor<i32>
}

// -----

// Tests ExpandDims as a reshape, Slice as a generic reading the input at begin + index, and
// Pad as tensor.pad with zeros and the paddings as low and high amounts.
// CHECK-LABEL: func.func @expand_slice_pad
func.func @expand_slice_pad(%x: tensor<2x3xf32>) -> (tensor<2x1x3xf32>, tensor<1x2xf32>, tensor<4x5xf32>) {
  // CHECK: tensor.expand_shape {{.*}} output_shape [2, 1, 3] : tensor<6xf32> into tensor<2x1x3xf32>
  // CHECK: linalg.generic {{.*}}outs({{.*}} : tensor<1x2xf32>)
  // CHECK: %[[ROW:.*]] = linalg.index 0
  // CHECK: %[[COL:.*]] = linalg.index 1
  // CHECK: %[[R1:.*]] = arith.addi {{.*}}, %c1{{.*}} : index
  // CHECK: %[[C0:.*]] = arith.addi {{.*}}, %c0{{.*}} : index
  // CHECK: tensor.extract %arg0[%[[R1]], %[[C0]]]
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: tensor.pad %arg0 low[1, 0] high[1, 2]
  // CHECK: tensor.yield %[[ZERO]]
  %a = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ExpandDims"(%x, %a) : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x1x3xf32>
  %b = "tf.Const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %1 = "tf.Slice"(%x, %b, %s) : (tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x2xf32>
  %p = "tf.Const"() {value = dense<[[1, 1], [0, 2]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %2 = "tf.Pad"(%x, %p) : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<4x5xf32>
  return %0, %1, %2 : tensor<2x1x3xf32>, tensor<1x2xf32>, tensor<4x5xf32>
}

// -----

// Tests that Shape, Rank and Size of static tensors lower to constants, SpaceToDepth reads
// input[b, h * 2 + dy, w * 2 + dx, c] for output channel (dy * 2 + dx) * 8 + c, and
// PlaceholderWithDefault without a feed is its default.
// CHECK-LABEL: func.func @queries
func.func @queries(%x: tensor<2x4x4x8xf32>, %d: tensor<2xf32>)
    -> (tensor<4xi32>, tensor<i32>, tensor<i64>, tensor<2x2x2x32xf32>, tensor<2xf32>) {
  // CHECK-DAG: %[[SHAPE:.*]] = arith.constant dense<[2, 4, 4, 8]> : tensor<4xi32>
  // CHECK-DAG: %[[RANK:.*]] = arith.constant dense<4> : tensor<i32>
  // CHECK-DAG: %[[SIZE:.*]] = arith.constant dense<256> : tensor<i64>
  // CHECK: %[[B:.*]] = linalg.index 0
  // CHECK: %[[H:.*]] = linalg.index 1
  // CHECK: %[[W:.*]] = linalg.index 2
  // CHECK: %[[C:.*]] = linalg.index 3
  // CHECK: %[[CIN:.*]] = arith.remui %[[C]], %c8
  // CHECK: %[[BLOCK:.*]] = arith.divui %[[C]], %c8
  // CHECK: %[[DY:.*]] = arith.divui %[[BLOCK]], %c2
  // CHECK: %[[H2:.*]] = arith.muli %[[H]], %c2
  // CHECK: %[[ROW:.*]] = arith.addi %[[H2]], %[[DY]]
  // CHECK: %[[DX:.*]] = arith.remui %[[BLOCK]], %c2
  // CHECK: %[[W2:.*]] = arith.muli %[[W]], %c2
  // CHECK: %[[COL:.*]] = arith.addi %[[W2]], %[[DX]]
  // CHECK: tensor.extract %arg0[%[[B]], %[[ROW]], %[[COL]], %[[CIN]]]
  // CHECK: return %[[SHAPE]], %[[RANK]], %[[SIZE]], %{{.*}}, %arg1
  %0 = "tf.Shape"(%x) : (tensor<2x4x4x8xf32>) -> tensor<4xi32>
  %1 = "tf.Rank"(%x) : (tensor<2x4x4x8xf32>) -> tensor<i32>
  %2 = "tf.Size"(%x) {out_type = i64} : (tensor<2x4x4x8xf32>) -> tensor<i64>
  %3 = "tf.SpaceToDepth"(%x) {block_size = 2 : i64} : (tensor<2x4x4x8xf32>) -> tensor<2x2x2x32xf32>
  %4 = "tf.PlaceholderWithDefault"(%d) {dtype = f32, shape = #tf.shape<2>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4
      : tensor<4xi32>, tensor<i32>, tensor<i64>, tensor<2x2x2x32xf32>, tensor<2xf32>
}

// -----

// Tests that ReverseV2 reads index d - 1 - i along each reversed axis (here axis -1 of 2).
// CHECK-LABEL: func.func @reverse
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[R:.*]] = arith.subi %c2{{.*}}, %[[J]] : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[R]]] : tensor<4x3xf32>
func.func @reverse(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %a = "tf.Const"() {value = dense<-1> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.ReverseV2"(%x, %a) : (tensor<4x3xf32>, tensor<1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests BroadcastTo: one generic reading the input through NumPy's broadcasting map (its
// size-1 dimension and the missing leading one repeat).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_to
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]]
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: linalg.yield %in : f32
func.func @broadcast_to(%x: tensor<1x3xf32>) -> tensor<2x4x3xf32> {
  %s = "tf.Const"() {dtype = i32, value = dense<[2, 4, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "tf.BroadcastTo"(%x, %s) : (tensor<1x3xf32>, tensor<3xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Tests MatrixBandPart: the bounds read in the loop (a GPU kernel reads them there) and
// widened to i64; each element kept where (lower < 0 or m - n <= lower) and (upper < 0 or
// n - m <= upper), with m and n the last two loop indices.
// CHECK-LABEL: func.func @matrix_band_part
// CHECK: linalg.generic
// CHECK: %[[L:.*]] = tensor.extract %arg1[] : tensor<i32>
// CHECK: %[[LOWER:.*]] = arith.extsi %[[L]] : i32 to i64
// CHECK: %[[M:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = linalg.index 2 : index
// CHECK: %[[MN:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sle, %[[MN]], %[[LOWER]] : i64
// CHECK: %[[KEEP:.*]] = arith.andi
// CHECK: arith.select %[[KEEP]], %in, %{{.*}} : f32
func.func @matrix_band_part(%x: tensor<2x4x5xf32>, %l: tensor<i32>, %u: tensor<i32>)
    -> tensor<2x4x5xf32> {
  %0 = "tf.MatrixBandPart"(%x, %l, %u)
      : (tensor<2x4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// Tests InvertPermutation: a loop writing y[x[i]] = i into zeros, an entry outside [0, n)
// changing nothing (the run-time check reports it).
// CHECK-LABEL: func.func @invert_permutation
// CHECK: scf.for %[[I:[^ ]*]] = %{{.*}} to %[[N:[^ ]*]] step
// CHECK: %[[T:.*]] = tensor.extract %arg0[%[[I]]] : tensor<5xi32>
// CHECK: %[[AT:.*]] = arith.index_cast %[[T]] : i32 to index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AT]], %[[N]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[AT]], %{{.*}} : index
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%[[SAFE]]] : tensor<5xi32>
func.func @invert_permutation(%x: tensor<5xi32>) -> tensor<5xi32> {
  %0 = "tf.InvertPermutation"(%x) : (tensor<5xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// Tests LinSpace: start + i * ((stop - start) / (num - 1)), the last element stop itself.
// CHECK-LABEL: func.func @linspace
// CHECK: linalg.generic
// CHECK: %[[START:.*]] = tensor.extract %arg0[] : tensor<f32>
// CHECK: %[[STOP:.*]] = tensor.extract %arg1[] : tensor<f32>
// CHECK: %[[SPAN:.*]] = arith.subf %[[STOP]], %[[START]] : f32
// CHECK: %[[STEP:.*]] = arith.divf %[[SPAN]], %{{.*}} : f32
// CHECK: %[[V:.*]] = arith.addf %[[START]], %{{.*}} : f32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: arith.select %[[LAST]], %[[STOP]], %[[V]] : f32
func.func @linspace(%a: tensor<f32>, %b: tensor<f32>) -> tensor<5xf32> {
  %n = "tf.Const"() {dtype = i32, value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.LinSpace"(%a, %b, %n) : (tensor<f32>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests Roll: the fed shift read inside the loop (a GPU kernel reads it there); the gather
// reads index (i - shift) mod n, made non-negative, along the rolled axis.
// CHECK-LABEL: func.func @roll
// CHECK: linalg.generic
// CHECK: %[[S:.*]] = tensor.extract %arg1[] : tensor<i32>
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]] : i32 to index
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %[[SI]] : index
// CHECK: %[[R:.*]] = arith.remsi %[[D]], %{{.*}} : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : index
// CHECK: arith.select %[[NEG]], %{{.*}}, %[[R]] : index
func.func @roll(%x: tensor<3x5xf32>, %s: tensor<i32>) -> tensor<3x5xf32> {
  %a = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Roll"(%x, %s, %a) : (tensor<3x5xf32>, tensor<i32>, tensor<i32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Tests ReverseSequence: the batch entry's length clamped to [0, n]; index t reads
// len - 1 - t below it and t from it on.
// CHECK-LABEL: func.func @reverse_sequence
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[LEN:.*]] = tensor.extract %arg1[%[[B]]] : tensor<3xi64>
// CHECK: arith.maxsi
// CHECK: %[[CL:.*]] = arith.minsi
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[CL]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[CL]], %{{.*}} : index
// CHECK: %[[MIRROR:.*]] = arith.subi %[[LAST]], %{{.*}} : index
// CHECK: arith.select %[[IN]], %[[MIRROR]], %{{.*}} : index
func.func @reverse_sequence(%x: tensor<3x5xf32>, %n: tensor<3xi64>) -> tensor<3x5xf32> {
  %0 = "tf.ReverseSequence"(%x, %n) {seq_dim = 1 : i64, batch_dim = 0 : i64} : (tensor<3x5xf32>, tensor<3xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
