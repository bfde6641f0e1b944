// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Image.cpp.

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

// Tests ResizeBicubic with half-pixel centres from 4x4 to 2x3: compile-time tables of four
// indices and weights per output row and column (taps outside the image weigh 0, the rest
// renormalised: row 0 reads rows 0, 0, 1, 2 weighing 0, 0.53, 0.53, -0.06), then each column
// interpolated along y, the four results along x, in TensorFlow's order.
// CHECK-LABEL: func.func @bicubic
// CHECK: %[[Y0:.*]] = arith.constant dense<[0, 1]> : tensor<2xi64>
// CHECK: %[[WY0:.*]] = arith.constant dense<[0.000000e+00, -0.0588235296]> : tensor<2xf32>
// CHECK: arith.constant dense<0.529411793> : tensor<2xf32>
// CHECK: linalg.generic
// CHECK: %[[P0:.*]] = arith.mulf %{{.*}}, %[[W0:.*]] : f32
// CHECK: %[[P1:.*]] = arith.mulf %{{.*}}, %[[W1:.*]] : f32
// CHECK: %[[S01:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK: %[[P2:.*]] = arith.mulf
// CHECK: %[[S012:.*]] = arith.addf %[[S01]], %[[P2]] : f32
// CHECK: %[[P3:.*]] = arith.mulf
// CHECK: arith.addf %[[S012]], %[[P3]] : f32

func.func @bicubic(%x: tensor<1x4x4x1xf32>) -> tensor<1x2x3x1xf32> {
  %size = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeBicubic"(%x, %size) {half_pixel_centers = true} : (tensor<1x4x4x1xf32>, tensor<2xi32>) -> tensor<1x2x3x1xf32>
  return %0 : tensor<1x2x3x1xf32>
}

// -----

// Tests ResizeArea of uint8 from 4x5 to 3x2: per output, a loop over its rows (weights of
// the first and last from tables, 1 between) of a loop over the middle columns, the first
// and last columns weighed; the sum times 1 / (4/3 * 5/2).
// CHECK-LABEL: func.func @area
// CHECK: linalg.generic
// CHECK: scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[TOTAL:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.addf %[[ROW]], %{{.*}} : f32
// CHECK: %[[ROWSUM:.*]] = arith.select
// CHECK: %[[WEIGHTED:.*]] = arith.mulf %[[ROWSUM]], %{{.*}} : f32
// CHECK: arith.addf %[[TOTAL]], %[[WEIGHTED]] : f32
// CHECK: %[[SCALE:.*]] = arith.constant 0.299999982 : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
func.func @area(%x: tensor<1x4x5x1xui8>) -> tensor<1x3x2x1xf32> {
  %size = "tf.Const"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeArea"(%x, %size) : (tensor<1x4x5x1xui8>, tensor<2xi32>) -> tensor<1x3x2x1xf32>
  return %0 : tensor<1x3x2x1xf32>
}

// -----

