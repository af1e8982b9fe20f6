// RUN: credit-opt %s -split-input-file -canonicalize | FileCheck %s
// RUN: credit-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=CSE

// Unused element arguments disappear with their operands, so the operand list
// of reduce / select / apply is exactly the set of values the region reads.

// CHECK-LABEL: credit.kernel @unused_args
// CHECK:         %[[S:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XE]], %[[XE]] : f32
// CHECK-NEXT:      credit.yield %[[P]] : f32
// CHECK-NEXT:    }
// CHECK:         credit.select <quantile, 0.5> (%w) : (!credit.row<f32>) -> f32 {
// CHECK-NEXT:    ^bb0(%[[WE:.*]]: f32):
// CHECK-NEXT:      credit.yield %[[WE]] : f32
// CHECK:         credit.apply (%x, %eps) : (!credit.row<f32>, f32) -> !credit.row<f32> {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[E:.*]]: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[XE]], %[[E]] : f32
// CHECK-NEXT:      credit.yield %[[T]] : f32
credit.kernel @unused_args {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" broadcast : !credit.row<f32>
  %eps = credit.param "eps" = 1.0e-05 : f32
  %n = credit.row_width : f32
  %a, %b = credit.stage ["a", "b"] {
    %s = credit.reduce <sum> (%w, %x, %eps, %n) : (!credit.row<f32>, !credit.row<f32>, f32, f32) -> f32 {
    ^bb0(%we: f32, %xe: f32, %e: f32, %nn: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %q = credit.select <quantile, 0.5> (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %we: f32):
      credit.yield %we : f32
    }
    credit.yield %s, %q : f32, f32
  } : f32, f32
  %y = credit.apply (%w, %x, %a, %eps) : (!credit.row<f32>, !credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%we: f32, %xe: f32, %ae: f32, %e: f32):
    %t = arith.addf %xe, %e : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "a" %a : f32
  credit.output "b" %b : f32
}

// -----

// The same SSA value passed twice becomes one operand / one argument.

// CHECK-LABEL: credit.kernel @duplicate_operands
// CHECK:         credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[ME:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[D]], %[[XE]] : f32
// CHECK-NEXT:      credit.yield %[[P]] : f32
// CHECK:         credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:      %[[L:.*]] = credit.neighbor %[[XE]] [-1] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[XE]], %[[L]] : f32
// CHECK-NEXT:      credit.yield %[[T]] : f32
credit.kernel @duplicate_operands {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.input "m" scalar : f32
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x, %m, %x, %m) : (!credit.row<f32>, f32, !credit.row<f32>, f32) -> f32 {
    ^bb0(%x1: f32, %m1: f32, %x2: f32, %m2: f32):
      %d = arith.subf %x1, %m2 : f32
      %p = arith.mulf %d, %x2 : f32
      credit.yield %p : f32
    }
    credit.yield %s : f32
  } : f32
  %y = credit.apply (%x, %x) : (!credit.row<f32>, !credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%x1: f32, %x2: f32):
    %l = credit.neighbor %x2 [-1] : f32
    %t = arith.addf %x1, %l : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "a" %a : f32
}

// -----

// A stage whose results are unused is dead; unused results of a live stage
// are dropped (with their names and the reductions feeding them); a stage
// left without reductions is inlined into the kernel.

