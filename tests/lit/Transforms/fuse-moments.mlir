// RUN: credit-opt %s -split-input-file --credit-merge-stages | FileCheck %s
// RUN: credit-opt %s -split-input-file --credit-merge-stages="fuse-moments=false" | FileCheck %s --check-prefix=NOFUSE

// credit-merge-stages, fuse-moments: sum((e - c) * (e - c)) (or (c - e)) whose
// c is exactly sum(e) / N of an earlier stage (the same element expression e
// over the same operands), as a stage result or a let of one, joins that sum
// as one credit.reduce_moments; the stage left empty disappears.

// LayerNorm's statistics.
// kernel layernorm {
//   stage { mean = sum(x) / N }
//   stage { var = sum((x - mean) * (x - mean)) / N }
// }
// CHECK-LABEL: credit.kernel @layernorm
// CHECK-SAME:  fused = [{kind = "moments", location = {{.*}}, squares = "var", squares_location = {{.*}}, stage = 1 : i64, sum = "mean"}]
// CHECK:         %mean, %var = credit.stage ["mean", "var"] {
// CHECK-NEXT:      %[[C:.*]], %[[S:.*]], %[[M2:.*]] = credit.reduce_moments (%x) : (!credit.row<f32>) -> (f32, f32, f32) {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:        credit.yield %[[XE]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[S]], %N : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.divf %[[M2]], %N : f32
// CHECK-NEXT:      credit.yield %[[MEAN]], %[[VAR]] : f32, f32
// CHECK-NOT:     credit.stage
// CHECK:         credit.apply (%x, %mean, %var)
// NOFUSE-LABEL: credit.kernel @layernorm
// NOFUSE-SAME:  credit.moments_available = {L = 1 : i64, pairs = [{squares = "var", sum = "mean"}]}
// NOFUSE-SAME:  fused = [], moved = []
// NOFUSE-NOT:   credit.reduce_moments
credit.kernel @layernorm {
  %x = credit.input "x" row : !credit.row<f32>
  %N = credit.row_width : f32
  %mean = credit.stage ["mean"] {
    %1 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    %2 = arith.divf %1, %N : f32
    credit.yield %2 : f32
  } : f32
  %var = credit.stage ["var"] {
    %1 = credit.reduce <sum> (%x, %mean) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.subf %arg0, %arg1 : f32
      %4 = arith.mulf %3, %3 : f32
      credit.yield %4 : f32
    }
    %2 = arith.divf %1, %N : f32
    credit.yield %2 : f32
  } : f32
  %0 = credit.apply (%x, %mean, %var) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.subf %arg0, %arg1 : f32
    %2 = arith.mulf %1, %arg2 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// A term of two inputs, the mean a let of the stage's sum, the square written
// (c - e): the same statistics. The sum statistic s is yielded as before.
// kernel residual_std {
//   stage { s = sum(x + r) }
//   let mean = s / N
//   stage { ss = sum((mean - (x + r)) * (mean - (x + r))) }
// }
// CHECK-LABEL: credit.kernel @residual_std
// CHECK-SAME:  fused = [{kind = "moments", location = {{.*}}, squares = "ss", squares_location = {{.*}}, stage = 1 : i64, sum = "s"}]
// CHECK:         %s, %ss = credit.stage ["s", "ss"] {
// CHECK-NEXT:      %[[C:.*]], %[[S:.*]], %[[M2:.*]] = credit.reduce_moments (%x, %r) : (!credit.row<f32>, !credit.row<f32>) -> (f32, f32, f32) {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[RE:.*]]: f32):
// CHECK-NEXT:        %[[T:.*]] = arith.addf %[[XE]], %[[RE]] : f32
// CHECK-NEXT:        credit.yield %[[T]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      credit.yield %[[S]], %[[M2]] : f32, f32
// CHECK-NOT:     credit.stage
credit.kernel @residual_std {
  %x = credit.input "x" row : !credit.row<f32>
  %r = credit.input "r" row : !credit.row<f32>
  %N = credit.row_width : f32
  %s = credit.stage ["s"] {
    %1 = credit.reduce <sum> (%x, %r) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %2 = arith.addf %arg0, %arg1 : f32
      credit.yield %2 : f32
    }
    credit.yield %1 : f32
  } : f32
  %mean = arith.divf %s, %N : f32
  %ss = credit.stage ["ss"] {
    %1 = credit.reduce <sum> (%x, %r, %mean) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %2 = arith.addf %arg0, %arg1 : f32
      %3 = arith.subf %arg2, %2 : f32
      %4 = arith.mulf %3, %3 : f32
      credit.yield %4 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %mean, %ss) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.subf %arg0, %arg1 : f32
    %2 = arith.mulf %1, %arg2 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// Not fused: c is not the mean (sum(x) / 2), the term is not the one summed
// (x * w), the squares are weighted: h joins c, the last stage moves up.
// CHECK-LABEL: credit.kernel @not_centred
// CHECK-SAME:  fused = [], moved = [{from = 2 : i64, location = {{.*}}, statistic = "h", to = 1 : i64}, {from = 3
// CHECK-NOT:   credit.reduce_moments
// CHECK:       credit.stage ["c", "h"]
// CHECK-NOT:   credit.reduce_moments
// CHECK:       credit.stage ["a", "b", "d"]
// CHECK-NOT:   credit.reduce_moments
credit.kernel @not_centred {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %N = credit.row_width : f32
  %two = arith.constant 2.0 : f32
  %c = credit.stage ["c"] {
    %1 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    %2 = arith.divf %1, %N : f32
    credit.yield %2 : f32
  } : f32
  %half = credit.stage ["h"] {
    %1 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    %2 = arith.divf %1, %two : f32
    credit.yield %2 : f32
  } : f32
  %a, %b, %d = credit.stage ["a", "b", "d"] {
    %1 = credit.reduce <sum> (%x, %half) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.subf %arg0, %arg1 : f32
      %4 = arith.mulf %3, %3 : f32
      credit.yield %4 : f32
    }
    %5 = credit.reduce <sum> (%x, %w, %c) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %3 = arith.mulf %arg0, %arg1 : f32
      %4 = arith.subf %3, %arg2 : f32
      %6 = arith.mulf %4, %4 : f32
      credit.yield %6 : f32
    }
    %7 = credit.reduce <sum> (%x, %w, %c) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %3 = arith.subf %arg0, %arg2 : f32
      %4 = arith.mulf %3, %3 : f32
      %6 = arith.mulf %arg1, %4 : f32
      credit.yield %6 : f32
    }
    credit.yield %1, %5, %7 : f32, f32, f32
  } : f32, f32, f32
  %0 = credit.apply (%x, %a, %b, %d) : (!credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    %2 = arith.addf %1, %arg2 : f32
    %3 = arith.addf %2, %arg3 : f32
    credit.yield %3 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}
