// RUN: credit-opt %s -split-input-file --credit-merge-stages | FileCheck %s

// credit-merge-stages: every statistic moves to the earliest stage whose pass
// can compute it (its reductions' operands are known before the pass; its
// post-computation may use the statistics of that stage); stages left empty
// disappear. The kernel records the figures as written and the moves in
// credit.stage_opt.

// -----

// Two independent stages are one: b moves to stage 1.
// kernel independent {
//   in x : f32[N]
//   out y : f32[N]
//   stage { a = sum(x) }
//   stage { b = sum(x * x) }
//   y = x * a + b
// }
// CHECK-LABEL: credit.kernel @independent
// CHECK-SAME:  credit.stage_opt = {as_written = {K_mbarrier = 1 : i64, K_sync = 4 : i64, L = 2 : i64, baseline = 16 : i64, ceiling = 2.000000e+00 : f64, cluster = 8 : i64, keep = 4 : i64, kept = ["x"], q = array<i64: 1, 1>, reread = 8 : i64},
// CHECK-SAME:  fused = [], moved = [{from = 2 : i64, location = {{.*}}, statistic = "b", to = 1 : i64}]}
// CHECK:         %a, %b = credit.stage ["a", "b"] {
// CHECK-NEXT:      %[[A:.*]] = credit.reduce <sum> (%x)
// CHECK:           %[[B:.*]] = credit.reduce <sum> (%x)
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:        arith.mulf %[[XE]], %[[XE]]
// CHECK:           credit.yield %[[A]], %[[B]] : f32, f32
// CHECK-NOT:     credit.stage
// CHECK:         credit.apply (%x, %a, %b)
credit.kernel @independent {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %1 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %1 : f32
  } : f32
  %b = credit.stage ["b"] {
    %1 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      %2 = arith.mulf %arg0, %arg0 : f32
      credit.yield %2 : f32
    }
    credit.yield %1 : f32
  } : f32
  %0 = credit.apply (%x, %a, %b) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    %2 = arith.addf %1, %arg2 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %0 : !credit.row<f32>
}

// -----

// b reads c, known after stage 1: the stages stay.
// kernel dependent {
//   in x : f32[N]
//   out y : f32[N]
//   stage { a = sum(x) }
//   let c = a * 2
//   stage { b = sum(x - c) }
//   y = x * b
// }
// CHECK-LABEL: credit.kernel @dependent
// CHECK-SAME:  fused = [], moved = []
// CHECK:         %a = credit.stage ["a"]
// CHECK:         %[[C:.*]] = arith.mulf %a,
// CHECK:         %b = credit.stage ["b"]
// CHECK-NEXT:      credit.reduce <sum> (%x, %[[C]])
credit.kernel @dependent {
  %cst = arith.constant 2.000000e+00 : f32
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %2 : f32
  } : f32
  %0 = arith.mulf %a, %cst : f32
  %b = credit.stage ["b"] {
    %2 = credit.reduce <sum> (%x, %0) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.subf %arg0, %arg1 : f32
      credit.yield %3 : f32
    }
    credit.yield %2 : f32
  } : f32
  %1 = credit.apply (%x, %b) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %2 = arith.mulf %arg0, %arg1 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %1 : !credit.row<f32>
}

// -----

