// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_90 N=65536" | FileCheck %s --check-prefix=SM90
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_90a N=1000" | FileCheck %s --check-prefix=N1000
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_120 N=65536" | FileCheck %s --check-prefix=SM120
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_100" | FileCheck %s --check-prefix=NON
// RUN: not credit-opt %s -split-input-file --credit-legality="target=sm_80 N=65536" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not credit-opt %s -split-input-file --credit-legality="N=-1" 2>&1 | FileCheck %s --check-prefix=NEG

// credit-legality: Eq. 3, b_keep * slice(N, P) + S_scratch(P) <= S_max, with
// slice(N, P) = roundUp(ceil(N / P), 4) and S_scratch from
// runtime/include/credit/runtime/Layout.h (threads = 256, i.e. 8 warps; every
// region rounded up to 16 bytes):
//   warpPartials 8 * qMax * 4 | ctaPartial qMax * 4 |
//   slots P * qMax * 4 (sync) or P * qSum * 4 (mbarrier) | mbarriers L * 8 (mbarrier only)
// max_N (sync) = P * roundDown((S_max - S_scratch_sync) / b_keep, 4).
// P runs over 1, 2, 4, 8 and, where the target allows non-portable clusters
// (sm_90, sm_100), 16.
//
// Kernel @three_kept: x, w, v each read by stage 1 and by h: b_keep = 12.
// Stage 1 has q = 3 (sum x, sum w, sum v), stage 2 q = 1: L = 2, qMax = 3, qSum = 4.
//   warpPartials 8*3*4 = 96 -> 96;  ctaPartial 3*4 = 12 -> 16;  fixed part 112.
//   sync slots 12P:  P=1 12->16: 128 | P=2 24->32: 144 | P=4 48: 160 | P=8 96: 208 | P=16 192: 304
//   mbar slots 16P + mbarriers 2*8 = 16:
//                    P=1 16: 144 | P=2 32: 160 | P=4 64: 192 | P=8 128: 256 | P=16 256: 384
// sm_90, S_max = 232448:
//   P=1:  (232448-128)/12 = 19360.0 -> 19360 -> max_N 19360
//   P=2:  (232448-144)/12 = 19358.7 -> 19356 -> max_N 38712
//   P=4:  (232448-160)/12 = 19357.3 -> 19356 -> max_N 77424
//   P=8:  (232448-208)/12 = 19353.3 -> 19352 -> max_N 154816
//   P=16: (232448-304)/12 = 19345.3 -> 19344 -> max_N 309504
//   N = 65536: slice 65536, 32768, 16384, 8192, 4096 (all multiples of 4)
//     smem = 786432+128 = 786560 (no) | 393216+144 = 393360 (no) | 196608+160 = 196768 (yes)
//          | 98304+208 = 98512 (yes)  | 49152+304 = 49456 (yes)
// SM90-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 232448 : i64, table = [
// SM90-SAME: {P = 1 : i64, legal = false, max_N = 19360 : i64, portable = true, scratch_mbarrier = 144 : i64, scratch_sync = 128 : i64, smem = 786560 : i64},
// SM90-SAME: {P = 2 : i64, legal = false, max_N = 38712 : i64, portable = true, scratch_mbarrier = 160 : i64, scratch_sync = 144 : i64, smem = 393360 : i64},
// SM90-SAME: {P = 4 : i64, legal = true, max_N = 77424 : i64, portable = true, scratch_mbarrier = 192 : i64, scratch_sync = 160 : i64, smem = 196768 : i64},
// SM90-SAME: {P = 8 : i64, legal = true, max_N = 154816 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 208 : i64, smem = 98512 : i64},
// SM90-SAME: {P = 16 : i64, legal = true, max_N = 309504 : i64, portable = false, scratch_mbarrier = 384 : i64, scratch_sync = 304 : i64, smem = 49456 : i64}],
// SM90-SAME: target = "sm_90", threads = 256 : i64}}
//
// N = 1000 exercises the slice rounding: ceil(1000/P) = 1000, 500, 250, 125, 63
// -> slice 1000, 500, 252, 128, 64 -> smem 12000+128 = 12128 | 6000+144 = 6144
// | 3024+160 = 3184 | 1536+208 = 1744 | 768+304 = 1072: all legal. "sm_90a"
// names the sm_90 target.
// N1000-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 1000 : i64, smem_limit = 232448 : i64, table = [
// N1000-SAME: {P = 1 : i64, legal = true, {{.*}} smem = 12128 : i64},
// N1000-SAME: {P = 2 : i64, legal = true, {{.*}} smem = 6144 : i64},
// N1000-SAME: {P = 4 : i64, legal = true, {{.*}} smem = 3184 : i64},
// N1000-SAME: {P = 8 : i64, legal = true, {{.*}} smem = 1744 : i64},
// N1000-SAME: {P = 16 : i64, legal = true, {{.*}} smem = 1072 : i64}],
// N1000-SAME: target = "sm_90", threads = 256 : i64}}
//
// sm_120, S_max = 101376, clusters up to 8 (all portable, no P = 16 row):
//   P=1: (101376-128)/12 = 8437.3 -> 8436 -> 8436    | P=2: (101376-144)/12 = 8436.0 -> 8436 -> 16872
//   P=4: (101376-160)/12 = 8434.7 -> 8432 -> 33728   | P=8: (101376-208)/12 = 8430.7 -> 8428 -> 67424
//   N = 65536: only P = 8 fits (98512 <= 101376; P = 4 needs 196768).
// SM120-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 101376 : i64, table = [
// SM120-SAME: {P = 1 : i64, legal = false, max_N = 8436 : i64, portable = true, scratch_mbarrier = 144 : i64, scratch_sync = 128 : i64, smem = 786560 : i64},
// SM120-SAME: {P = 2 : i64, legal = false, max_N = 16872 : i64, portable = true, scratch_mbarrier = 160 : i64, scratch_sync = 144 : i64, smem = 393360 : i64},
// SM120-SAME: {P = 4 : i64, legal = false, max_N = 33728 : i64, portable = true, scratch_mbarrier = 192 : i64, scratch_sync = 160 : i64, smem = 196768 : i64},
// SM120-SAME: {P = 8 : i64, legal = true, max_N = 67424 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 208 : i64, smem = 98512 : i64}],
// SM120-SAME: target = "sm_120", threads = 256 : i64}}
//
// Without N (sm_100, same limits as sm_90): no N, no smem / legal per row.
// NON-LABEL: credit.kernel @three_kept attributes {credit.legality = {smem_limit = 232448 : i64, table = [
// NON-SAME: {P = 1 : i64, max_N = 19360 : i64, portable = true, scratch_mbarrier = 144 : i64, scratch_sync = 128 : i64},
// NON:      target = "sm_100", threads = 256 : i64}}
//
// An unknown target or a negative N is an error on the kernel.
// BAD: error: unknown target 'sm_80' (expected sm_90, sm_100 or sm_120)
// NEG: error: N must be positive
// (The value it prints is wrong, see legality-negative-n.mlir.)
credit.kernel @three_kept {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %v = credit.input "v" row : !credit.row<f32>
  %sx, %sw, %sv = credit.stage ["sx", "sw", "sv"] {
    %a = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%e: f32):
      credit.yield %e : f32
    }
    %b = credit.reduce <sum> (%w) : (!credit.row<f32>) -> f32 {
    ^bb0(%e: f32):
      credit.yield %e : f32
    }
    %c = credit.reduce <sum> (%v) : (!credit.row<f32>) -> f32 {
    ^bb0(%e: f32):
      credit.yield %e : f32
    }
    credit.yield %a, %b, %c : f32, f32, f32
  } : f32, f32, f32
  %t = credit.stage ["t"] {
    %r = credit.reduce <sum> (%x, %w, %sx) : (!credit.row<f32>, !credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %we: f32, %s: f32):
      %p = arith.mulf %xe, %we : f32
      %d = arith.subf %p, %s : f32
      credit.yield %d : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %w, %v, %sw, %sv, %t) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %we: f32, %ve: f32, %a: f32, %b: f32, %c: f32):
    %p = arith.mulf %xe, %a : f32
    %q = arith.mulf %we, %b : f32
    %r = arith.mulf %ve, %c : f32
    %s = arith.addf %p, %q : f32
    %u = arith.addf %s, %r : f32
    credit.yield %u : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Nothing kept (b_keep = 0, L = 0, qMax = qSum = 0): S_scratch = 0 and max_N
// is the 32-bit cap 2147483647 rounded down to a multiple of 4P:
//   P=1: 2147483644 | P=2: 2147483640 | P=4: 2147483632 | P=8: 2147483616 | P=16: 2147483584
// At N = 65536 the keep term is 0: smem 0, legal for every P.
// SM90-LABEL: credit.kernel @nothing_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 232448 : i64, table = [
// SM90-SAME: {P = 1 : i64, legal = true, max_N = 2147483644 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 2 : i64, legal = true, max_N = 2147483640 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 4 : i64, legal = true, max_N = 2147483632 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 8 : i64, legal = true, max_N = 2147483616 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 16 : i64, legal = true, max_N = 2147483584 : i64, portable = false, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64}],
// SM90-SAME: target = "sm_90", threads = 256 : i64}}
credit.kernel @nothing_kept {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %t = math.tanh %xe : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
