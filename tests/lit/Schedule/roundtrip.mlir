// RUN: credit-opt %s | FileCheck %s
// RUN: credit-opt %s | credit-opt | FileCheck %s
// RUN: credit-opt %s --mlir-print-op-generic | credit-opt | FileCheck %s

// #credit.schedule and credit.materialized print as they are written and
// parse back. partial_drop is absent without a partial form and
// partial_drop_read_late when false; every other parameter is always printed.

// CHECK-LABEL: credit.kernel @k attributes {credit.schedule = #credit.schedule<
// CHECK-SAME:  threads = 256, wide_threads = 512,
// CHECK-SAME:  forms = [cluster_sync, cluster_mbarrier, cluster_partial_sync, cluster_partial_mbarrier, persistent, staged, reread],
// CHECK-SAME:  kept = ["x", "dy"], smem = ["x", "dy"], materialized = ["x" by 1],
// CHECK-SAME:  partial_drop = "dy", partial_drop_read_late = true, kept_read_late = true,
// CHECK-SAME:  only_h = ["v", "g"], hoisted = ["g"], prefetch_l2 = ["v"],
// CHECK-SAME:  geometry = <keep = 8, stages = 2, q_max = 1, q_sum = 2, threads = 256, h_only = 2>>}
// CHECK:       math.exp {{.*}} {credit.materialized = "x"}
// CHECK:       math.exp {{.*}} {credit.materialized = "x"}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512,
    forms = [cluster_sync, cluster_mbarrier, cluster_partial_sync, cluster_partial_mbarrier, persistent, staged, reread],
    kept = ["x", "dy"], smem = ["x", "dy"], materialized = ["x" by 1], partial_drop = "dy",
    partial_drop_read_late = true, kept_read_late = true, only_h = ["v", "g"], hoisted = ["g"],
    prefetch_l2 = ["v"], geometry = <keep = 8, stages = 2, q_max = 1, q_sum = 2, threads = 256, h_only = 2>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %dy = credit.input "dy" row : !credit.row<f32>
  %v = credit.input "v" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x, %dy, %m) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %de: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      %e = math.exp %d {credit.materialized = "x"} : f32
      %p = arith.mulf %e, %de : f32
      credit.yield %p : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %dy, %v, %g, %m, %s) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %de: f32, %ve: f32, %ge: f32, %me: f32, %se: f32):
    %d = arith.subf %xe, %me : f32
    %e = math.exp %d {credit.materialized = "x"} : f32
    %a = arith.mulf %e, %de : f32
    %b = arith.addf %a, %se : f32
    %c = arith.mulf %ve, %ge : f32
    %z = arith.addf %b, %c : f32
    credit.yield %z : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