// CHECK-LABEL: credit.kernel @dead_stages
// CHECK-NOT:     "dead"
// CHECK:         %mu = credit.stage ["mu"] {
// CHECK-NEXT:      %[[S:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CHECK:           %[[M:.*]] = arith.divf %[[S]], %N : f32
// CHECK-NEXT:      credit.yield %[[M]] : f32
// CHECK-NEXT:    } : f32
// CHECK-NOT:     credit.stage
// CHECK-NOT:     credit.reduce <max>
// CHECK:         %[[H:.*]] = arith.mulf %mu, %N : f32
// CHECK-NEXT:    credit.output "mu" %mu : f32
// CHECK-NEXT:    credit.output "h" %[[H]] : f32
// CHECK-NEXT:  }
credit.kernel @dead_stages {
  %x = credit.input "x" row : !credit.row<f32>
  %n = credit.row_width : f32
  %mu, %unused = credit.stage ["mu", "unused"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %s2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %m = arith.divf %s, %n : f32
    credit.yield %m, %s2 : f32, f32
  } : f32, f32
  %dead = credit.stage ["dead"] {
    %s = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
  %mx, %h = credit.stage ["mx", "h"] {
    %s = credit.reduce <max> (%x, %mu) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      credit.yield %d : f32
    }
    %hh = arith.mulf %mu, %n : f32
    credit.yield %s, %hh : f32, f32
  } : f32, f32
  credit.output "mu" %mu : f32
  credit.output "h" %h : f32
}

// -----

// Outputs and the apply that feeds them stay; element-region ops whose value
// is unused go.

// CHECK-LABEL: credit.kernel @outputs_stay
// CHECK:         credit.apply (%x)
// CHECK-NOT:     credit.scan
// CHECK-NOT:     credit.sort
// CHECK:         credit.output "y"
credit.kernel @outputs_stay {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %p = credit.scan <sum> %xe : f32
    %o = credit.sort %xe : f32
    credit.yield %xe : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Inputs are part of the kernel's signature: never removed, even if unused.
// Unused params and row_width are.

// CHECK-LABEL: credit.kernel @unused_inputs_stay
// CHECK-NEXT:    %x = credit.input "x" row : !credit.row<f32>
// CHECK-NEXT:    %g = credit.input "g" broadcast : !credit.row<f32>
// CHECK-NEXT:    %s = credit.input "s" scalar : f32
// CHECK-NEXT:    credit.output "x2" %x : !credit.row<f32>
// CHECK-NEXT:  }
credit.kernel @unused_inputs_stay {
  %x = credit.input "x" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.input "s" scalar : f32
  %p = credit.param "p" = 2.0 : f32
  %n = credit.row_width : f32
  credit.output "x2" %x : !credit.row<f32>
}

// -----

// CSE merges identical reductions of a stage (after canonicalization made
// their operand lists equal), but not different kinds, and not across stages.

// CSE-LABEL: credit.kernel @cse_reductions
// CSE:         %a, %b = credit.stage ["a", "b"] {
// CSE-NEXT:      %[[S:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CSE-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CSE-NEXT:        %[[P:.*]] = arith.mulf %[[XE]], %[[XE]] : f32
// CSE-NEXT:        credit.yield %[[P]] : f32
// CSE-NEXT:      }
// CSE-NEXT:      %[[M:.*]] = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
// CSE:           %[[T:.*]] = arith.addf %[[S]], %[[S]] : f32
// CSE-NEXT:      credit.yield %[[T]], %[[M]] : f32, f32
// CSE-NEXT:    } : f32, f32
// CSE-NEXT:    %c = credit.stage ["c"] {
// CSE-NEXT:      %[[S2:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CSE:           %[[U:.*]] = arith.addf %[[S2]], %a : f32
// CSE-NEXT:      credit.yield %[[U]] : f32
credit.kernel @cse_reductions {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" broadcast : !credit.row<f32>
  %a, %b = credit.stage ["a", "b"] {
    %s1 = credit.reduce <sum> (%x, %w) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %we: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %s2 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %m = credit.reduce <max> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %t = arith.addf %s1, %s2 : f32
    credit.yield %t, %m : f32, f32
  } : f32, f32
  %c = credit.stage ["c"] {
    %s3 = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      %p = arith.mulf %xe, %xe : f32
      credit.yield %p : f32
    }
    %u = arith.addf %s3, %a : f32
    credit.yield %u : f32
  } : f32
  credit.output "b" %b : f32
  credit.output "c" %c : f32
}
