// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// Tests that a SAME f32 Conv2D pads the input explicitly (TensorFlow puts the odd pixel
// after), copies the strided windows into patches [N*OH*OW, KH*KW*C] and multiplies them
// by the HWIO filter viewed as [KH*KW*C, F] in the matmul contraction. Each window row is
// KW*C contiguous values of an input row, so the copy reads the input as [N, H, W*C] with
// one loop over the run (stride 2 * C along W).
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 4 + d4)>
// CHECK-LABEL: func.func @conv_same
func.func @conv_same(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 1, 1, 0]
  // CHECK: %[[ROWS:.*]] = tensor.expand_shape {{.*}} into tensor<1x9x18xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[WIN]], {{.*}}]{{.*}} ins(%[[ROWS]] : tensor<1x9x18xf32>) outs({{.*}} : tensor<1x4x4x3x6xf32>)
  // CHECK: tensor.expand_shape {{.*}} : tensor<288xf32> into tensor<16x18xf32>
  // CHECK: tensor.expand_shape {{.*}} : tensor<72xf32> into tensor<18x4xf32>
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-SAME: ins({{.*}} : tensor<16x18xf32>, tensor<18x4xf32>)
  // CHECK: arith.mulf
  // CHECK: arith.addf
  // CHECK: tensor.expand_shape {{.*}} into tensor<1x4x4x4xf32>
  // CHECK-NOT: linalg.conv_2d_nhwc_hwcf
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that a 1x1 f32 Conv2D with unit strides multiplies a view of the input itself
// (no window copy).
// CHECK-LABEL: func.func @conv_pointwise
func.func @conv_pointwise(%x: tensor<2x5x5x3xf32>, %w: tensor<1x1x3x8xf32>) -> tensor<2x5x5x8xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0
  // CHECK: %[[X:.*]] = tensor.expand_shape %[[FLAT]] {{.*}} into tensor<50x3xf32>
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-SAME: ins(%[[X]], {{.*}} : tensor<50x3xf32>, tensor<3x8xf32>)
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<2x5x5x3xf32>, tensor<1x1x3x8xf32>) -> tensor<2x5x5x8xf32>
  return %0 : tensor<2x5x5x8xf32>
}

// -----

// Tests that a Conv2D of another float type stays linalg.conv_2d_nhwc_hwcf with the
// strides and dilations.
// CHECK-LABEL: func.func @conv_f64
func.func @conv_f64(%x: tensor<1x8x8x2xf64>, %w: tensor<3x3x2x4xf64>) -> tensor<1x2x2x4xf64> {
  // CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
  // CHECK-SAME: ins(%arg0, %arg1 : tensor<1x8x8x2xf64>, tensor<3x3x2x4xf64>)
  %0 = "tf.Conv2D"(%x, %w) {padding = "VALID", strides = [1, 2, 2, 1], dilations = [1, 2, 2, 1]} : (tensor<1x8x8x2xf64>, tensor<3x3x2x4xf64>) -> tensor<1x2x2x4xf64>
  return %0 : tensor<1x2x2x4xf64>
}

// -----

