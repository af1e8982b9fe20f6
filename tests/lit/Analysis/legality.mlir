// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_90 N=65536" | FileCheck %s --check-prefix=SM90
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_90a N=1000" | FileCheck %s --check-prefix=N1000
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_120 N=65536" | FileCheck %s --check-prefix=SM120
// RUN: credit-opt %s -split-input-file --credit-legality="target=sm_100" | FileCheck %s --check-prefix=NON
// RUN: not credit-opt %s -split-input-file --credit-legality="target=sm_70 N=65536" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not credit-opt %s -split-input-file --credit-legality="N=-1" 2>&1 | FileCheck %s --check-prefix=NEG

// credit-legality: Eq. 3, b_keep * slice(N, P) + S_scratch(P) <= S_max, with
// slice(N, P) = roundUp(ceil(N / P), 8) and S_scratch from
// runtime/include/credit/runtime/Layout.h (threads = 256, i.e. 8 warps; every
// region rounded up to 16 bytes):
//   warpPartials 8 * qMax * 4 | ctaPartial qMax * 4 |
//   slots P * qMax * 4 (sync) or P * qSum * 4 (mbarrier) | mbarriers L * 8 (mbarrier only) |
//   loadBars 4*8 per kept input = 32 B (kLoadChunks = 4 bulk-load mbarriers per
//   kept array, numKeptArrays = ceil(b_keep / 4); both protocols)
// max_N (sync) = P * roundDown((S_max - S_scratch_sync) / b_keep, 8).
// P runs over 1, 2, 4, 8 and, where the target allows non-portable clusters
// (sm_90, sm_100), 16.
//
// Kernel @three_kept: x, w, v each read by stage 1 and by h: b_keep = 12.
// Stage 1 has q = 3 (sum x, sum w, sum v), stage 2 q = 1: L = 2, qMax = 3, qSum = 4.
//   warpPartials 8*3*4 = 96 -> 96;  ctaPartial 3*4 = 12 -> 16;  fixed part 112.
//   loadBars: 3 kept inputs * 4*8 = 96 -> 96.
//   sync slots 12P:  P=1 12->16: 112+16+96 = 224 | P=2 24->32: 240 | P=4 48: 256 | P=8 96: 304
//                    | P=16 192: 400
//   mbar slots 16P + mbarriers 2*8 = 16 + loadBars 96:
//                    P=1 16: 240 | P=2 32: 256 | P=4 64: 288 | P=8 128: 352 | P=16 256: 480
//   then padded to the 128-B aligned slice (Layout.h kSliceAlign):
//     sync 256, 256, 256, 384, 512; mbarrier 256, 256, 384, 384, 512
// sm_90, S_max = 232448:
//   P=1:  (232448-256)/12 = 19349.3 -> 19344 -> max_N 19344
//   P=2:  (232448-256)/12 = 19349.3 -> 19344 -> max_N 38688
//   P=4:  (232448-256)/12 = 19349.3 -> 19344 -> max_N 77376
//   P=8:  (232448-384)/12 = 19338.7 -> 19336 -> max_N 154688
//   P=16: (232448-512)/12 = 19328.0 -> 19328 -> max_N 309248
//   N = 65536: slice 65536, 32768, 16384, 8192, 4096 (all multiples of 4)
//     smem = 786432+256 = 786688 (no) | 393216+256 = 393472 (no) | 196608+256 = 196864 (yes)
//          | 98304+384 = 98688 (yes)  | 49152+512 = 49664 (yes)
// SM90-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 232448 : i64, table = [
// SM90-SAME: {P = 1 : i64, legal = false, max_N = 19344 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 256 : i64, smem = 786688 : i64},
// SM90-SAME: {P = 2 : i64, legal = false, max_N = 38688 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 256 : i64, smem = 393472 : i64},
// SM90-SAME: {P = 4 : i64, legal = true, max_N = 77376 : i64, portable = true, scratch_mbarrier = 384 : i64, scratch_sync = 256 : i64, smem = 196864 : i64},
// SM90-SAME: {P = 8 : i64, legal = true, max_N = 154688 : i64, portable = true, scratch_mbarrier = 384 : i64, scratch_sync = 384 : i64, smem = 98688 : i64},
// SM90-SAME: {P = 16 : i64, legal = true, max_N = 309248 : i64, portable = false, scratch_mbarrier = 512 : i64, scratch_sync = 512 : i64, smem = 49664 : i64}],
// SM90-SAME: target = "sm_90", threads = 256 : i64}}
//
// N = 1000 exercises the slice rounding: ceil(1000/P) = 1000, 500, 250, 125, 63
// -> slice 1000, 504, 256, 128, 64 -> smem 12000+256 = 12256 | 6048+256 = 6304
// | 3072+256 = 3328 | 1536+384 = 1920 | 768+512 = 1280 (scratch 224, 240, 256,
// 304, 400 padded to the 128-B aligned slice): all legal. "sm_90a" names the
// sm_90 target.
// N1000-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 1000 : i64, smem_limit = 232448 : i64, table = [
// N1000-SAME: {P = 1 : i64, legal = true, {{.*}} smem = 12256 : i64},
// N1000-SAME: {P = 2 : i64, legal = true, {{.*}} smem = 6304 : i64},
// N1000-SAME: {P = 4 : i64, legal = true, {{.*}} smem = 3328 : i64},
// N1000-SAME: {P = 8 : i64, legal = true, {{.*}} smem = 1920 : i64},
// N1000-SAME: {P = 16 : i64, legal = true, {{.*}} smem = 1280 : i64}],
// N1000-SAME: target = "sm_90", threads = 256 : i64}}
//
// sm_120, S_max = 101376, clusters up to 8 (all portable, no P = 16 row):
//   P=1: (101376-224)/12 = 8429.3 -> 8428 -> 8428    | P=2: (101376-240)/12 = 8428.0 -> 8428 -> 16856
//   P=4: (101376-256)/12 = 8426.7 -> 8424 -> 33696   | P=8: (101376-304)/12 = 8422.7 -> 8420 -> 67360
//   N = 65536: only P = 8 fits (98608 <= 101376; P = 4 needs 196864).
// SM120-LABEL: credit.kernel @three_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 101376 : i64, table = [
// SM120-SAME: {P = 1 : i64, legal = false, max_N = 8424 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 256 : i64, smem = 786688 : i64},
// SM120-SAME: {P = 2 : i64, legal = false, max_N = 16848 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 256 : i64, smem = 393472 : i64},
// SM120-SAME: {P = 4 : i64, legal = false, max_N = 33696 : i64, portable = true, scratch_mbarrier = 384 : i64, scratch_sync = 256 : i64, smem = 196864 : i64},
// SM120-SAME: {P = 8 : i64, legal = true, max_N = 67328 : i64, portable = true, scratch_mbarrier = 384 : i64, scratch_sync = 384 : i64, smem = 98688 : i64}],
// SM120-SAME: target = "sm_120", threads = 256 : i64}}
//
// Without N (sm_100, same limits as sm_90): no N, no smem / legal per row.
// NON-LABEL: credit.kernel @three_kept attributes {credit.legality = {smem_limit = 232448 : i64, table = [
// NON-SAME: {P = 1 : i64, max_N = 19344 : i64, portable = true, scratch_mbarrier = 256 : i64, scratch_sync = 256 : i64},
// NON:      target = "sm_100", threads = 256 : i64}}
//
// An unknown target or a negative N is an error on the kernel.
// BAD: error: unknown target 'sm_70' (expected sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120)
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

// Nothing kept (b_keep = 0, L = 0, qMax = qSum = 0; no kept input, so no
// loadBars either): S_scratch = 0 and max_N
// is the 32-bit cap 2147483647 rounded down to a multiple of 8P:
//   P=1: 2147483640 | P=2: 2147483632 | P=4: 2147483616 | P=8: 2147483584 | P=16: 2147483520
// At N = 65536 the keep term is 0: smem 0, legal for every P.
// SM90-LABEL: credit.kernel @nothing_kept attributes {credit.legality = {N = 65536 : i64, smem_limit = 232448 : i64, table = [
// SM90-SAME: {P = 1 : i64, legal = true, max_N = 2147483640 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 2 : i64, legal = true, max_N = 2147483632 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 4 : i64, legal = true, max_N = 2147483616 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 8 : i64, legal = true, max_N = 2147483584 : i64, portable = true, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64},
// SM90-SAME: {P = 16 : i64, legal = true, max_N = 2147483520 : i64, portable = false, scratch_mbarrier = 0 : i64, scratch_sync = 0 : i64, smem = 0 : i64}],
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
