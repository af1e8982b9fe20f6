// RUN: credit-opt %s -split-input-file --credit-merge-stages | FileCheck %s
// RUN: credit-opt %s -split-input-file --credit-merge-stages=fuse-online=false | FileCheck %s --check-prefix=NOFUSE

// credit-merge-stages with fuse-online (the default): sum(exp(p - m)),
// sum(w * exp(p - m)) and sum(exp(p - m) * w), where m is exactly max(p) of an
// earlier stage and w is known before the max's pass, join the max as one
// credit.reduce_sumexp yielding p and the weights (1 for a plain sum); the
// rest of the kernel then reads its results. Every other shape is left alone.

// -----

// The max and the sum of exponentials relative to it: one online statistic.
// kernel softmax {
//   in x : f32[N]
//   out y : f32[N]
//   stage { m = max(x) }
//   stage { s = sum(exp(x - m)) }
//   y = exp(x - m) / s
// }
// CHECK-LABEL: credit.kernel @softmax
// CHECK-SAME:  fused = [{kind = "online", location = {{.*}}, max = "m", stage = 1 : i64, sum_locations = [{{.*}}], sums = ["s"]}]
// CHECK:         %m, %s = credit.stage ["m", "s"] {
// CHECK-NEXT:      %[[R:.*]]:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        credit.yield %[[XE]], %[[ONE]] : f32, f32
// CHECK-NEXT:      }
// CHECK-NEXT:      credit.yield %[[R]]#0, %[[R]]#1 : f32, f32
// CHECK-NOT:     credit.stage
// CHECK:         credit.apply (%x, %m, %s)
// Without fuse-online: the stages as written (s depends on m).
// NOFUSE-LABEL: credit.kernel @softmax
// NOFUSE-SAME:  fused = [], moved = []
// NOFUSE:         %m = credit.stage ["m"]
// NOFUSE:         %s = credit.stage ["s"]
credit.kernel @softmax {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %s = credit.stage ["s"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %2 = arith.subf %arg0, %arg1 : f32
      %3 = math.exp %2 : f32
      credit.yield %3 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %m, %s) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.subf %arg0, %arg1 : f32
    %2 = math.exp %1 : f32
    %3 = arith.divf %2, %arg2 : f32
    credit.yield %3 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// Weights on either side, a pivot that is an expression: one statistic, q = 4.
// kernel weighted {
//   in x : f32[N]
//   in t : f32[N]
//   in dy : f32[N]
//   out y : f32[N]
//   stage { m = max(x * 2) }
//   stage { s = sum(exp(x * 2 - m)); u = sum(t * exp(x * 2 - m)); v = sum(exp(x * 2 - m) * dy) }
//   y = (t * s + u) * v
// }
// CHECK-LABEL: credit.kernel @weighted
// CHECK-SAME:  sums = ["s", "u", "v"]
// CHECK:         %s, %u, %v = credit.stage ["s", "u", "v"] {
// CHECK-NEXT:      %[[R:.*]]:4 = credit.reduce_sumexp (%x, %t, %dy) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>) -> (f32, f32, f32, f32) {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[TE:.*]]: f32, %[[DE:.*]]: f32):
// CHECK-DAG:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:             %[[P:.*]] = arith.mulf %[[XE]], %[[TWO]] : f32
// CHECK-NEXT:        credit.yield %[[P]], %[[ONE]], %[[TE]], %[[DE]] : f32, f32, f32, f32
// CHECK:           credit.yield %[[R]]#1, %[[R]]#2, %[[R]]#3 : f32, f32, f32
// CHECK-NOT:     credit.stage
credit.kernel @weighted {
  %x = credit.input "x" row : !credit.row<f32>
  %t = credit.input "t" row : !credit.row<f32>
  %dy = credit.input "dy" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      %cst = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %arg0, %cst : f32
      credit.yield %2 : f32
    }
    credit.yield %1 : f32
  } : f32
  %s, %u, %v = credit.stage ["s", "u", "v"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %cst = arith.constant 2.000000e+00 : f32
      %4 = arith.mulf %arg0, %cst : f32
      %5 = arith.subf %4, %arg1 : f32
      %6 = math.exp %5 : f32
      credit.yield %6 : f32
    }
    %2 = credit.reduce <sum> (%t, %x, %m) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %cst = arith.constant 2.000000e+00 : f32
      %4 = arith.mulf %arg1, %cst : f32
      %5 = arith.subf %4, %arg2 : f32
      %6 = math.exp %5 : f32
      %7 = arith.mulf %arg0, %6 : f32
      credit.yield %7 : f32
    }
    %3 = credit.reduce <sum> (%x, %m, %dy) : (!credit.row<f32>, f32, !credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %cst = arith.constant 2.000000e+00 : f32
      %4 = arith.mulf %arg0, %cst : f32
      %5 = arith.subf %4, %arg1 : f32
      %6 = math.exp %5 : f32
      %7 = arith.mulf %6, %arg2 : f32
      credit.yield %7 : f32
    }
    credit.yield %1, %2, %3 : f32, f32, f32
  } : f32, f32, f32
  %0 = credit.apply (%t, %s, %u, %v) : (!credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    %2 = arith.addf %1, %arg2 : f32
    %3 = arith.mulf %2, %arg3 : f32
    credit.yield %3 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// log(sum(exp(x - m))) + m: the post-computation moves along.
// kernel logsumexp {
//   in x : f32[N]
//   out l : f32
//   out y : f32[N]
//   stage { m = max(x) }
//   stage { lse = log(sum(exp(x - m))) + m }
//   l = lse
//   y = x - lse
// }
// CHECK-LABEL: credit.kernel @logsumexp
// CHECK-SAME:  fused = [{kind = "online", location = {{.*}}, max = "m", stage = 1 : i64, sum_locations = [{{.*}}], sums = ["lse"]}]
// CHECK:         %lse = credit.stage ["lse"] {
// CHECK-NEXT:      %[[R:.*]]:2 = credit.reduce_sumexp (%x)
// CHECK:           %[[L:.*]] = math.log %[[R]]#1 : f32
// CHECK-NEXT:      %[[LSE:.*]] = arith.addf %[[L]], %[[R]]#0 : f32
// CHECK-NEXT:      credit.yield %[[LSE]] : f32
// CHECK-NOT:     credit.stage
credit.kernel @logsumexp {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %lse = credit.stage ["lse"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %4 = arith.subf %arg0, %arg1 : f32
      %5 = math.exp %4 : f32
      credit.yield %5 : f32
    }
    %2 = math.log %1 : f32
    %3 = arith.addf %2, %m : f32
    credit.yield %3 : f32
  } : f32
  %0 = credit.apply (%x, %lse) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.subf %arg0, %arg1 : f32
    credit.yield %1 : f32
  }
  credit.output "l" %lse : f32
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// The sum's pivot is not the max's: no fusion.
// kernel pivot_differs {
//   in x : f32[N]
//   out y : f32[N]
//   stage { m = max(x) }
//   stage { s = sum(exp(x * 2 - m)) }
//   y = x * s
// }
// CHECK-LABEL: credit.kernel @pivot_differs
// CHECK-SAME:  fused = [], moved = []
// CHECK-NOT:     credit.reduce_sumexp
credit.kernel @pivot_differs {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %s = credit.stage ["s"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %cst = arith.constant 2.000000e+00 : f32
      %2 = arith.mulf %arg0, %cst : f32
      %3 = arith.subf %2, %arg1 : f32
      %4 = math.exp %3 : f32
      credit.yield %4 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    credit.yield %1 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// m is twice a max, n a min: no fusion.
// kernel not_a_max {
//   in x : f32[N]
//   out y : f32[N]
//   stage { m = max(x) * 2; n = min(x) }
//   stage { s = sum(exp(x - m)); r = sum(exp(x - n)) }
//   y = x * s * r
// }
// CHECK-LABEL: credit.kernel @not_a_max
// CHECK-SAME:  fused = [], moved = []
// CHECK-NOT:     credit.reduce_sumexp
credit.kernel @not_a_max {
  %cst = arith.constant 2.000000e+00 : f32
  %x = credit.input "x" row : !credit.row<f32>
  %m, %n = credit.stage ["m", "n"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    %2 = arith.mulf %1, %cst : f32
    %3 = credit.reduce <min> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %2, %3 : f32, f32
  } : f32, f32
  %s, %r = credit.stage ["s", "r"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.subf %arg0, %arg1 : f32
      %4 = math.exp %3 : f32
      credit.yield %4 : f32
    }
    %2 = credit.reduce <sum> (%x, %n) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.subf %arg0, %arg1 : f32
      %4 = math.exp %3 : f32
      credit.yield %4 : f32
    }
    credit.yield %1, %2 : f32, f32
  } : f32, f32
  %0 = credit.apply (%x, %s, %r) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    %2 = arith.mulf %1, %arg2 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// The weight uses m: no fusion.
// kernel weight_uses_m {
//   in x : f32[N]
//   out y : f32[N]
//   stage { m = max(x) }
//   stage { e = sum(exp(x - m) * (x - m)) }
//   y = x * e
// }
// CHECK-LABEL: credit.kernel @weight_uses_m
// CHECK-SAME:  fused = [], moved = []
// CHECK-NOT:     credit.reduce_sumexp
credit.kernel @weight_uses_m {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %e = credit.stage ["e"] {
    %1 = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %2 = arith.subf %arg0, %arg1 : f32
      %3 = math.exp %2 : f32
      %4 = arith.mulf %3, %2 : f32
      credit.yield %4 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %e) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    credit.yield %1 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// The weight a is known only after the max's pass: no fusion.
// kernel weight_late {
//   in x : f32[N]
//   out y : f32[N]
//   stage { m = max(x); a = sum(x) }
//   stage { s = sum(a * exp(x - m)) }
//   y = x * s
// }
// CHECK-LABEL: credit.kernel @weight_late
// CHECK-SAME:  fused = [], moved = []
// CHECK-NOT:     credit.reduce_sumexp
credit.kernel @weight_late {
  %x = credit.input "x" row : !credit.row<f32>
  %m, %a = credit.stage ["m", "a"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    %2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1, %2 : f32, f32
  } : f32, f32
  %s = credit.stage ["s"] {
    %1 = credit.reduce <sum> (%a, %x, %m) : (f32, !credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %2 = arith.subf %arg1, %arg2 : f32
      %3 = math.exp %2 : f32
      %4 = arith.mulf %arg0, %3 : f32
      credit.yield %4 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    credit.yield %1 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// A division is not a weight (credit-reciprocal-div makes it one): no fusion.
// kernel divided {
//   in x : f32[N]
//   in c : f32
//   out y : f32[N]
//   stage { m = max(x) }
//   stage { s = sum(exp(x - m) / c) }
//   y = x * s
// }
// CHECK-LABEL: credit.kernel @divided
// CHECK-SAME:  fused = [], moved = []
// CHECK-NOT:     credit.reduce_sumexp
credit.kernel @divided {
  %x = credit.input "x" row : !credit.row<f32>
  %c = credit.input "c" scalar : f32
  %m = credit.stage ["m"] {
    %1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %s = credit.stage ["s"] {
    %1 = credit.reduce <sum> (%x, %m, %c) : (!credit.row<f32>, f32, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %2 = arith.subf %arg0, %arg1 : f32
      %3 = math.exp %2 : f32
      %4 = arith.divf %3, %arg2 : f32
      credit.yield %4 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    credit.yield %1 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

