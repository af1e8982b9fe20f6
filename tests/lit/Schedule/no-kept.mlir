// RUN: credit-opt %s --pass-pipeline='builtin.module(credit.kernel(credit-pass-access,credit-schedule))' | FileCheck %s
// RUN: credit-opt %s --credit-analyze | FileCheck %s --check-prefix=ANALYZE

// credit-schedule on a kernel the classification has not seen: x is read by
// stage 1 only and w by h only, so nothing is kept: no partial form, no
// persistent form (it streams the kept slices), no deep register twin, nothing
// prefetched into L2. w and g are read by h only.
// CHECK:      credit.schedule = #credit.schedule<threads = 256, wide_threads = 512,
// CHECK-SAME: forms = [cluster_sync, cluster_mbarrier, cluster_regs_sync, cluster_regs_mbarrier, cluster_wide_sync, cluster_wide_mbarrier, staged, staged_regs, staged_regs_wide, staged_wide, staged_regs_wide_wide, reread, control_sync, control_mbarrier],
// CHECK-SAME: kept = [], smem = [], materialized = [], kept_read_late = false,
// CHECK-SAME: only_h = ["w", "g"], hoisted = ["g"], prefetch_l2 = [],
// CHECK-SAME: geometry = <keep = 0, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 2>>

// The analysis pipeline classifies it one-pass first: no schedule.
// ANALYZE:     category = "one-pass"
// ANALYZE-NOT: credit.schedule
credit.kernel @no_kept {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%w, %g, %s) : (!credit.row<f32>, !credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%we: f32, %ge: f32, %se: f32):
    %a = arith.mulf %we, %se : f32
    %b = arith.addf %a, %ge : f32
    credit.yield %b : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
