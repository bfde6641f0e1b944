// RUN: kiln-opt --split-input-file --kiln-lower-outline-loops %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-outline-loops="reassociate-reductions=false" %s | FileCheck %s --check-prefix=ORDERED

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests a softmax's last steps on views of one arena: the row sums (offset 4096) and the
// rows (offset 0, divided in place) do not overlap, so both arguments are noalias; the
// rows, read and written through two views of the same bytes, pass once. The sum's
// accumulation may be reassociated (not under reassociate-reductions=false); the division
// may not. Each op goes to a function of its own, in order, called in its place.
// CHECK-LABEL: func.func @softmax_tail(
// CHECK-SAME: %[[A:.*]]: memref<8192xi8>)
// CHECK: %[[X:.*]] = memref.view %[[A]][%{{.*}}][] : memref<8192xi8> to memref<8x128xf32>
// CHECK: %[[S:.*]] = memref.view %[[A]][%{{.*}}][] : memref<8192xi8> to memref<8xf32>
// CHECK-NOT: linalg.
// CHECK: call @softmax_tail.loop0(%[[S]]) : (memref<8xf32>) -> ()
// CHECK-NEXT: call @softmax_tail.loop1(%[[X]], %[[S]]) : (memref<8x128xf32>, memref<8xf32>) -> ()
// CHECK-NEXT: call @softmax_tail.loop2(%[[X]], %[[S]]) : (memref<8x128xf32>, memref<8xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @softmax_tail.loop0(%[[S0:.*]]: memref<8xf32> {llvm.noalias}) attributes {kiln.outlined}
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f32) outs(%[[S0]] : memref<8xf32>)
// CHECK-NEXT: return
// CHECK: func.func private @softmax_tail.loop1(%[[X1:.*]]: memref<8x128xf32> {llvm.noalias}, %[[S1:.*]]: memref<8xf32> {llvm.noalias}) attributes {kiln.outlined}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[X1]] : memref<8x128xf32>) outs(%[[S1]] : memref<8xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: func.func private @softmax_tail.loop2(%[[X2:.*]]: memref<8x128xf32> {llvm.noalias}, %[[S2:.*]]: memref<8xf32> {llvm.noalias}) attributes {kiln.outlined}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[X2]], %[[S2]] : memref<8x128xf32>, memref<8xf32>) outs(%[[X2]] : memref<8x128xf32>)
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// ORDERED-LABEL: func.func private @softmax_tail.loop1
// ORDERED-NOT: reassoc
// ORDERED: arith.addf %{{.*}}, %{{.*}} : f32
// ORDERED-NOT: reassoc
func.func @softmax_tail(%arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.view %arena[%c0][] : memref<8192xi8> to memref<8x128xf32>
  %x2 = memref.view %arena[%c0][] : memref<8192xi8> to memref<8x128xf32>
  %s = memref.view %arena[%c4096][] : memref<8192xi8> to memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x128xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<8x128xf32>, memref<8xf32>) outs(%x2 : memref<8x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Tests which buffers stay without noalias: two views of the arena whose bytes overlap
// without being the same (offsets 0 and 256 of 512-byte views), and two arguments of the
// function, which may be the same memory. A global overlaps nothing, and a scalar passes
// as an argument.
// CHECK-LABEL: func.func @overlaps(
// CHECK: call @overlaps.loop0(%{{.*}}, %{{.*}}) : (memref<128xf32>, memref<128xf32>) -> ()
// CHECK: call @overlaps.loop1(%arg1, %{{.*}}, %arg2, %arg3) : (memref<128xf32>, memref<128xf32>, memref<128xf32>, f32) -> ()
// CHECK: func.func private @overlaps.loop0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<128xf32>) attributes {kiln.outlined}
// CHECK: func.func private @overlaps.loop1(%{{.*}}: memref<128xf32>, %{{.*}}: memref<128xf32> {llvm.noalias}, %{{.*}}: memref<128xf32>, %{{.*}}: f32) attributes {kiln.outlined}
memref.global "private" constant @table : memref<128xf32> = dense<1.0>
func.func @overlaps(%arena: memref<1024xi8>, %in: memref<128xf32>, %out: memref<128xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %a = memref.view %arena[%c0][] : memref<1024xi8> to memref<128xf32>
  %b = memref.view %arena[%c256][] : memref<1024xi8> to memref<128xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<128xf32>) outs(%b : memref<128xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %t = memref.get_global @table : memref<128xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%in, %t : memref<128xf32>, memref<128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.mulf %m, %scale : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Tests that an op on views with a dynamic offset (a loop's row) stays where it is.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-NOT: call
func.func @dynamic(%x: memref<4x16xf32>, %y: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %xs = memref.subview %x[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%xs : memref<16xf32, strided<[1], offset: ?>>) outs(%ys : memref<16xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  return
}