// Tests that an NCHW Conv2D is computed in NHWC between two transposes.
// CHECK-LABEL: func.func @conv_nchw
func.func @conv_nchw(%x: tensor<1x2x5x5xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: linalg.transpose ins(%arg0 : tensor<1x2x5x5xf32>) {{.*}} permutation = [0, 2, 3, 1]
  // CHECK: iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
  %0 = "tf.Conv2D"(%x, %w) {padding = "VALID", strides = [1, 1, 1, 1], data_format = "NCHW"} : (tensor<1x2x5x5xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// Tests that an f32 3x3 Conv2D with unit strides, 16+ channels each way and 64+ output
// pixels is one generic over (n, oh, ow, kh, kw, c, f) reading the unpadded input (zero
// outside it), marked kiln.conv2d_3x3 = [pad top, pad left] for the Winograd kernel; with
// fewer channels or pixels it stays patches times filter.
// CHECK-DAG: #[[WF:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[WOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv3x3_wide
func.func @conv3x3_wide(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %v: tensor<3x3x16x8xf32>, %s: tensor<1x7x7x16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x8x8x8xf32>, tensor<1x7x7x16xf32>) {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[WF]], #[[WOUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
  // CHECK-SAME: ins(%arg1 : tensor<3x3x16x16xf32>) outs({{.*}} : tensor<1x8x8x16xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>}
  // CHECK: tensor.extract %arg0
  // CHECK: tensor.pad
  // CHECK-NOT: kiln.conv2d_3x3
  // CHECK: tensor.pad
  // CHECK-NOT: kiln.conv2d_3x3
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  %1 = "tf.Conv2D"(%x, %v) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x16xf32>, tensor<3x3x16x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = "tf.Conv2D"(%s, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x7x7x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x7x7x16xf32>
  return %0, %1, %2 : tensor<1x8x8x16xf32>, tensor<1x8x8x8xf32>, tensor<1x7x7x16xf32>
}

// -----

// Tests that an f32 Conv2D whose window depth (kh * kw * c) is 64 or less and with 8+ output
// channels is one generic over the unpadded input marked kiln.conv2d_direct = [strides,
// dilations, pads before] for the direct kernel; a deeper window, a 1x1 window or fewer
// output channels stay patches times filter (or the input times the filter).
// CHECK-LABEL: func.func @conv_direct
func.func @conv_direct(%x: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %d: tensor<3x3x8x8xf32>, %n: tensor<3x3x3x4xf32>, %p: tensor<1x1x3x8xf32>) -> (tensor<1x5x5x8xf32>, tensor<1x9x9x8xf32>, tensor<1x9x9x4xf32>, tensor<1x9x9x8xf32>) {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%arg1 : tensor<3x3x3x8xf32>) outs({{.*}} : tensor<1x5x5x8xf32>) attrs = {kiln.conv2d_direct = array<i64: 2, 2, 1, 1, 1, 1>}
  // CHECK: tensor.extract %arg0
  // CHECK: tensor.pad
  // CHECK-NOT: kiln.conv2d_direct
  // CHECK: tensor.pad
  // CHECK-NOT: kiln.conv2d_direct
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x5x5x8xf32>
  %y = "tf.Conv2D"(%x, %p) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x9x9x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x9x9x8xf32>
  %1 = "tf.Conv2D"(%y, %d) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x9x9x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x9x9x8xf32>
  %2 = "tf.Conv2D"(%x, %n) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x9x9x4xf32>
  return %0, %1, %2, %y : tensor<1x5x5x8xf32>, tensor<1x9x9x8xf32>, tensor<1x9x9x4xf32>, tensor<1x9x9x8xf32>
}

// -----

// Tests that an f32 depthwise convolution is one generic over (n, oh, ow, kh, kw, c, m),
// channels innermost, reading the unpadded input at (n, 2 * oh + kh - 1, 2 * ow + kw - 1, c)
// and zero outside it, marked kiln.depthwise = [strides, dilations, pads before] for the
// kernel call; its [N, OH, OW, C, M] result is collapsed to C * M channels.
// CHECK-DAG: #[[F:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>
// CHECK-LABEL: func.func @depthwise
func.func @depthwise(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x2xf32>) -> tensor<1x3x3x6xf32> {
  // CHECK: linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[F]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
  // CHECK-SAME: ins(%arg1 : tensor<3x3x3x2xf32>) outs({{.*}} : tensor<1x3x3x3x2xf32>) attrs = {kiln.depthwise = array<i64: 2, 2, 1, 1, 1, 1>}
  // CHECK: arith.subi
  // CHECK: arith.cmpi ult, %{{.*}}, %c5
  // CHECK: %[[V:.*]] = tensor.extract %arg0
  // CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
  // CHECK: tensor.collapse_shape
  // CHECK: tensor.expand_shape {{.*}} into tensor<1x3x3x6xf32>
  %0 = "tf.DepthwiseConv2dNative"(%x, %w) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x3x3x6xf32>
  return %0 : tensor<1x3x3x6xf32>
}

// -----

// Tests that other float types pad the input and read it through the window map.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-DAG: #[[F:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5, d6)>
// CHECK-LABEL: func.func @depthwise_f64
func.func @depthwise_f64(%x: tensor<1x4x4x3xf64>, %w: tensor<3x3x3x2xf64>) -> tensor<1x4x4x6xf64> {
  // CHECK: tensor.pad
  // CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[F]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
  // CHECK-SAME: outs({{.*}} : tensor<1x4x4x3x2xf64>)
  // CHECK-NOT: kiln.depthwise
  %0 = "tf.DepthwiseConv2dNative"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x4x4x3xf64>, tensor<3x3x3x2xf64>) -> tensor<1x4x4x6xf64>
  return %0 : tensor<1x4x4x6xf64>
}

