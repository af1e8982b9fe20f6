// RUN: credit-opt %s -split-input-file --credit-classify --mlir-print-local-scope | FileCheck %s

// credit-classify: accepted, or one rejection category with a reason and the
// location of the construct. Structural constructs (scan, stencil, selection)
// decide first, the earliest in source order (line, then column) winning; then
// elementwise (no stage); then one-pass (no row input read by two passes).
// The pass does not canonicalize: dead code it is given still counts (the
// pipeline removes it first, see analyze.mlir).

// CHECK-LABEL: credit.kernel @accepted attributes {credit.classification = {
// CHECK-SAME:    category = "accepted",
// CHECK-SAME:    location = loc("k.credit":1:8),
// CHECK-SAME:    reason = "accepted: 4 B/element of re-reads (x (2 passes)) become shared-memory reads when the row is kept on chip; only 1 stage(s) of compact partials cross DSMEM"}}
credit.kernel @accepted {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %m) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32):
    // A neighbour at offset 0 is the element itself: not a stencil.
    %n = credit.neighbor %xe [0] : f32
    %d = arith.subf %n, %me : f32
    credit.yield %d : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("k.credit":1:8)

// -----

// A scan (line 8) and a stencil (line 9): the scan comes first.
// CHECK-LABEL: credit.kernel @scan attributes {credit.classification = {
// CHECK-SAME:    category = "scan", location = loc("s.credit":8:7),
// CHECK-SAME:    reason = "scan: 'scan_max' is a prefix scan: {{.*}}(rule: scans are rejected; ordered dependencies grow K)"}}
credit.kernel @scan {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %s = credit.scan <max> %xe : f32 loc("s.credit":8:7)
    %n = credit.neighbor %xe [1] : f32 loc("s.credit":9:3)
    %t = arith.addf %s, %n : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("s.credit":1:8)

// -----

// Same line: the stencil's column (5) precedes the scan's (20) even though the
// scan op comes first in the IR.
// CHECK-LABEL: credit.kernel @stencil attributes {credit.classification = {
// CHECK-SAME:    category = "stencil", location = loc("t.credit":4:5),
// CHECK-SAME:    reason = "stencil: 'x[i-3]' reads a neighbouring element: {{.*}}(rule: only compact per-stage partials may cross DSMEM)"}}
credit.kernel @stencil {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %s = credit.scan <sum> %xe : f32 loc("t.credit":4:20)
    %n = credit.neighbor %xe [-3] : f32 loc("t.credit":4:5)
    %t = arith.addf %s, %n : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("t.credit":1:8)

// -----

// Selections: topk in a stage, before a later sort in h.
// CHECK-LABEL: credit.kernel @topk attributes {credit.classification = {
// CHECK-SAME:    category = "selection", location = loc("u.credit":5:15),
// CHECK-SAME:    reason = "selection: 'topk' is a selection, not an associative reduction: {{.*}}(rule: selections are rejected)"}}
credit.kernel @topk {
  %x = credit.input "x" row : !credit.row<f32>
  %t = credit.stage ["t"] {
    %r = credit.select <topk, 8> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    } loc("u.credit":5:15)
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %t) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %te: f32):
    %o = credit.sort %xe : f32 loc("u.credit":6:7)
    %d = arith.subf %o, %te : f32
    credit.yield %d : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("u.credit":1:8)

// -----

// CHECK-LABEL: credit.kernel @sort attributes {credit.classification = {
// CHECK-SAME:    category = "selection", location = loc("v.credit":6:7),
// CHECK-SAME:    reason = "selection: 'sort' orders the whole row: {{.*}}(rule: selections are rejected)"}}
credit.kernel @sort {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %o = credit.sort %xe : f32 loc("v.credit":6:7)
    credit.yield %o : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("v.credit":1:8)

// -----

// A structural construct wins over the traffic rules: this median kernel has
// no re-read at all, but is reported as a selection.
// CHECK-LABEL: credit.kernel @median attributes {credit.classification = {
// CHECK-SAME:    category = "selection", location = loc("w.credit":3:17),
// CHECK-SAME:    reason = "selection: 'median' is a selection, {{.*}}"}}
credit.kernel @median {
  %x = credit.input "x" row : !credit.row<f32>
  %med = credit.stage ["med"] {
    %r = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    } loc("w.credit":3:17)
    credit.yield %r : f32
  } : f32
  credit.output "med" %med : f32
} loc("w.credit":1:8)

// -----

// No stage: elementwise, located at the first output.
// CHECK-LABEL: credit.kernel @elementwise attributes {credit.classification = {
// CHECK-SAME:    category = "elementwise", location = loc("e.credit":6:3),
// CHECK-SAME:    reason = "elementwise: no stage computes a per-row statistic, so every element is read once and nothing is re-read (b_reread = 0); clustering cannot reduce traffic"}}
credit.kernel @elementwise {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %t = math.tanh %xe : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32> loc("e.credit":6:3)
} loc("e.credit":1:8)

// -----

// Stage reads x, h reads only dy (the x operand of the apply is unused):
// one-pass, located at the first reduction of the first stage; the reason
// lists what each pass reads.
// CHECK-LABEL: credit.kernel @one_pass attributes {credit.classification = {
// CHECK-SAME:    category = "one-pass", location = loc("o.credit":8:22),
// CHECK-SAME:    reason = "one-pass: no row input is read by more than one pass (stage 1 reads x; h reads dy), so b_reread = 0: the row already crosses HBM once and there is nothing to amortize"}}
credit.kernel @one_pass {
  %x = credit.input "x" row : !credit.row<f32>
  %dy = credit.input "dy" row : !credit.row<f32>
  %n = credit.stage ["n"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    } loc("o.credit":8:22)
    %s = math.sqrt %r : f32
    credit.yield %s : f32
  } : f32 loc("o.credit":8:3)
  %y = credit.apply (%x, %dy, %n) : (!credit.row<f32>, !credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %de: f32, %ne: f32):
    %q = arith.divf %de, %ne : f32
    credit.yield %q : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("o.credit":4:8)

// -----

// Dead code still counts for the bare pass: the stencil sits in a stage nobody
// uses. (--credit-analyze removes the stage first and accepts the kernel.)
// CHECK-LABEL: credit.kernel @dead_stencil attributes {credit.classification = {
// CHECK-SAME:    category = "stencil", location = loc("d.credit":5:19)
credit.kernel @dead_stencil {
  %x = credit.input "x" row : !credit.row<f32>
  %unused = credit.stage ["unused"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %n = credit.neighbor %xe [-1] : f32 loc("d.credit":5:19)
      credit.yield %n : f32
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
  %y = credit.apply (%x, %m) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %me: f32):
    %d = arith.subf %xe, %me : f32
    credit.yield %d : f32
  }
  credit.output "y" %y : !credit.row<f32>
} loc("d.credit":1:8)