// v's reduction needs nothing; its post-computation needs c, known after
// stage 1: v joins stage 1 and c is recomputed in its post-computation.
// kernel post {
//   in x : f32[N]
//   in z : f32[N]
//   out y : f32[N]
//   stage { a = sum(x) }
//   let c = a * 2
//   stage { v = sum(z * z) / c }
//   y = x * v + c
// }
// CHECK-LABEL: credit.kernel @post
// CHECK-SAME:  moved = [{from = 2 : i64, location = {{.*}}, statistic = "v", to = 1 : i64}]
// CHECK:         %a, %v = credit.stage ["a", "v"] {
// CHECK-NEXT:      %[[A:.*]] = credit.reduce <sum> (%x)
// CHECK:           %[[ZZ:.*]] = credit.reduce <sum> (%z)
// CHECK:           %[[C:.*]] = arith.mulf %[[A]], %{{.*}} : f32
// CHECK-NEXT:      %[[V:.*]] = arith.divf %[[ZZ]], %[[C]] : f32
// CHECK-NEXT:      credit.yield %[[A]], %[[V]] : f32, f32
// CHECK-NEXT:    } : f32, f32
// CHECK-NEXT:    %[[C2:.*]] = arith.mulf %a, %{{.*}} : f32
// CHECK-NEXT:    credit.apply (%x, %v, %[[C2]])
credit.kernel @post {
  %cst = arith.constant 2.000000e+00 : f32
  %x = credit.input "x" row : !credit.row<f32>
  %z = credit.input "z" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %2 : f32
  } : f32
  %0 = arith.mulf %a, %cst : f32
  %v = credit.stage ["v"] {
    %2 = credit.reduce <sum> (%z) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      %4 = arith.mulf %arg0, %arg0 : f32
      credit.yield %4 : f32
    }
    %3 = arith.divf %2, %0 : f32
    credit.yield %3 : f32
  } : f32
  %1 = credit.apply (%x, %v, %0) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %2 = arith.mulf %arg0, %arg1 : f32
    %3 = arith.addf %2, %arg2 : f32
    credit.yield %3 : f32
  }
  credit.output "y" %1 : !credit.row<f32>
}

// -----

// b joins a; d reads c, so it stays after c: three stages, and r (known
// after stage 1) right after the new stage 1.
// kernel chain {
//   in x : f32[N]
//   in z : f32[N]
//   out y : f32[N]
//   stage { a = sum(x) }
//   let r = 1 / a
//   stage { c = sum(x * r) }
//   stage { b = sum(z) }
//   stage { d = sum(z * c) + b }
//   y = x * d
// }
// CHECK-LABEL: credit.kernel @chain
// CHECK-SAME:  K_sync = 8 : i64, L = 4 : i64
// CHECK-SAME:  moved = [{from = 3 : i64, location = {{.*}}, statistic = "b", to = 1 : i64}, {from = 4 : i64, location = {{.*}}, statistic = "d", to = 3 : i64}]
// CHECK:         %a, %b = credit.stage ["a", "b"]
// CHECK:         %[[R:.*]] = arith.divf %{{.*}}, %a : f32
// CHECK-NEXT:    %c = credit.stage ["c"] {
// CHECK-NEXT:      credit.reduce <sum> (%x, %[[R]])
// CHECK:         %d = credit.stage ["d"] {
// CHECK-NEXT:      %[[D:.*]] = credit.reduce <sum> (%z, %c)
// CHECK:           arith.addf %[[D]], %b : f32
// CHECK:         credit.apply (%x, %d)
credit.kernel @chain {
  %cst = arith.constant 1.000000e+00 : f32
  %x = credit.input "x" row : !credit.row<f32>
  %z = credit.input "z" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %2 : f32
  } : f32
  %0 = arith.divf %cst, %a : f32
  %c = credit.stage ["c"] {
    %2 = credit.reduce <sum> (%x, %0) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %3 = arith.mulf %arg0, %arg1 : f32
      credit.yield %3 : f32
    }
    credit.yield %2 : f32
  } : f32
  %b = credit.stage ["b"] {
    %2 = credit.reduce <sum> (%z) : (!credit.row<f32>) -> f32 {
    ^bb0(%arg0: f32):
      credit.yield %arg0 : f32
    }
    credit.yield %2 : f32
  } : f32
  %d = credit.stage ["d"] {
    %2 = credit.reduce <sum> (%z, %c) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%arg0: f32, %arg1: f32):
      %4 = arith.mulf %arg0, %arg1 : f32
      credit.yield %4 : f32
    }
    %3 = arith.addf %2, %b : f32
    credit.yield %3 : f32
  } : f32
  %1 = credit.apply (%x, %d) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%arg0: f32, %arg1: f32):
    %2 = arith.mulf %arg0, %arg1 : f32
    credit.yield %2 : f32
  }
  credit.output "y" %1 : !credit.row<f32>
}

