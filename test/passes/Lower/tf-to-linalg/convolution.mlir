// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Convolution.cpp.

// Tests that a SAME f32 Conv2D that neither the 3x3 nor the direct kernel takes (4 output
// channels) is one generic over (n, oh, ow, kh, kw, c, f) reading the unpadded input (zero
// outside it: TensorFlow puts the odd pixel after, so nothing is padded before), marked
// kiln.conv2d_gemm = [strides, dilations, pads before] for the kernel whose GEMM gathers
// the windows: no padded copy, no patches matrix.
// CHECK-DAG: #[[GF:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[GOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv_same
func.func @conv_same(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[GF]], #[[GOUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
  // CHECK-SAME: ins(%arg1 : tensor<3x3x2x4xf32>) outs({{.*}} : tensor<1x4x4x4xf32>) attrs = {kiln.conv2d_gemm = array<i64: 2, 2, 1, 1, 0, 0>}
  // CHECK: arith.cmpi ult, %{{.*}}, %c8
  // CHECK: %[[V:.*]] = tensor.extract %arg0
  // CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
  // CHECK-NOT: tensor.pad
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
  // CHECK: kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 0, 0>
  // CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
  %0 = "tf.Conv2D"(%x, %w) {padding = "VALID", strides = [1, 1, 1, 1], data_format = "NCHW"} : (tensor<1x2x5x5xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// Tests that an f32 3x3 Conv2D with unit strides, 16+ channels each way and 64+ output
// pixels is one generic over (n, oh, ow, kh, kw, c, f) reading the unpadded input (zero
// outside it), marked kiln.conv2d_3x3 = [pad top, pad left] for the Winograd kernel; with
// fewer channels or pixels it goes to the windows-times-filter kernel (kiln.conv2d_gemm).
// CHECK-DAG: #[[WF:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[WOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv3x3_wide
func.func @conv3x3_wide(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %v: tensor<3x3x16x8xf32>, %s: tensor<1x7x7x16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x8x8x8xf32>, tensor<1x7x7x16xf32>) {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[WF]], #[[WOUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
  // CHECK-SAME: ins(%arg1 : tensor<3x3x16x16xf32>) outs({{.*}} : tensor<1x8x8x16xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>}
  // CHECK: tensor.extract %arg0
  // CHECK-NOT: kiln.conv2d_3x3
  // CHECK: outs({{.*}} : tensor<1x8x8x8xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK-NOT: kiln.conv2d_3x3
  // CHECK: outs({{.*}} : tensor<1x7x7x16xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK-NOT: tensor.pad
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  %1 = "tf.Conv2D"(%x, %v) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x16xf32>, tensor<3x3x16x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = "tf.Conv2D"(%s, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x7x7x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x7x7x16xf32>
  return %0, %1, %2 : tensor<1x8x8x16xf32>, tensor<1x8x8x8xf32>, tensor<1x7x7x16xf32>
}

// -----

// Tests that a filter whose transform exceeds 1 MiB (36 x 96 x 96 floats) takes the
// Winograd kernel from 256 output pixels on (16x16, not 8x8), and one just under it (36 x
// 85 x 85 floats) from 64 (8x8).
// CHECK-LABEL: func.func @conv3x3_large_filter
func.func @conv3x3_large_filter(%x: tensor<1x8x8x96xf32>, %y: tensor<1x16x16x96xf32>, %w: tensor<3x3x96x96xf32>, %z: tensor<1x8x8x85xf32>, %v: tensor<3x3x85x85xf32>) -> (tensor<1x8x8x96xf32>, tensor<1x16x16x96xf32>, tensor<1x8x8x85xf32>) {
  // CHECK: outs({{.*}} : tensor<1x8x8x96xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK-NOT: kiln.conv2d_3x3
  // CHECK: outs({{.*}} : tensor<1x16x16x96xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>}
  // CHECK-NOT: tensor.pad
  // CHECK: outs({{.*}} : tensor<1x8x8x85xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>}
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x96xf32>, tensor<3x3x96x96xf32>) -> tensor<1x8x8x96xf32>
  %1 = "tf.Conv2D"(%y, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x16x16x96xf32>, tensor<3x3x96x96xf32>) -> tensor<1x16x16x96xf32>
  %2 = "tf.Conv2D"(%z, %v) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x85xf32>, tensor<3x3x85x85xf32>) -> tensor<1x8x8x85xf32>
  return %0, %1, %2 : tensor<1x8x8x96xf32>, tensor<1x16x16x96xf32>, tensor<1x8x8x85xf32>
}

