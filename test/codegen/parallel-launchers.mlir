// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-codegen-parallel-launchers %s | FileCheck %s

// Tests that a launcher gets its body: the two buffer pointers into a stack array, then
// kiln_parallel_for(count, grain, thunk, array), declared once; the thunk loads the
// pointers back and calls the body with (begin, end, pointers...).
// CHECK-LABEL: llvm.func @f.parallel0(
// CHECK-LABEL: llvm.func internal @f.parallel0.thunk(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64)
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %arg0[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[X:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %arg0[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[Y:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: llvm.call @f.parallel0(%arg1, %arg2, %[[X]], %[[Y]])
// CHECK-LABEL: llvm.func internal @f.parallel0.launch(%arg0: i64, %arg1: i64, %arg2: !llvm.ptr, %arg3: !llvm.ptr)
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[A:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[S0:.*]] = llvm.getelementptr %[[A]][0]
// CHECK-NEXT: llvm.store %arg2, %[[S0]]
// CHECK-NEXT: %[[S1:.*]] = llvm.getelementptr %[[A]][1]
// CHECK-NEXT: llvm.store %arg3, %[[S1]]
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @f.parallel0.thunk : !llvm.ptr
// CHECK-NEXT: llvm.call @kiln_parallel_for(%arg0, %arg1, %[[T]], %[[A]]) : (i64, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.func @kiln_parallel_for(i64, i64, !llvm.ptr, !llvm.ptr)
llvm.func @f(%x: !llvm.ptr, %y: !llvm.ptr) {
  %n = llvm.mlir.constant(64 : i64) : i64
  %g = llvm.mlir.constant(8 : i64) : i64
  llvm.call @f.parallel0.launch(%n, %g, %x, %y) : (i64, i64, !llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @f.parallel0(%begin: i64, %end: i64, %x: !llvm.ptr, %y: !llvm.ptr) {
  llvm.return
}
llvm.func @f.parallel0.launch(i64, i64, !llvm.ptr, !llvm.ptr)

// -----

// A launcher without its body is an error.
// expected-error @+1 {{'llvm.func' op declares the launcher of 'g.parallel0', which has no matching body}}
llvm.func @g.parallel0.launch(i64, i64)
