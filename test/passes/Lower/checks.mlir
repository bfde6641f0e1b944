// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-checks %s | FileCheck %s

// Tests that a function with checks gets the status argument last, and the part that runs
// it says so; that the model lists the checks (message, checked shape, signedness) in
// order; and that a check is one reduction over its buffer, then, only if that fails, a
// search for the first failing element, recorded unless an earlier check recorded one.
// CHECK: kiln.model "m" attributes {checks = [#kiln.check<message = "node 'q' (FloorDiv): integer division by zero (y{index} is 0)", dims = [2, 3]>, #kiln.check<message = "p", dims = [], unsigned_values = true>]} {
// CHECK-NEXT: kiln.entry "run" {{.*}}parts = [#kiln.part<function = @main, {{.*}}status = true>]
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[Y:[^:]*]]: memref<2x3xi32>, %{{.*}}: memref<i8>, %{{.*}}: memref<0xi8>, %[[STATUS:.*]]: memref<3xi64>)
// CHECK: %[[ALL:.*]] = memref.alloca() : memref<i1>
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}} ins(%[[Y]] : memref<2x3xi32>) outs(%[[ALL]] : memref<i1>)
// CHECK: arith.cmpi ne
// CHECK: arith.andi
// CHECK: %[[PASSED:.*]] = memref.load %[[ALL]][]
// CHECK: %[[FAILED:.*]] = arith.xori %[[PASSED]]
// CHECK: scf.if %[[FAILED]] {
// CHECK: %[[FIRST:.*]] = scf.for
// CHECK: memref.load %[[Y]]
// CHECK: %[[RECORDED:.*]] = memref.load %[[STATUS]][%{{.*}}] : memref<3xi64>
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[RECORDED]]
// CHECK: scf.if %[[EMPTY]] {
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: memref.store %[[ONE]], %[[STATUS]]
// CHECK: memref.store %[[FIRST]], %[[STATUS]]
// CHECK-NOT: kiln.check
// The second check (unsigned, nonnegative) always holds; it is number 2.
// CHECK: arith.constant 2 : i64
kiln.model "m" {
  kiln.entry "run" feeds [#kiln.tensor<"y:0">, #kiln.tensor<"p:0">] fetches [] {parts = [#kiln.part<function = @main, device = "", inputs = [0, 1], outputs = []>]}
}
func.func @main(%y: memref<2x3xi32>, %p: memref<i8>, %scratch: memref<0xi8>) {
  kiln.check "nonzero" %y, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : memref<2x3xi32>
  kiln.check "nonnegative" %p, "p" {unsigned_values} : memref<i8>
  return
}

// -----

// Tests in_range: the element compared as an unsigned 64-bit number against its bound (so
// negative values fail too), the bound chosen by the position along the last dimension.
// CHECK-LABEL: func.func @tuples(
// CHECK: linalg.generic
// CHECK: %[[LAST:.*]] = linalg.index 1 : index
// CHECK: %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[LAST]], %{{.*}} : index
// CHECK: %[[BOUND:.*]] = arith.select %[[IS1]], %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %[[WIDE]], %[[BOUND]] : i64
kiln.model "m" {
  kiln.entry "run" feeds [#kiln.tensor<"i:0">] fetches [] {parts = [#kiln.part<function = @tuples, device = "", inputs = [0], outputs = []>]}
}
func.func @tuples(%i: memref<4x2xi32>, %scratch: memref<0xi8>) {
  kiln.check "in_range" %i bounds [5, 3], "m" : memref<4x2xi32>
  return
}

// -----

// Tests below: the element compared as a signed 64-bit number against its bound (negative
// values pass: segment ids TensorFlow drops).
// CHECK-LABEL: func.func @segments(
// CHECK: linalg.generic
// CHECK: %[[WIDE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[BOUND:.*]] = arith.constant 4 : i64
// CHECK: arith.cmpi slt, %[[WIDE]], %[[BOUND]] : i64
kiln.model "m" {
  kiln.entry "run" feeds [#kiln.tensor<"i:0">] fetches [] {parts = [#kiln.part<function = @segments, device = "", inputs = [0], outputs = []>]}
}
func.func @segments(%i: memref<5xi32>, %scratch: memref<0xi8>) {
  kiln.check "below" %i bounds [4], "m" : memref<5xi32>
  return
}

// -----

// Tests that functions without checks are left alone, and need no model.
// CHECK-LABEL: func.func @plain(%{{.*}}: memref<4xf32>)
// CHECK-NOT: memref<3xi64>
func.func @plain(%x: memref<4xf32>) {
  return
}

// -----

// Tests that checks in a function no entry point runs are an error: nothing would report them.
// expected-error @+1 {{has checks, but no part of a kiln.model entry point runs it to report them; run kiln-lower-partitions first}}
func.func @orphan(%y: memref<4xi32>, %scratch: memref<0xi8>) {
  kiln.check "nonzero" %y, "y" : memref<4xi32>
  return
}

// -----

// Tests not_nan and not_inf on floats: x == x (ordered), and x neither +inf nor -inf; a
// failing element's value is recorded as its bits.
// CHECK-LABEL: func.func @floats(
// CHECK: linalg.generic
// CHECK: arith.cmpf ord, %[[X:.*]], %[[X]] : f32
// CHECK: scf.if
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: linalg.generic
// CHECK: %[[ABOVE:.*]] = arith.cmpf une, %{{.*}}, %cst{{.*}} : f64
// CHECK: %[[BELOW:.*]] = arith.cmpf une
// CHECK: arith.andi %[[ABOVE]], %[[BELOW]] : i1
kiln.model "m" {
  kiln.entry "run" feeds [#kiln.tensor<"x:0">, #kiln.tensor<"w:0">] fetches [] {parts = [#kiln.part<function = @floats, device = "", inputs = [0, 1], outputs = []>]}
}
func.func @floats(%x: memref<4xf32>, %w: memref<2xf64>, %scratch: memref<0xi8>) {
  kiln.check "not_nan" %x, "x" : memref<4xf32>
  kiln.check "not_inf" %w, "w" : memref<2xf64>
  return
}