// -----

// Tests that a constant filter with more than 1 MiB of transform takes the Winograd kernel
// from 128 output pixels (12x12, not 8x8): its transform is made once, but read at every
// call.
// CHECK-LABEL: func.func @conv3x3_constant_filter
func.func @conv3x3_constant_filter(%x: tensor<1x8x8x96xf32>, %y: tensor<1x12x12x96xf32>) -> (tensor<1x8x8x96xf32>, tensor<1x12x12x96xf32>) {
  // CHECK: outs({{.*}} : tensor<1x8x8x96xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK: outs({{.*}} : tensor<1x12x12x96xf32>) attrs = {kiln.conv2d_3x3 = array<i64: 1, 1>}
  %w = "tf.Const"() {value = dense<0.5> : tensor<3x3x96x96xf32>} : () -> tensor<3x3x96x96xf32>
  %0 = "tf.Conv2D"(%x, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x8x8x96xf32>, tensor<3x3x96x96xf32>) -> tensor<1x8x8x96xf32>
  %1 = "tf.Conv2D"(%y, %w) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x12x12x96xf32>, tensor<3x3x96x96xf32>) -> tensor<1x12x12x96xf32>
  return %0, %1 : tensor<1x8x8x96xf32>, tensor<1x12x12x96xf32>
}

// -----

// Tests that an f32 Conv2D whose window depth (kh * kw * c) is 64 or less and with 8+ output
// channels is one generic over the unpadded input marked kiln.conv2d_direct = [strides,
// dilations, pads before] for the direct kernel; a deeper window or fewer output channels go
// to the windows-times-filter kernel, and a 1x1 window with unit strides multiplies the
// input itself.
// CHECK-LABEL: func.func @conv_direct
func.func @conv_direct(%x: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %d: tensor<3x3x8x8xf32>, %n: tensor<3x3x3x4xf32>, %p: tensor<1x1x3x8xf32>) -> (tensor<1x5x5x8xf32>, tensor<1x9x9x8xf32>, tensor<1x9x9x4xf32>, tensor<1x9x9x8xf32>) {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%arg1 : tensor<3x3x3x8xf32>) outs({{.*}} : tensor<1x5x5x8xf32>) attrs = {kiln.conv2d_direct = array<i64: 2, 2, 1, 1, 1, 1>}
  // CHECK: tensor.extract %arg0
  // CHECK-NOT: kiln.conv2d_direct
  // CHECK: iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-SAME: ins({{.*}} : tensor<81x3xf32>, tensor<3x8xf32>)
  // CHECK-NOT: kiln.conv2d_direct
  // CHECK: outs({{.*}} : tensor<1x9x9x8xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK-NOT: kiln.conv2d_direct
  // CHECK: outs({{.*}} : tensor<1x9x9x4xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 1, 1>}
  // CHECK-NOT: tensor.pad
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

