// Regression: a negative N is reported with its value.
// RUN: not credit-opt %s --credit-legality="N=-1" 2>&1 | FileCheck %s
// CHECK: error: N must be positive (at most 2147483647; 0 means no N), got -1
credit.kernel @k {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
