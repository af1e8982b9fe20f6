// Regression: an N beyond 32-bit indexing is an error, not an overflow.
// RUN: not credit-opt %s --credit-legality="N=9223372036854775807" 2>&1 | FileCheck %s
// CHECK: error: N
// CHECK-NOT: legal = true
credit.kernel @k {
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
    %d = arith.subf %xe, %me : f32
    credit.yield %d : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