// Tests that a SAME AvgPool sums each window of the zero-padded input in one generic over
// (n, oh, ow, kh, kw, c), the channel innermost, and divides each position by the number of
// elements inside the input (4 in a corner, 6 on an edge, 9 in the middle).
// CHECK-DAG: #[[PADDED:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-LABEL: func.func @avgpool
func.func @avgpool(%x: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  // CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
  // CHECK: linalg.generic {indexing_maps = [#[[PADDED]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[PAD]], {{.*}})
  // CHECK: arith.addf
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

// Tests Conv2DBackpropInput as a stride-1 Conv2D: the gradient is inserted with the forward
// strides into a zero tensor padded by (window - 1 - forward padding) before, the filter is
// turned by 180 degrees with its channel dimensions swapped, and the f32 convolution of
// the two is the windows-times-filter kernel's generic (no patches matrix).
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (-d0 + 2, -d1 + 2, d3, d2)>
// CHECK-LABEL: func.func @conv_backprop_input
func.func @conv_backprop_input(%f: tensor<3x3x2x4xf32>, %dy: tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32> {
  // CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x10x9x4xf32>
  // CHECK: %[[SPREAD:.*]] = tensor.insert_slice %arg1 into %[[ZERO]][0, 2, 1, 0] [1, 4, 4, 4] [1, 2, 2, 1]
  // CHECK: %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]} ins(%arg0 : tensor<3x3x2x4xf32>) outs(%{{.*}} : tensor<3x3x4x2xf32>)
  // CHECK: linalg.generic {{.*}} ins(%[[FLIPPED]] : tensor<3x3x4x2xf32>) outs(%{{.*}} : tensor<1x8x7x2xf32>) attrs = {kiln.conv2d_gemm = array<i64: 1, 1, 1, 1, 0, 0>}
  // CHECK: tensor.extract %[[SPREAD]]
  // CHECK-NOT: tensor.pad
  %s = "tf.Const"() {value = dense<[1, 8, 7, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Conv2DBackpropInput"(%s, %f, %dy) {padding = "SAME", strides = [1, 2, 2, 1]} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x7x2xf32>
  return %0 : tensor<1x8x7x2xf32>
}

// -----

// Tests FusedBatchNorm (the V1 op) in inference: one generic computing
// (x - mean) * (scale * (1 / sqrt(variance + epsilon))) + offset per channel.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @batch_norm_v1
func.func @batch_norm_v1(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>,
                         %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x2x2x3xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[X]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[X]]]
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[SCALE:.*]]: f32, %[[OFFSET:.*]]: f32, %[[MEAN:.*]]: f32, %[[VAR:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK: %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
  // CHECK: %[[ROOT:.*]] = math.sqrt %[[VE]] : f32
  // CHECK: %[[INV:.*]] = arith.divf %[[ONE]], %[[ROOT]] : f32
  // CHECK: %[[CENTRED:.*]] = arith.subf %[[IN]], %[[MEAN]] : f32
  // CHECK: %[[FACTOR:.*]] = arith.mulf %[[SCALE]], %[[INV]] : f32
  // CHECK: %[[SCALED:.*]] = arith.mulf %[[CENTRED]], %[[FACTOR]] : f32
  // CHECK: arith.addf %[[SCALED]], %[[OFFSET]] : f32
  %0:5 = "tf.FusedBatchNorm"(%x, %s, %o, %m, %v) {epsilon = 0.001 : f32, is_training = false}
      : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<1x2x2x3xf32>
}

// -----

// Tests that FusedBatchNormV2 lowers as V1 and V3 do (the same generic), here NCHW: the
// channel is dimension 1.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_v2_nchw
func.func @batch_norm_v2_nchw(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>,
                              %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[X]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[X]]]
  // CHECK: math.sqrt
  %0:5 = "tf.FusedBatchNormV2"(%x, %s, %o, %m, %v) {data_format = "NCHW", epsilon = 0.001 : f32, is_training = false}
      : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<1x3x2x2xf32>
}

// -----

// Tests that a window attribute that is not a list of integers is reported, not read as
// one (a fuzzed graph gave MaxPool `explicit_paddings: list { f: -inf }`).
func.func @float_paddings(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{attribute 'explicit_paddings' must be a list of 8 integers}}
  %0 = "tf.MaxPool"(%x) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1], explicit_paddings = [0xFF800000 : f32]} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}


// -----

// Tests that a grouped Conv2D that kiln-graph-decompose has not rewritten is an error at
// the op, not a convolution over the wrong channels.
func.func @grouped_not_decomposed(%x: tensor<1x5x5x4xf32>, %f: tensor<3x3x2x6xf32>) -> tensor<1x5x5x6xf32> {
  // expected-error @+1 {{a grouped convolution (4 input channels, 2 per group) must be decomposed first (kiln-graph-decompose)}}
  %y = "tf.Conv2D"(%x, %f) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x5x5x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x5x5x6xf32>
  return %y : tensor<1x5x5x6xf32>
}

// -----

