// RUN: credit-opt %s -split-input-file -verify-diagnostics

credit.kernel @two_terms {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    // expected-error @+1 {{'credit.reduce_moments' op element region must yield one f32 term}}
    %n, %sum, %m2 = credit.reduce_moments (%x) : (!credit.row<f32>) -> (f32, f32, f32) {
    ^bb0(%xe: f32):
      credit.yield %xe, %xe : f32, f32
    }
    credit.yield %m2 : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.subf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
