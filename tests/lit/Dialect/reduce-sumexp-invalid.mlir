// RUN: credit-opt %s -split-input-file -verify-diagnostics

credit.kernel @no_sum {
  %x = credit.input "x" row : !credit.row<f32>
  %m = credit.stage ["m"] {
    // expected-error @+1 {{'credit.reduce_sumexp' op expects the max and at least one sum, got 1 result(s)}}
    %r = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32) {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  credit.output "m" %m : f32
}

// -----

credit.kernel @weights_mismatch {
  %x = credit.input "x" row : !credit.row<f32>
  %m, %s = credit.stage ["m", "s"] {
    // expected-error @+1 {{'credit.reduce_sumexp' op element region must yield the pivot and one weight per sum (2 f32 values)}}
    %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r#0, %r#1 : f32, f32
  } : f32, f32
  credit.output "m" %m : f32
  credit.output "s" %s : f32
}

// -----

credit.kernel @outside_stage {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{'credit.reduce_sumexp' op expects parent op 'credit.stage'}}
  %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
  ^bb0(%xe: f32):
    %one = arith.constant 1.0 : f32
    credit.yield %xe, %one : f32, f32
  }
  credit.output "m" %r#0 : f32
}

// -----

credit.kernel @nested {
  %x = credit.input "x" row : !credit.row<f32>
  %m, %s = credit.stage ["m", "s"] {
    %r:2 = credit.reduce_sumexp (%x) : (!credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32):
      // expected-error @+1 {{'credit.reduce' op reduction nested in a reduction}}
      %in = credit.reduce <sum> (%xe) : (f32) -> f32 {
      ^bb0(%e: f32):
        credit.yield %e : f32
      }
      credit.yield %xe, %in : f32, f32
    }
    credit.yield %r#0, %r#1 : f32, f32
  } : f32, f32
  credit.output "m" %m : f32
  credit.output "s" %s : f32
}
