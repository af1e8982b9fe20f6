// RUN: credit-opt %s -split-input-file | FileCheck %s
// RUN: credit-opt %s -split-input-file -mlir-print-op-generic | credit-opt -split-input-file | FileCheck %s
// RUN: credit-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=CANON

// credit.reduce_sumexp: the region yields the pivot and one weight per sum;
// the results are the max and the sums.

// CHECK-LABEL: credit.kernel @round_trip
// CHECK:         %[[R:.*]]:3 = credit.reduce_sumexp (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> (f32, f32, f32) {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[WE:.*]]: f32):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      credit.yield %[[XE]], %[[ONE]], %[[WE]] : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    credit.yield %[[R]]#0, %[[R]]#1, %[[R]]#2 : f32, f32, f32
// A sum nothing uses is dropped with its weight (q counts the rest).
// CANON-LABEL: credit.kernel @round_trip
// CANON:         %[[R:.*]]:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
// CANON:           credit.yield %{{.*}}, %{{.*}} : f32, f32
// CANON:         credit.yield %[[R]]#0, %[[R]]#1 : f32, f32
credit.kernel @round_trip {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %m, %s, %t = credit.stage ["m", "s", "t"] {
    %r:3 = credit.reduce_sumexp (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> (f32, f32, f32) {
    ^bb0(%xe: f32, %we: f32):
      %one = arith.constant 1.0 : f32
      credit.yield %xe, %one, %we : f32, f32, f32
    }
    credit.yield %r#0, %r#1, %r#2 : f32, f32, f32
  } : f32, f32, f32
  %y = credit.apply (%x, %m, %s) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32, %se: f32):
    %a = arith.subf %xe, %me : f32
    %b = arith.mulf %a, %se : f32
    credit.yield %b : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// With no sum used, it is the plain max of the pivot.
// CANON-LABEL: credit.kernel @only_max
// CANON:         credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
// CANON-NEXT:    ^bb0(%[[XE:.*]]: f32):
// CANON-NEXT:      credit.yield %[[XE]] : f32
// CANON-NOT:     credit.reduce_sumexp
credit.kernel @only_max {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32):
      %one = arith.constant 1.0 : f32
      credit.yield %xe, %one : f32, f32
    }
    credit.yield %r#0 : f32
  } : f32
  credit.output "m" %m : f32
}
