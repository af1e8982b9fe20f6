// RUN: credit-opt %s --credit-analyze="target=sm_120 N=8192 stage-opt=false" --mlir-print-local-scope | FileCheck %s
// RUN: credit-opt %s --credit-analyze=stage-opt=false | FileCheck %s --check-prefix=DEFAULT

// credit-analyze = canonicalize, CSE, canonicalize, credit-merge-stages (off
// here: the stages as written), then pass-access, traffic, barriers,
// legality, classify and credit-schedule (what creditc runs). The input has
// dead code for the clean-up to remove first:
//   * stage "dead" is unused and holds a stencil: it disappears, so the kernel
//     is not a stencil and L counts 2 stages, not 3;
//   * stage "m" computes max(x) twice: CSE merges them, q = 1;
//   * stage "s" is handed dy and h the scalar c without using them.
// What is left: stage 1 max(x), stage 2 sum(exp(x - m)), h = exp(x - m) / s * g + dy * m2.
//   passes: stage 1 reads x | stage 2 reads x | h reads x, dy; broadcast g
//   baseline = 4 + 4 + (4 + 4) + 4 (y) = 20;  cluster = 4 + 4 + 4 = 12
//   reread = 8;  keep = 4 (x, 3 passes; dy is read once);  ceiling 20/12 = 1.666...
//   fixed: g 4 B/element, 0 B/row (c is never read);  K: sync 2*2 = 4, mbarrier 1
//   legality, sm_120 (S_max 101376, P <= 8), qMax 1, qSum 2, L 2, b_keep 4:
//     warpPartials 8*1*4 = 32, ctaPartial 4 -> 16
//     loadBars 4*8 per kept input = 32 B (x)
//     sync slots 4P -> 16, 16, 16, 32: S = 48 + slots + 32 = 96, 96, 96, 112
//     mbar slots 8P -> 16, 16, 32, 64, + 2*8 = 16, + 32: S = 112, 112, 128, 160
//     max_N: (101376-96)/4 = 25320 -> 25320, 50640, 101280; (101376-112)/4 = 25316 -> 202528
//     N = 8192: slice 8192, 4096, 2048, 1024 -> smem 32768+96 = 32864, 16384+96 = 16480,
//       8192+96 = 8288, 4096+112 = 4208: all legal
//   schedule: x kept; stage 2 and h both read it through exp(x - m): stored
//     by stage 2 (pass 1); dy (row) and g (broadcast) only h reads.

// CHECK-LABEL: credit.kernel @pipeline attributes {
// CHECK-SAME: credit.barriers = {mbarrier = 1 : i64, sync = 4 : i64},
// CHECK-SAME: credit.classification = {category = "accepted", location = loc("p.credit":1:8), reason = "accepted: 8 B/element of re-reads (x (3 passes)) become shared-memory reads when the row is kept on chip; only 2 stage(s) of compact partials cross DSMEM"},
// CHECK-SAME: credit.legality = {N = 8192 : i64, smem_limit = 101376 : i64, table = [
// CHECK-SAME: {P = 1 : i64, legal = true, max_N = 25312 : i64, portable = true, scratch_mbarrier = 128 : i64, scratch_sync = 128 : i64, smem = 32896 : i64},
// CHECK-SAME: {P = 2 : i64, legal = true, max_N = 50624 : i64, portable = true, scratch_mbarrier = 128 : i64, scratch_sync = 128 : i64, smem = 16512 : i64},
// CHECK-SAME: {P = 4 : i64, legal = true, max_N = 101248 : i64, portable = true, scratch_mbarrier = 128 : i64, scratch_sync = 128 : i64, smem = 8320 : i64},
// CHECK-SAME: {P = 8 : i64, legal = true, max_N = 202496 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 128 : i64, smem = 4224 : i64}], target = "sm_120", threads = 256 : i64},
// CHECK-SAME: credit.passes = [{pass = "stage 1", reads = ["x"], reads_broadcast = [], reads_scalar = []}, {pass = "stage 2", reads = ["x"], reads_broadcast = [], reads_scalar = []}, {pass = "h", reads = ["x", "dy"], reads_broadcast = ["g"], reads_scalar = []}],
// CHECK-SAME: credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [{{.*}}], kept = ["x"], smem = ["x"], materialized = ["x" by 1], kept_read_late = false, only_h = ["dy", "g"], hoisted = ["g"], prefetch_l2 = ["dy"], geometry = <keep = 4, stages = 2, q_max = 1, q_sum = 2, threads = 256, h_only = 2>>,
// CHECK-SAME: credit.traffic = {L = 2 : i64, baseline = 20 : i64, ceiling = 1.666666666666666{{[0-9]*}} : f64, cluster = 12 : i64, fixed_broadcast_per_element = 4 : i64, fixed_per_row = 0 : i64, keep = 4 : i64, kept = ["x"], outputs = 4 : i64, q = array<i64: 1, 1>, reread = 8 : i64}}
// CHECK-NOT:   credit.neighbor
// CHECK:       %m, %m2 = credit.stage ["m", "m2"] attributes {credit.reads = ["x"], credit.reads_broadcast = []} {
// CHECK-NEXT:    %[[R:.*]] = credit.reduce <max> (%x)
// CHECK-NOT:     credit.reduce
// CHECK:         credit.yield %[[R]], %[[R]] : f32, f32
// CHECK:       %s = credit.stage ["s"] attributes {credit.reads = ["x"], credit.reads_broadcast = []} {
// CHECK-NEXT:    credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32
// CHECK:       credit.apply (%x, %dy, %g, %m, %s, %m2) {credit.reads = ["x", "dy"], credit.reads_broadcast = ["g"]}

// Defaults: sm_90, no N (no smem / legal fields). P = 1: (232448-96)/4 = 58088.
// DEFAULT: credit.legality = {smem_limit = 232448 : i64, table = [{P = 1 : i64, max_N = 58080 : i64, portable = true, scratch_mbarrier = 128 : i64, scratch_sync = 128 : i64}
// DEFAULT-SAME: target = "sm_90", threads = 256 : i64}
credit.kernel @pipeline {
  %x = credit.input "x" row : !credit.row<f32>
  %dy = credit.input "dy" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %c = credit.input "c" scalar : f32
  %dead = credit.stage ["dead"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %n = credit.neighbor %xe [-1] : f32
      credit.yield %n : f32
    }
    credit.yield %r : f32
  } : f32
  %m, %m2 = credit.stage ["m", "m2"] {
    %r1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %r2 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r1, %r2 : f32, f32
  } : f32, f32
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x, %dy, %m) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %de: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      %e = math.exp %d : f32
      credit.yield %e : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %dy, %g, %m, %s, %m2, %c) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %de: f32, %ge: f32, %me: f32, %se: f32, %m2e: f32, %ce: f32):
    %d = arith.subf %xe, %me : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %se : f32
    %pg = arith.mulf %p, %ge : f32
    %t = arith.mulf %de, %m2e : f32
    %u = arith.addf %pg, %t : f32
    credit.yield %u : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("p.credit":1:8)
