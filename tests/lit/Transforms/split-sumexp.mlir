// RUN: credit-opt %s -split-input-file --credit-split-sumexp | FileCheck %s

// credit-split-sumexp: the two-pass form of an online statistic, for consumers
// that do not compute it. The max of the pivot moves to a new stage right
// before; each sum becomes sum(w * exp(p - m)), or sum(exp(p - m)) for a
// weight of 1.

// A statistic that is the max itself belongs to the new stage.
// CHECK-LABEL: credit.kernel @two_sums
// CHECK:         %m = credit.stage ["m"] {
// CHECK-NEXT:      %[[M:.*]] = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[XE]], %[[XE]] : f32
// CHECK-NEXT:        credit.yield %[[P]] : f32
// CHECK:           credit.yield %[[M]] : f32
// CHECK:         %s, %t = credit.stage ["s", "t"] {
// CHECK-NEXT:      %[[S:.*]] = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[ME:.*]]: f32):
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[XE]], %[[XE]] : f32
// CHECK-NEXT:        %[[D:.*]] = arith.subf %[[P]], %[[ME]] : f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:        credit.yield %[[E]] : f32
// CHECK:           %[[T:.*]] = credit.reduce <sum> (%x, %w, %m) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[WE:.*]]: f32, %[[ME:.*]]: f32):
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[XE]], %[[XE]] : f32
// CHECK-NEXT:        %[[D:.*]] = arith.subf %[[P]], %[[ME]] : f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:        %[[WEXP:.*]] = arith.mulf %[[WE]], %[[E]] : f32
// CHECK-NEXT:        credit.yield %[[WEXP]] : f32
// CHECK:           credit.yield %[[S]], %[[T]] : f32, f32
// CHECK:         credit.apply (%x, %m, %s, %t)
credit.kernel @two_sums {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %m, %s, %t = credit.stage ["m", "s", "t"] {
    %r:3 = credit.reduce_sumexp (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> (f32, f32, f32) {
    ^bb0(%xe: f32, %we: f32):
      %one = arith.constant 1.0 : f32
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p, %one, %we : f32, f32, f32
    }
    credit.yield %r#0, %r#1, %r#2 : f32, f32, f32
  } : f32, f32, f32
  %y = credit.apply (%x, %m, %s, %t) : (!credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32, %se: f32, %te: f32):
    %a = arith.subf %xe, %me : f32
    %b = arith.mulf %a, %se : f32
    %c = arith.addf %b, %te : f32
    credit.yield %c : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// logsumexp's max is used only by the post-computation: the new stage's
// statistic is named after the first statistic of the stage.
// CHECK-LABEL: credit.kernel @lse
// CHECK:         %[[MAX:.*]] = credit.stage ["l.max"] {
// CHECK:           credit.reduce <max> (%x)
// CHECK:         %l = credit.stage ["l"] {
// CHECK-NEXT:      %[[S:.*]] = credit.reduce <sum> (%x, %[[MAX]])
// CHECK:           %[[LOG:.*]] = math.log %[[S]] : f32
// CHECK-NEXT:      %[[L:.*]] = arith.addf %[[LOG]], %[[MAX]] : f32
// CHECK-NEXT:      credit.yield %[[L]] : f32
credit.kernel @lse {
  %x = credit.input "x" row : !credit.row<f32>
  %l = credit.stage ["l"] {
    %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32):
      %one = arith.constant 1.0 : f32
      credit.yield %xe, %one : f32, f32
    }
    %lg = math.log %r#1 : f32
    %v = arith.addf %lg, %r#0 : f32
    credit.yield %v : f32
  } : f32
  credit.output "l" %l : f32
}

// -----

// The new stage's statistic is named after the statistic computed from the
// online one, not the stage's first.
// CHECK-LABEL: credit.kernel @second
// CHECK:         credit.stage ["q.max"]
// CHECK:         credit.stage ["a", "q"]
credit.kernel @second {
  %x = credit.input "x" row : !credit.row<f32>
  %a, %q = credit.stage ["a", "q"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32):
      %one = arith.constant 1.0 : f32
      credit.yield %xe, %one : f32, f32
    }
    %lg = math.log %r#1 : f32
    %v = arith.addf %lg, %r#0 : f32
    credit.yield %s, %v : f32, f32
  } : f32, f32
  credit.output "a" %a : f32
  credit.output "q" %q : f32
}
