// RUN: credit-opt %s -split-input-file --credit-pass-access | FileCheck %s

// credit-pass-access: which inputs each pass (every stage, then h) reads. The
// answer follows the dataflow, not the operand lists: an operand whose region
// argument is never used, a reduction whose statistic nothing uses and a stage
// whose results are dead read nothing. No canonicalization runs here, so the
// dead code is still in the IR when the pass looks at it.

// Kernel summary: one entry per pass, in program order.
// CHECK-LABEL: credit.kernel @dataflow attributes {credit.passes = [
// CHECK-SAME:    {pass = "stage 1", reads = ["x"], reads_broadcast = [], reads_scalar = ["s"]},
// CHECK-SAME:    {pass = "stage 2", reads = ["x"], reads_broadcast = [], reads_scalar = []},
// CHECK-SAME:    {pass = "h", reads = ["x", "w"], reads_broadcast = ["g"], reads_scalar = ["s"]}]}
//
// Stage 1: its reduction gets %x, %w and %g but only uses %x; the scalar %s
// reaches the statistic through the stage's row-level math.
// CHECK:       %m = credit.stage ["m"] attributes {credit.reads = ["x"], credit.reads_broadcast = []}
// Stage 2: `a` reads x, `b` reads w but nothing uses `b`.
// CHECK:       %a, %b = credit.stage ["a", "b"] attributes {credit.reads = ["x"], credit.reads_broadcast = []}
// h: reads x, w (declaration order, not operand order), the broadcast g; the
// operand %v is never used by the region.
// CHECK:       credit.apply {{.*}} {credit.reads = ["x", "w"], credit.reads_broadcast = ["g"]}
credit.kernel @dataflow {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %v = credit.input "v" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.input "s" scalar : f32
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x, %w, %g) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %we: f32, %ge: f32):
      %t = math.absf %xe : f32
      credit.yield %t : f32
    }
    %rs = arith.mulf %r, %s : f32
    credit.yield %rs : f32
  } : f32
  %a, %b = credit.stage ["a", "b"] {
    %ra = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      credit.yield %d : f32
    }
    %rb = credit.reduce <sum> (%w) : (!credit.row<f32>) -> f32 {
    ^bb0(%we: f32):
      credit.yield %we : f32
    }
    credit.yield %ra, %rb : f32, f32
  } : f32, f32
  %y = credit.apply (%w, %v, %x, %g, %a, %s) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%we: f32, %ve: f32, %xe: f32, %ge: f32, %ae: f32, %se: f32):
    %p = arith.mulf %xe, %we : f32
    %q = arith.mulf %p, %ge : f32
    %r = arith.subf %q, %ae : f32
    %t = arith.mulf %r, %se : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// A stage whose statistic nothing uses is still a pass here (canonicalization
// would delete it first), but it reads nothing. A reduction that is computed
// but not yielded (dead inside the stage) reads nothing either.
// CHECK-LABEL: credit.kernel @dead attributes {credit.passes = [
// CHECK-SAME:    {pass = "stage 1", reads = [], reads_broadcast = [], reads_scalar = []},
// CHECK-SAME:    {pass = "stage 2", reads = ["x"], reads_broadcast = [], reads_scalar = []},
// CHECK-SAME:    {pass = "h", reads = ["x"], reads_broadcast = [], reads_scalar = []}]}
// CHECK:       %unused = credit.stage ["unused"] attributes {credit.reads = [], credit.reads_broadcast = []}
// CHECK:       %m = credit.stage ["m"] attributes {credit.reads = ["x"], credit.reads_broadcast = []}
// CHECK:       credit.apply {{.*}} {credit.reads = ["x"], credit.reads_broadcast = []}
credit.kernel @dead {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %unused = credit.stage ["unused"] {
    %r = credit.reduce <sum> (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %we: f32):
      %p = arith.mulf %xe, %we : f32
      credit.yield %p : f32
    }
    credit.yield %r : f32
  } : f32
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %dead = credit.reduce <sum> (%w) : (!credit.row<f32>) -> f32 {
    ^bb0(%we: f32):
      credit.yield %we : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %m) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32):
    %d = arith.subf %xe, %me : f32
    credit.yield %d : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// No apply (only a per-row output): the stage is the only pass. A per-row
// scalar used inside the reduction is read through the region argument.
// CHECK-LABEL: credit.kernel @row_output attributes {credit.passes = [
// CHECK-SAME:    {pass = "stage 1", reads = ["x"], reads_broadcast = [], reads_scalar = ["c"]}]}
// CHECK-NOT:   credit.apply
credit.kernel @row_output {
  %x = credit.input "x" row : !credit.row<f32>
  %c = credit.input "c" scalar : f32
  %t = credit.stage ["t"] {
    %r = credit.reduce <sum> (%x, %c) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %ce: f32):
      %p = arith.mulf %xe, %ce : f32
      credit.yield %p : f32
    }
    credit.yield %r : f32
  } : f32
  credit.output "t" %t : f32
}