// -----

// Tests that an f32 MaxPool reads the unpadded input in one generic over (n, oh, ow, kh, kw,
// c), marked for kiln-lower-kernel-calls with [window, strides, pads], and takes the maximum
// as TensorFlow does: from the lowest float (also the value outside the input), replaced by
// each greater value, so NaNs are passed over.
// CHECK-LABEL: func.func @maxpool
func.func @maxpool(%x: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {
  // CHECK: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%[[LOWEST]] : f32)
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
  // CHECK-SAME: outs(%[[INIT]] : tensor<1x3x3x2xf32>) attrs = {kiln.max_pool = array<i64: 3, 3, 2, 2, 1, 1>}
  // CHECK: ^bb0(%{{.*}}: f32, %[[ACC:.*]]: f32):
  // CHECK: %[[IN:.*]] = tensor.extract %arg0
  // CHECK: %[[V:.*]] = arith.select %{{.*}}, %[[IN]], %[[LOWEST]] : f32
  // CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[ACC]] : f32
  // CHECK: arith.select %[[GT]], %[[V]], %[[ACC]] : f32
  %0 = "tf.MaxPool"(%x) {ksize = [1, 3, 3, 1], padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// Tests that an f64 MaxPool takes the same generic, without the kernel marker.
// CHECK-LABEL: func.func @maxpool_f64
func.func @maxpool_f64(%x: tensor<1x4x4x2xf64>) -> tensor<1x2x2x2xf64> {
  // CHECK: arith.constant -1.7976931348623157E+308 : f64
  // CHECK: linalg.generic
  // CHECK-NOT: kiln.max_pool
  // CHECK: arith.cmpf ogt
  %0 = "tf.MaxPool"(%x) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1]} : (tensor<1x4x4x2xf64>) -> tensor<1x2x2x2xf64>
  return %0 : tensor<1x2x2x2xf64>
}

// -----

// Tests that an integer MaxPool pads with the type's minimum and uses
// linalg.pooling_nhwc_max.
// CHECK-LABEL: func.func @maxpool_i32
func.func @maxpool_i32(%x: tensor<1x5x5x2xi32>) -> tensor<1x3x3x2xi32> {
  // CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
  // CHECK: tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
  // CHECK: tensor.yield %[[MIN]]
  // CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
  %0 = "tf.MaxPool"(%x) {ksize = [1, 3, 3, 1], padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<1x5x5x2xi32>) -> tensor<1x3x3x2xi32>
  return %0 : tensor<1x3x3x2xi32>
}

// -----

// Tests that a SAME AvgPool divides each position by the number of elements inside the input
// (4 in a corner, 6 on an edge, 9 in the middle).
// CHECK-LABEL: func.func @avgpool
func.func @avgpool(%x: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  // CHECK: linalg.pooling_nhwc_sum
  // CHECK: arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
  // CHECK: arith.divf
  %0 = "tf.AvgPool"(%x) {ksize = [1, 3, 3, 1], padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %0 : tensor<1x3x3x1xf32>
}

// -----

// Tests inference batch normalisation: one generic reading the statistics per channel; the
// batch statistics outputs are the given mean and variance.
// CHECK-LABEL: func.func @batchnorm
func.func @batchnorm(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>) {
  // CHECK: linalg.generic
  // CHECK: arith.addf
  // CHECK: math.sqrt
  // CHECK: arith.divf
  // CHECK: return %{{.*}}, %arg3
  %y, %bm, %bv, %r1, %r2, %r3 = "tf.FusedBatchNormV3"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, is_training = false} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %bm : tensor<1x2x2x3xf32>, tensor<3xf32>
}

// -----

// Tests that a Mean with keep_dims reduces, divides by the count and reshapes.
// CHECK-LABEL: func.func @mean
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
  // CHECK: arith.addf
  // CHECK: %[[N:.*]] = arith.constant 1.200000e+01 : f32
  // CHECK: arith.divf %{{.*}}, %[[N]]
  // CHECK: tensor.expand_shape {{.*}} into tensor<2x1x1xf32>
  %a = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Mean"(%x, %a) {keep_dims = true} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Tests ArgMax: a reduction carrying the best value and its index, a strict comparison so
// the first index wins.
// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.cmpf ogt
  // CHECK: linalg.index 1
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ArgMax"(%x, %d) : (tensor<2x5xf32>, tensor<i32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
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

// Tests comparisons (NotEqual is unordered: true for NaN), SelectV2 and LogicalNot.
// CHECK-LABEL: func.func @logic
func.func @logic(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xf32>) {
  // CHECK: arith.cmpf une
  // CHECK: arith.xori
  // CHECK: arith.select
  %0 = "tf.NotEqual"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "tf.LogicalNot"(%0) : (tensor<4xi1>) -> tensor<4xi1>
  %2 = "tf.SelectV2"(%1, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xi1>, tensor<4xf32>
}

// -----

// Tests that FloorMod on integers fixes the sign of the remainder to the divisor's and
// guards a zero divisor.
// CHECK-LABEL: func.func @floormod
func.func @floormod(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: arith.remsi
  // CHECK: arith.xori
  // CHECK: arith.addi
  // CHECK: arith.select
  %0 = "tf.FloorMod"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
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

// Tests BatchMatMulV2: a contraction whose batch maps broadcast ([2,1] with [3]) and whose
// adj_y reads y as (n, k).
// Loops are (batch0, batch1, m, k, n).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[Z:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%x: tensor<2x1x3x4xf32>, %y: tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[X]], #[[Y]], #[[Z]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
  %0 = "tf.BatchMatMulV2"(%x, %y) {adj_y = true} : (tensor<2x1x3x4xf32>, tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32>
  return %0 : tensor<2x3x3x5xf32>
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

// Tests that resizes read compile-time coordinate tables: nearest indices [0, 0, 1, 1] for
// 2 -> 4 pixels, and bilinear lower/upper/weight tables with a lerp in f32.
// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x2x2x1xf32>) -> (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) {
  // CHECK-DAG: arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
  // CHECK-DAG: arith.constant dense<[0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01]> : tensor<4xf32>
  // CHECK: arith.subf
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %s = "tf.Const"() {value = dense<4> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeNearestNeighbor"(%x, %s) : (tensor<1x2x2x1xf32>, tensor<2xi32>) -> tensor<1x4x4x1xf32>
  %1 = "tf.ResizeBilinear"(%x, %s) : (tensor<1x2x2x1xf32>, tensor<2xi32>) -> tensor<1x4x4x1xf32>
  return %0, %1 : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>
}

// -----

// Tests that _FusedConv2D lowers as its parts: the patches x filter contraction, then the
// BiasAdd and the Relu6 as elementwise generics (kiln-lower-fuse-elementwise merges them
// later).
// CHECK-LABEL: func.func @fused_conv
func.func @fused_conv(%x: tensor<1x5x5x3xf32>, %w: tensor<1x1x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x5x5x4xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK: linalg.generic {{.*}} ins({{.*}}, %arg2 : tensor<1x5x5x4xf32>, tensor<4xf32>)
  // CHECK: arith.addf
  // CHECK: linalg.generic
  // CHECK: arith.maximumf
  // CHECK: arith.minimumf
  %0 = "tf._FusedConv2D"(%x, %w, %b) {fused_ops = ["BiasAdd", "Relu6"], num_args = 1 : i64, padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x5x5x3xf32>, tensor<1x1x3x4xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  return %0 : tensor<1x5x5x4xf32>
}

// -----

// Tests that _FusedMatMul with LeakyRelu uses leakyrelu_alpha.
// CHECK-LABEL: func.func @fused_matmul
func.func @fused_matmul(%a: tensor<3x4xf32>, %w: tensor<4x2xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK: arith.addf
  // CHECK: %[[ALPHA:.*]] = arith.constant 3.000000e-01 : f32
  // CHECK: arith.mulf {{.*}}, %[[ALPHA]]
  %0 = "tf._FusedMatMul"(%a, %w, %b) {fused_ops = ["BiasAdd", "LeakyRelu"], leakyrelu_alpha = 0.3 : f32, num_args = 1 : i64} : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests TopKV2 as selection loops: per row (outer loop) and rank (middle loop), one scan of
// the row (inner loop) keeps the first element, in the order "larger, or equal and earlier,
// with NaN above every number", that comes after the previous rank's element.
// CHECK-LABEL: func.func @topk
func.func @topk(%t: tensor<2x9xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  // CHECK: scf.for %[[R:.*]] = %c0 to %c2 step %c1 iter_args
  // CHECK: scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args
  // CHECK: scf.for %[[I:.*]] = %c0 to %c9 step %c1 iter_args({{.*}}) -> (f32, index)
  // CHECK: tensor.extract %arg0[%[[R]], %[[I]]]
  // CHECK: arith.cmpf uno
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf oeq
  // CHECK: arith.cmpi slt
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[J]]] : tensor<2x3xf32>
  // CHECK: arith.index_cast {{.*}} : index to i32
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[J]]] : tensor<2x3xi32>
  %k = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.TopKV2"(%t, %k) : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// Tests Conv2DBackpropInput as a stride-1 Conv2D: the gradient is inserted with the forward
// strides into a zero tensor padded by (window - 1 - forward padding) before, and the
// filter is turned by 180 degrees with its channel dimensions swapped.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (-d0 + 2, -d1 + 2, d3, d2)>
// CHECK-LABEL: func.func @conv_backprop_input
func.func @conv_backprop_input(%f: tensor<3x3x2x4xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32> {
  // CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x10x9x4xf32>
  // CHECK: %[[SPREAD:.*]] = tensor.insert_slice %arg1 into %[[ZERO]][0, 2, 1, 0] [1, 4, 4, 4] [1, 2, 2, 1]
  // CHECK: linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]} ins(%arg0 : tensor<3x3x2x4xf32>) outs(%{{.*}} : tensor<3x3x4x2xf32>)
  // CHECK: tensor.collapse_shape %[[SPREAD]]
  // CHECK: %[[ROWS:.*]] = tensor.expand_shape {{.*}} into tensor<1x10x36xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[ROWS]] : tensor<1x10x36xf32>) outs(%{{.*}} : tensor<1x8x7x3x12xf32>)
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<56x2xf32>)
  %s = "tf.Const"() {value = dense<[1, 8, 7, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Conv2DBackpropInput"(%s, %f, %dy) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32>
  return %0 : tensor<1x8x7x2xf32>
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
