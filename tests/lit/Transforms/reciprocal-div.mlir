// RUN: credit-opt %s -split-input-file --credit-reciprocal-div | FileCheck %s
// RUN: credit-opt %s -split-input-file --credit-reciprocal-div --canonicalize | FileCheck %s --check-prefix=CANON

// credit-reciprocal-div: a per-element division by a row-level value becomes a
// multiplication by its reciprocal, computed once per row right after the
// divisor is defined; one reciprocal per divisor, shared by every region.

// CHECK-LABEL: credit.kernel @shared
// CHECK:         %[[S:.*]] = credit.stage ["s"] {
// CHECK:         } : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[RS:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK:         credit.stage ["d"] {
// CHECK:           credit.reduce <sum> (%x, %[[S]], %[[RS]]) : (!credit.row<f32>, f32, f32) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %{{.*}}: f32, %[[R:.*]]: f32):
// CHECK-NEXT:        %[[Q:.*]] = arith.mulf %[[XE]], %[[R]] : f32
// CHECK-NEXT:        credit.yield %[[Q]] : f32
// CHECK:         credit.apply (%x, %[[S]], %{{.*}}, %[[RS]])
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:       arith.divf
// CHECK:           credit.yield
// The divisor's own argument is dead afterwards: canonicalization drops it.
// CANON-LABEL: credit.kernel @shared
// CANON:         credit.reduce <sum> (%x, %{{.*}}) : (!credit.row<f32>, f32) -> f32 {
// CANON:         credit.apply (%x, %{{.*}}, %{{.*}}) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
credit.kernel @shared {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %d = credit.stage ["d"] {
    %r = credit.reduce <sum> (%x, %s) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %se: f32):
      %q = arith.divf %xe, %se : f32
      credit.yield %q : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s, %d) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32, %de: f32):
    %q = arith.divf %xe, %se : f32
    %t = arith.subf %q, %de : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Left alone: a division by a per-element value (a row operand), and by a
// constant inside the region (not a row-level operand).
// CHECK-LABEL: credit.kernel @untouched
// CHECK-NOT:     arith.constant 1.000000e+00
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.mulf
credit.kernel @untouched {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %w, %s) : (!credit.row<f32>, !credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %we: f32, %se: f32):
    %c = arith.constant 3.0 : f32
    %q = arith.divf %xe, %we : f32
    %t = arith.divf %q, %c : f32
    %u = arith.subf %t, %se : f32
    credit.yield %u : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
