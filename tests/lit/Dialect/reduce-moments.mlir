// RUN: credit-opt %s -split-input-file | FileCheck %s
// RUN: credit-opt %s -split-input-file -mlir-print-op-generic | credit-opt -split-input-file | FileCheck %s
// RUN: credit-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=CANON

// credit.reduce_moments: the region yields one term; the results are the
// count, the sum and the centred sum of squares.

// CHECK-LABEL: credit.kernel @round_trip
// CHECK:         %[[N:.*]], %[[S:.*]], %[[M2:.*]] = credit.reduce_moments (%x, %r) : (!credit.row<f32>, !credit.row<bf16>) -> (f32, f32, f32) {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[RE:.*]]: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[XE]], %[[RE]] : f32
// CHECK-NEXT:      credit.yield %[[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    credit.yield %[[S]], %[[M2]] : f32, f32
// CANON-LABEL: credit.kernel @round_trip
// CANON:         credit.reduce_moments
credit.kernel @round_trip {
  %x = credit.input "x" row : !credit.row<f32>
  %r = credit.input "r" row : !credit.row<bf16>
  %s, %v = credit.stage ["s", "v"] {
    %n, %sum, %m2 = credit.reduce_moments (%x, %r) : (!credit.row<f32>, !credit.row<bf16>) -> (f32, f32, f32) {
    ^bb0(%xe: f32, %re: f32):
      %t = arith.addf %xe, %re : f32
      credit.yield %t : f32
    }
    credit.yield %sum, %m2 : f32, f32
  } : f32, f32
  %y = credit.apply (%x, %s, %v) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32, %ve: f32):
    %a = arith.subf %xe, %se : f32
    %b = arith.mulf %a, %ve : f32
    credit.yield %b : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Without a use of the centred sum of squares (or the count), the moments are
// the plain sum of the term.
// CANON-LABEL: credit.kernel @sum_only
// CANON:         %[[S:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CANON-NOT:     credit.reduce_moments
credit.kernel @sum_only {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %n, %sum, %m2 = credit.reduce_moments (%x) : (!credit.row<f32>) -> (f32, f32, f32) {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %sum : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.subf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
