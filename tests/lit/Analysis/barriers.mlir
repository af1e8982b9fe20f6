// RUN: credit-opt %s -split-input-file --credit-barriers | FileCheck %s
// RUN: credit-opt %s -split-input-file --credit-analyze=stage-opt=false | FileCheck %s --check-prefix=CANON

// credit-barriers: K, the cluster-wide barriers per row.
//   sync (the paper's replicated all-gather): 2 per stage, K = 2L;
//   mbarrier: one cluster barrier at set-up, K = 1 if L > 0, else 0.

// L = 0: K = 0 for both protocols.
// CHECK-LABEL: credit.kernel @no_stage attributes {credit.barriers = {mbarrier = 0 : i64, sync = 0 : i64}}
// CANON-LABEL: credit.kernel @no_stage attributes {
// CANON-SAME:    credit.barriers = {mbarrier = 0 : i64, sync = 0 : i64}
credit.kernel @no_stage {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// L = 1 (two statistics in one stage still make one stage): sync 2, mbarrier 1.
// CHECK-LABEL: credit.kernel @one_stage attributes {credit.barriers = {mbarrier = 1 : i64, sync = 2 : i64}}
// CANON-LABEL: credit.kernel @one_stage attributes {
// CANON-SAME:    credit.barriers = {mbarrier = 1 : i64, sync = 2 : i64}
credit.kernel @one_stage {
  %x = credit.input "x" row : !credit.row<f32>
  %a, %b = credit.stage ["a", "b"] {
    %r1 = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %r2 = credit.reduce <min> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r1, %r2 : f32, f32
  } : f32, f32
  %y = credit.apply (%x, %a, %b) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %ae: f32, %be: f32):
    %d = arith.subf %xe, %be : f32
    %r = arith.subf %ae, %be : f32
    %t = arith.divf %d, %r : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Three stages (softmax-logits shape): sync 2 * 3 = 6, mbarrier 1. The first
// stage's statistic is dead: the bare pass still counts its stage (L = 3, it
// does not canonicalize), the pipeline deletes it first (L = 2: sync 4).
// CHECK-LABEL: credit.kernel @three_stages attributes {credit.barriers = {mbarrier = 1 : i64, sync = 6 : i64}}
// CANON-LABEL: credit.kernel @three_stages attributes {
// CANON-SAME:    credit.barriers = {mbarrier = 1 : i64, sync = 4 : i64}
credit.kernel @three_stages {
  %x = credit.input "x" row : !credit.row<f32>
  %dead = credit.stage ["dead"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      %e = math.exp %d : f32
      credit.yield %e : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %m, %s) : (!credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32, %se: f32):
    %d = arith.subf %xe, %me : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %se : f32
    credit.yield %p : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
