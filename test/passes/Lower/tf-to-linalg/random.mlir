// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Random.cpp.

// Tests StatelessRandomGetKeyCounter: one generic of the three words (the key, the
// counter's low half, 0, and its high half) from the int32 seed sign-extended, then the
// key and counter as slices of it.
// CHECK-LABEL: func.func @key_counter
func.func @key_counter(%seed: tensor<2xi32>) -> (tensor<1xui64>, tensor<2xui64>) {
  // CHECK: %[[WORDS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi64>)
  // CHECK: arith.extsi %{{.*}} : i32 to i64
  // CHECK-DAG: arith.constant 1053357856 : i32
  // CHECK-DAG: arith.constant 38149673 : i32
  // CHECK: %[[KEY:.*]] = tensor.extract_slice %[[WORDS]][0] [1] [1] : tensor<3xi64> to tensor<1xi64>
  // CHECK: %[[COUNTER:.*]] = tensor.extract_slice %[[WORDS]][1] [2] [1] : tensor<3xi64> to tensor<2xi64>
  // CHECK: return %[[KEY]], %[[COUNTER]]
  %0:2 = "tf.StatelessRandomGetKeyCounter"(%seed) : (tensor<2xi32>) -> (tensor<1xui64>, tensor<2xui64>)
  return %0#0, %0#1 : tensor<1xui64>, tensor<2xui64>
}

// -----

// Tests StatelessRandomUniformV2 of float32: element i takes lane i % 4 of the Philox
// block counter + i / 4 (a 128-bit addition: the carry into the high half), ten rounds
// of the two multipliers, and the lane's 23 low bits as 1.m - 1.
// CHECK-LABEL: func.func @uniform
func.func @uniform(%key: tensor<1xui64>, %counter: tensor<2xui64>) -> tensor<3x2xf32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<3x2xf32>)
  // CHECK: %[[BLOCK:.*]] = arith.divui %{{.*}}, %{{.*}} : i64
  // CHECK: arith.remui
  // CHECK: %[[LOW:.*]] = arith.addi %{{.*}}, %[[BLOCK]] : i64
  // CHECK: arith.cmpi ult, %[[LOW]], %[[BLOCK]] : i64
  // CHECK-COUNT-10: arith.constant 3528531795 : i64
  // CHECK: arith.constant 8388607 : i32
  // CHECK: arith.constant 1065353216 : i32
  // CHECK: arith.bitcast %{{.*}} : i32 to f32
  // CHECK: arith.subf
  %shape = "tf.Const"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %alg = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.StatelessRandomUniformV2"(%shape, %key, %counter, %alg) : (tensor<2xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests StatelessRandomNormalV2 of float64: a block gives two samples, each of all four
// words (Box-Muller of two 52-bit uniforms): sin for lane 0, cos for lane 1.
// CHECK-LABEL: func.func @normal_f64
func.func @normal_f64(%key: tensor<1xui64>, %counter: tensor<2xui64>) -> tensor<5xf64> {
  // CHECK: linalg.generic
  // CHECK: arith.divui %{{.*}}, %[[TWO:.*]] : i64
  // CHECK: arith.bitcast %{{.*}} : i64 to f64
  // CHECK: math.log
  // CHECK: math.sqrt
  // CHECK: math.sin
  // CHECK: math.cos
  // CHECK: arith.select
  %shape = "tf.Const"() {value = dense<[5]> : tensor<1xi32>} : () -> tensor<1xi32>
  %alg = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.StatelessRandomNormalV2"(%shape, %key, %counter, %alg) {dtype = f64} : (tensor<1xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// Tests StatelessRandomUniformIntV2 of int64: the two words of a 64-bit sample joined, the
// remainder by the range (hi - lo, unsigned) added to lo.
// CHECK-LABEL: func.func @uniform_int
func.func @uniform_int(%key: tensor<1xui64>, %counter: tensor<2xui64>) -> tensor<4xi64> {
  // CHECK-DAG: %[[LO:.*]] = arith.constant -7 : i64
  // CHECK-DAG: %[[RANGE:.*]] = arith.constant 107 : i64
  // CHECK: linalg.generic
  // CHECK: %[[REM:.*]] = arith.remui %{{.*}}, %[[RANGE]] : i64
  // CHECK: arith.addi %[[LO]], %[[REM]] : i64
  %shape = "tf.Const"() {value = dense<[4]> : tensor<1xi32>} : () -> tensor<1xi32>
  %alg = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %lo = "tf.Const"() {value = dense<-7> : tensor<i64>} : () -> tensor<i64>
  %hi = "tf.Const"() {value = dense<100> : tensor<i64>} : () -> tensor<i64>
  %0 = "tf.StatelessRandomUniformIntV2"(%shape, %key, %counter, %alg, %lo, %hi) {dtype = i64} : (tensor<1xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests StatelessTruncatedNormalV2 of float32: each element's group of 4 starts 256 blocks
// further along the counter; a loop over Box-Muller pairs (two words of the block the pair
// shares with its neighbour) keeps the samples within 2 of 0 until the element's own.
// CHECK-LABEL: func.func @truncated_normal
func.func @truncated_normal(%key: tensor<1xui64>, %counter: tensor<2xui64>) -> tensor<6xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c4_i64 : i64
  // CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c4_i64{{.*}} : i64
  // CHECK: arith.muli %[[GROUP]], %c256_i64 : i64
  // CHECK: scf.while
  // CHECK: arith.cmpi ule, %{{.*}}, %[[LANE]] : i64
  // CHECK: scf.condition
  // CHECK: math.sin
  // CHECK: math.absf
  // CHECK: arith.cmpf olt
  // CHECK: math.cos
  // CHECK: scf.yield
  %shape = "tf.Const"() {value = dense<[6]> : tensor<1xi32>} : () -> tensor<1xi32>
  %alg = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.StatelessTruncatedNormalV2"(%shape, %key, %counter, %alg) {dtype = f32} : (tensor<1xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