// Tests ExtractImagePatches (2x2 VALID windows, stride 2): output depth d is channel d % 2
// of tap d / 2 (row (d / 2) / 2, column (d / 2) % 2), read clamped, 0 outside the image.
// CHECK-LABEL: func.func @patches
// CHECK: %[[CHANNEL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[TAP:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.divui %[[TAP]]
// CHECK: arith.remui %[[TAP]]
// CHECK: %[[V:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[CHANNEL]]] : tensor<1x4x4x2xf32>
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
func.func @patches(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x8xf32> {
  %0 = "tf.ExtractImagePatches"(%x) {ksizes = [1, 2, 2, 1], strides = [1, 2, 2, 1], rates = [1, 1, 1, 1], padding = "VALID"} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x8xf32>
  return %0 : tensor<1x2x2x8xf32>
}

// -----

// Tests LRN: the squares of the depth window summed in a loop in the body, then for beta
// 0.5 the input times 1 / sqrt(bias + alpha * sum).
// CHECK-LABEL: func.func @lrn
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: %[[SCALED:.*]] = arith.mulf %[[SUM]], %{{.*}} : f32
// CHECK: %[[TMP:.*]] = arith.addf %[[SCALED]], %{{.*}} : f32
// CHECK: %[[ROOT:.*]] = math.sqrt %[[TMP]] : f32
// CHECK: %[[FACTOR:.*]] = arith.divf %{{.*}}, %[[ROOT]] : f32
// CHECK: arith.mulf %in, %[[FACTOR]] : f32
func.func @lrn(%x: tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32> {
  %0 = "tf.LRN"(%x) {depth_radius = 2 : i64, beta = 5.000000e-01 : f32} : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x6xf32>
  return %0 : tensor<1x2x2x6xf32>
}

// -----

// Tests FakeQuantWithMinMaxVars with fed bounds: the nudge computed in the body (scale,
// zero point rounded half away from zero and capped to the levels), then clamp to the
// nudged range, floor(shifted * (1 / scale) + 0.5) * scale + nudged min.
// CHECK-LABEL: func.func @fake_quant
// CHECK: %[[SCALE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[ZFM:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK: math.round %[[ZFM]] : f32
// CHECK: %[[LOW:.*]] = arith.minimumf %in, %{{.*}} : f32
// CHECK: %[[CLAMPED:.*]] = arith.maximumf %[[LOW]], %{{.*}} : f32
// CHECK: math.floor
func.func @fake_quant(%x: tensor<8xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<8xf32> {
  %0 = "tf.FakeQuantWithMinMaxVars"(%x, %lo, %hi) : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests FakeQuantWithMinMaxVarsPerChannelGradient: the gradient times whether the input is
// within the nudged bounds, and the gradients below and above them summed per channel
// (reductions over the rows, the channel parallel).
// CHECK-LABEL: func.func @fake_quant_grad
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3 : tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[GE:.*]] = arith.cmpf oge
// CHECK: %[[LE:.*]] = arith.cmpf ole
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK: %[[MASK:.*]] = arith.uitofp %[[IN]] : i1 to f32
// CHECK: arith.mulf %in, %[[MASK]] : f32
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ogt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<3x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<3x8xf32>) outs(%{{.*}} : tensor<8xf32>)
func.func @fake_quant_grad(%g: tensor<3x8xf32>, %x: tensor<3x8xf32>, %lo: tensor<8xf32>, %hi: tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = "tf.FakeQuantWithMinMaxVarsPerChannelGradient"(%g, %x, %lo, %hi) : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests RGBToHSV: each output channel reads its pixel's three channels inside the body;
// value is the largest, the result picks hue, saturation or value by the channel index.
// CHECK-LABEL: func.func @to_hsv
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x5x3xf32>
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg0
// CHECK: %[[GB:.*]] = arith.maximumf
// CHECK: arith.maximumf %{{.*}}, %[[GB]] : f32
// CHECK: %[[IS0:.*]] = arith.cmpi eq
// CHECK: %[[IS1:.*]] = arith.cmpi eq
// CHECK: %[[SV:.*]] = arith.select %[[IS1]]
// CHECK: arith.select %[[IS0]], %{{.*}}, %[[SV]] : f32
func.func @to_hsv(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = "tf.RGBToHSV"(%x) : (tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// Tests CropAndResize (bilinear to 3x2): the box index and the box's corners read inside
// the loop, the source row y1 * (H - 1) + y * scale checked to lie in [0, H - 1], floor and
// ceil neighbours blended, extrapolation_value elsewhere.
// CHECK-LABEL: func.func @crop
// CHECK: tensor.extract %arg2[%[[BOX:.*]]] : tensor<4xi32>
// CHECK: %[[Y1:.*]] = tensor.extract %arg1[%[[BOX]], %{{.*}}] : tensor<4x4xf32>
// CHECK: %[[Y2:.*]] = tensor.extract %arg1[%[[BOX]], %{{.*}}] : tensor<4x4xf32>
// CHECK: arith.subf %[[Y2]], %[[Y1]] : f32
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf ole
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: %[[OUTSIDE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[OUTSIDE]] : f32
func.func @crop(%x: tensor<2x5x6x3xf32>, %b: tensor<4x4xf32>, %i: tensor<4xi32>) -> tensor<4x3x2x3xf32> {
  %size = "tf.Const"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.CropAndResize"(%x, %b, %i, %size) {extrapolation_value = -1.0 : f32} : (tensor<2x5x6x3xf32>, tensor<4x4xf32>, tensor<4xi32>, tensor<2xi32>) -> tensor<4x3x2x3xf32>
  return %0 : tensor<4x3x2x3xf32>
}

// -----

// Tests Bitcast: to a narrower type, the element's bits as i32 shifted right by 8 times the
// new last index and truncated; to a wider one, the four bytes of the last dimension
// zero-extended, shifted left by 0, 8, 16 and 24 and joined, the result read as f32.
// CHECK-LABEL: func.func @bitcast
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[BITS]], %{{.*}} : i32
// CHECK: arith.trunci %[[SHIFTED]] : i32 to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.shli %{{.*}}, %c0_i32{{.*}} : i32
// CHECK: arith.shli %{{.*}}, %c8_i32 : i32
// CHECK: arith.shli %{{.*}}, %c16_i32 : i32
// CHECK: arith.shli %{{.*}}, %c24_i32 : i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
func.func @bitcast(%x: tensor<3xf32>, %y: tensor<2x4xui8>) -> (tensor<3x4xui8>, tensor<2xf32>) {
  %0 = "tf.Bitcast"(%x) {type = ui8} : (tensor<3xf32>) -> tensor<3x4xui8>
  %1 = "tf.Bitcast"(%y) {type = f32} : (tensor<2x4xui8>) -> tensor<2xf32>
  return %0, %1 : tensor<3x4xui8>, tensor<2xf32>
}

// -----

// Tests that ScaleAndTranslate sums the spans of rows, then of columns, each a generic
// reduction over the span reading compile-time tables of starts, counts and weights
// (lanczos1 upscaling 2 -> 4 rows: spans of 2, weights from the kernel, normalised).
// CHECK-LABEL: func.func @scale_and_translate
// CHECK-DAG: arith.constant dense<[0, 0, 0, 1]> : tensor<4xi64>
// CHECK-DAG: arith.constant dense<[2, 2, 2, 1]> : tensor<4xi64>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} outs({{.*}} : tensor<1x4x2x1xf32>)
// CHECK: arith.cmpi slt
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} outs({{.*}} : tensor<1x4x2x1xf32>)
func.func @scale_and_translate(%x: tensor<1x2x2x1xf32>) -> tensor<1x4x2x1xf32> {
  %size = "tf.Const"() {value = dense<[4, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %scale = "tf.Const"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %shift = "tf.Const"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "tf.ScaleAndTranslate"(%x, %size, %scale, %shift) {kernel_type = "lanczos1"} : (tensor<1x2x2x1xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x2x1xf32>
  return %0 : tensor<1x4x2x1xf32>
}

// -----

// Tests that AdjustSaturation computes TensorFlow's scalar HSV round trip per element: the
// hue's double constants (2/6, 4/6) added in f64, the saturation clamped with std::min/max
// selects, the sextant switch as selects on the truncated hue; AdjustHue turns by delta * 6
// and wraps into [0, 6) by selects.
// CHECK-LABEL: func.func @adjust
// CHECK: linalg.generic
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK: math.absf
// CHECK: linalg.generic
// CHECK: arith.andi
// CHECK: arith.sitofp
func.func @adjust(%x: tensor<1x2x3xf32>, %f: tensor<f32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  %0 = "tf.AdjustSaturation"(%x, %f) : (tensor<1x2x3xf32>, tensor<f32>) -> tensor<1x2x3xf32>
  %1 = "tf.AdjustHue"(%x, %f) : (tensor<1x2x3xf32>, tensor<f32>) -> tensor<1x2x3xf32>
  return %0, %1 : tensor<1x2x3xf32>, tensor<1x2x3xf32>
}