// Tests Conv3D: the input padded as SAME pads it (the extra row after), then linalg's named
// 3-D convolution with the spatial strides and dilations.
// CHECK-LABEL: func.func @conv3d
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 0, 0] high[0, 1, 1, 1, 0]
// CHECK: linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%[[P]], %arg1 : tensor<1x5x7x7x2xf32>, tensor<3x3x3x2x4xf32>)
func.func @conv3d(%x: tensor<1x4x5x6x2xf32>, %w: tensor<3x3x3x2x4xf32>) -> tensor<1x2x5x3x4xf32> {
  %0 = "tf.Conv3D"(%x, %w) {padding = "SAME", strides = [1, 2, 1, 2, 1]} : (tensor<1x4x5x6x2xf32>, tensor<3x3x3x2x4xf32>) -> tensor<1x2x5x3x4xf32>
  return %0 : tensor<1x2x5x3x4xf32>
}

// -----

// Tests MaxPool3D (from the lowest finite value, a window value replacing the maximum only
// when greater, so NaNs are passed over) and AvgPool3D (sums over the zero-padded input,
// then each divided by its count of elements inside the input), each one generic over
// (n, od, oh, ow, kd, kh, kw, c).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3 * 2 + d6, d7)>
// CHECK-LABEL: func.func @pools
// CHECK: %[[LOW:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]} ins(%arg0,
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %in, %out : f32
// CHECK: arith.select %[[GT]], %in, %out : f32
// CHECK: tensor.pad %arg0 low[0, 0, 1, 0, 0] high[0, 1, 1, 1, 0]
// CHECK: arith.addf %out, %in : f32
// CHECK: arith.constant dense<{{\[\[\[}}1.800000e+01, 1.800000e+01, 1.200000e+01], [2.700000e+01,
// CHECK: arith.divf %in, %in_{{.*}} : f32
func.func @pools(%x: tensor<1x4x5x6x2xf32>) -> (tensor<1x2x2x3x2xf32>, tensor<1x2x3x3x2xf32>) {
  %0 = "tf.MaxPool3D"(%x) {ksize = [1, 2, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 2, 1]} : (tensor<1x4x5x6x2xf32>) -> tensor<1x2x2x3x2xf32>
  %1 = "tf.AvgPool3D"(%x) {ksize = [1, 3, 3, 3, 1], padding = "SAME", strides = [1, 2, 2, 2, 1]} : (tensor<1x4x5x6x2xf32>) -> tensor<1x2x3x3x2xf32>
  return %0, %1 : tensor<1x2x2x3x2xf32>, tensor<1x2x3x3x2xf32>
}

// -----

// Tests Conv3DBackpropInputV2 (SAME, strides [1, 2, 1, 2, 1], a 3x2x3 window): the gradient
// inserted with strides 2, 1, 2 into zeros padded by the window less the forward padding
// (offsets 1, 1, 1), the filter turned around and its channels swapped, then a stride-1
// Conv3D.
// CHECK-LABEL: func.func @conv3d_backprop_input
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %arg1 into %{{.*}}[0, 1, 1, 1, 0] [2, 3, 6, 4, 4] [1, 2, 1, 2, 1] : tensor<2x3x6x4x4xf32> into tensor<2x7x7x9x4xf32>
// CHECK: %[[FLIPPED:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<3x2x3x3x4xf32>) outs(%{{.*}} : tensor<3x2x3x4x3xf32>)
// CHECK: linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<2x7x7x9x4xf32>, tensor<3x2x3x4x3xf32>)
func.func @conv3d_backprop_input(%f: tensor<3x2x3x3x4xf32>, %g: tensor<2x3x6x4x4xf32>) -> tensor<2x5x6x7x3xf32> {
  %sizes = "tf.Const"() {value = dense<[2, 5, 6, 7, 3]> : tensor<5xi32>} : () -> tensor<5xi32>
  %0 = "tf.Conv3DBackpropInputV2"(%sizes, %f, %g) {padding = "SAME", strides = [1, 2, 1, 2, 1]} : (tensor<5xi32>, tensor<3x2x3x3x4xf32>, tensor<2x3x6x4x4xf32>) -> tensor<2x5x6x7x3xf32>
  return %0 : tensor<2x5x6x7x3xf32>
}
