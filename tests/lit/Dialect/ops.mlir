// RUN: credit-opt %s | FileCheck %s
// RUN: credit-opt %s | credit-opt | FileCheck %s
// RUN: credit-opt %s -mlir-print-op-generic | credit-opt | FileCheck %s

// Round trip of the credit dialect: a layernorm kernel and a kernel that uses
// every op, through the custom and the generic form.

// CHECK-LABEL: credit.kernel @layernorm {
// CHECK-NEXT:    %x = credit.input "x" row : !credit.row<f32>
// CHECK-NEXT:    %w = credit.input "w" broadcast : !credit.row<f32>
// CHECK-NEXT:    %b = credit.input "b" broadcast : !credit.row<f32>
// CHECK-NEXT:    %eps = credit.param "eps" = 1.0e-05 : f32
// CHECK-NEXT:    %temp = credit.param "temp" : f32
// CHECK-NEXT:    %N = credit.row_width : f32
// CHECK-NEXT:    %mu, %s = credit.stage ["mu", "s"] {
// CHECK-NEXT:      %[[SUM:.*]] = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32):
// CHECK-NEXT:        credit.yield %[[XE]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[M:.*]] = arith.divf %[[SUM]], %N : f32
// CHECK-NEXT:      credit.yield %[[M]], %[[SUM]] : f32, f32
// CHECK-NEXT:    } : f32, f32
// CHECK-NEXT:    %var = credit.stage ["var"] {
// CHECK-NEXT:      %[[SS:.*]] = credit.reduce <sum> (%x, %mu) : (!credit.row<f32>, f32) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[ME:.*]]: f32):
// CHECK-NEXT:        %[[D:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:        %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:        credit.yield %[[D2]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[V:.*]] = arith.divf %[[SS]], %N : f32
// CHECK-NEXT:      credit.yield %[[V]] : f32
// CHECK-NEXT:    } : f32
// CHECK-NEXT:    %[[Y:.*]] = credit.apply (%x, %w, %b, %mu, %var, %eps) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[WE:.*]]: f32, %[[BE:.*]]: f32, %[[M:.*]]: f32, %[[V:.*]]: f32, %[[E:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XE]], %[[M]] : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[V]], %[[E]] : f32
// CHECK-NEXT:      %[[R:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[D]], %[[R]] : f32
// CHECK-NEXT:      %[[T2:.*]] = arith.mulf %[[T]], %[[WE]] : f32
// CHECK-NEXT:      %[[T3:.*]] = arith.addf %[[T2]], %[[BE]] : f32
// CHECK-NEXT:      credit.yield %[[T3]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    credit.output "y" %[[Y]] : !credit.row<f32>
// CHECK-NEXT:    credit.output "mean" %mu : f32
// CHECK-NEXT:  }
credit.kernel @layernorm {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" broadcast : !credit.row<f32>
  %b = credit.input "b" broadcast : !credit.row<f32>
  %eps = credit.param "eps" = 1.0e-05 : f32
  %temp = credit.param "temp" : f32
  %n = credit.row_width : f32
  %mu, %s = credit.stage ["mu", "s"] {
    %sum = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %m = arith.divf %sum, %n : f32
    credit.yield %m, %sum : f32, f32
  } : f32, f32
  %var = credit.stage ["var"] {
    %ss = credit.reduce <sum> (%x, %mu) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      %d2 = arith.mulf %d, %d : f32
      credit.yield %d2 : f32
    }
    %v = arith.divf %ss, %n : f32
    credit.yield %v : f32
  } : f32
  %y = credit.apply (%x, %w, %b, %mu, %var, %eps) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %we: f32, %be: f32, %m: f32, %v: f32, %e: f32):
    %d = arith.subf %xe, %m : f32
    %ve = arith.addf %v, %e : f32
    %r = math.rsqrt %ve : f32
    %t = arith.mulf %d, %r : f32
    %t2 = arith.mulf %t, %we : f32
    %t3 = arith.addf %t2, %be : f32
    credit.yield %t3 : f32
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "mean" %mu : f32
}

// CHECK-LABEL: credit.kernel @every_op attributes {credit.note = "x"} {
// CHECK-NEXT:    %x = credit.input "x" row : !credit.row<f32>
// CHECK-NEXT:    %g = credit.input "g" broadcast : !credit.row<f32>
// CHECK-NEXT:    %s = credit.input "s" scalar : f32
// CHECK-NEXT:    %k = credit.param "k" = 2.5 : f32
// CHECK-NEXT:    %N = credit.row_width : f32
// CHECK-NEXT:    %med, %q, %top, %mx, %mn = credit.stage ["med", "q", "top", "mx", "mn"] {
// CHECK-NEXT:      %[[A:.*]] = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
// CHECK:           %[[B:.*]] = credit.select <quantile, 0.9> (%x) : (!credit.row<f32>) -> f32 {
// CHECK:           %[[C:.*]] = credit.select <topk, 3> (%x, %g) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[GE:.*]]: f32):
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[XE]], %[[GE]] : f32
// CHECK-NEXT:        credit.yield %[[P]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[D:.*]] = credit.reduce <max> (%x, %s) : (!credit.row<f32>, f32) -> f32 {
// CHECK-NEXT:      ^bb0(%[[XE:.*]]: f32, %[[SE:.*]]: f32):
// CHECK-NEXT:        %[[L:.*]] = credit.neighbor %[[XE]] [-1] : f32
// CHECK-NEXT:        %[[R:.*]] = credit.neighbor %[[XE]] [1] : f32
// CHECK-NEXT:        %[[T:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:        %[[U:.*]] = arith.mulf %[[T]], %[[SE]] : f32
// CHECK-NEXT:        credit.yield %[[U]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[E:.*]] = credit.reduce <min> () : () -> f32 {
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        credit.yield %[[ONE]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[F:.*]] = arith.divf %[[E]], %N : f32
// CHECK-NEXT:      credit.yield %[[A]], %[[B]], %[[C]], %[[D]], %[[F]] : f32, f32, f32, f32, f32
// CHECK-NEXT:    } : f32, f32, f32, f32, f32
// CHECK-NEXT:    %[[YZ:.*]]:2 = credit.apply (%x, %med, %k) : (!credit.row<f32>, f32, f32) -> (!credit.row<f32>, !credit.row<i8>) {
// CHECK-NEXT:    ^bb0(%[[XE:.*]]: f32, %[[M:.*]]: f32, %[[KK:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = credit.scan <sum> %[[XE]] : f32
// CHECK-NEXT:      %[[P2:.*]] = credit.scan <max> %[[P]] : f32
// CHECK-NEXT:      %[[P3:.*]] = credit.scan <min> %[[P2]] : f32
// CHECK-NEXT:      %[[O:.*]] = credit.sort %[[P3]] : f32
// CHECK-NEXT:      %[[W:.*]] = arith.mulf %[[O]], %[[KK]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.fptosi %[[W]] : f32 to i8
// CHECK-NEXT:      credit.yield %[[W]], %[[V]] : f32, i8
// CHECK-NEXT:    }
// CHECK-NEXT:    credit.output "y" %[[YZ]]#0 : !credit.row<f32>
// CHECK-NEXT:    credit.output "z" %[[YZ]]#1 : !credit.row<i8>
// CHECK-NEXT:    credit.output "q" %q : f32
// CHECK-NEXT:    credit.output "top" %top : f32
// CHECK-NEXT:    credit.output "mx" %mx : f32
// CHECK-NEXT:    credit.output "mn" %mn : f32
// CHECK-NEXT:  }
credit.kernel @every_op attributes {credit.note = "x"} {
  %x = credit.input "x" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.input "s" scalar : f32
  %k = credit.param "k" = 2.5 : f32
  %n = credit.row_width : f32
  %med, %q, %top, %mx, %mn = credit.stage ["med", "q", "top", "mx", "mn"] {
    %a = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %b = credit.select <quantile, 0.9> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %c = credit.select <topk, 3> (%x, %g) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %ge: f32):
      %p = arith.mulf %xe, %ge : f32
      credit.yield %p : f32
    }
    %d = credit.reduce <max> (%x, %s) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %se: f32):
      %l = credit.neighbor %xe [-1] : f32
      %r = credit.neighbor %xe [1] : f32
      %t = arith.addf %l, %r : f32
      %u = arith.mulf %t, %se : f32
      credit.yield %u : f32
    }
    %e = credit.reduce <min> () : () -> f32 {
      %one = arith.constant 1.0 : f32
      credit.yield %one : f32
    }
    %f = arith.divf %e, %n : f32
    credit.yield %a, %b, %c, %d, %f : f32, f32, f32, f32, f32
  } : f32, f32, f32, f32, f32
  %y, %z = credit.apply (%x, %med, %k) : (!credit.row<f32>, f32, f32) -> (!credit.row<f32>, !credit.row<i8>) {
  ^bb0(%xe: f32, %m: f32, %kk: f32):
    %p = credit.scan <sum> %xe : f32
    %p2 = credit.scan <max> %p : f32
    %p3 = credit.scan <min> %p2 : f32
    %o = credit.sort %p3 : f32
    %w = arith.mulf %o, %kk : f32
    %v = arith.fptosi %w : f32 to i8
    credit.yield %w, %v : f32, i8
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "z" %z : !credit.row<i8>
  credit.output "q" %q : f32
  credit.output "top" %top : f32
  credit.output "mx" %mx : f32
  credit.output "mn" %mn : f32
}

// Selections and params keep their values exactly; non-finite params print in
// hex; an empty kernel gets its block.

// CHECK-LABEL: credit.kernel @literals {
// CHECK-NEXT:    %a = credit.param "a" = 0.1 : f32
// CHECK-NEXT:    %b = credit.param "b" = 3.0e+38 : f32
// CHECK-NEXT:    %c = credit.param "c" = -2.0 : f32
// CHECK-NEXT:    %d = credit.param "d" = 0x7F800000 : f32
// CHECK-NEXT:    %e = credit.param "e" = 1.0 : f32
credit.kernel @literals {
  %a = credit.param "a" = 0.1 : f32
  %b = credit.param "b" = 3.0e38 : f32
  %c = credit.param "c" = -2.0 : f32
  %d = credit.param "d" = 0x7F800000 : f32
  %e = credit.param "e" = 1 : f32
}

// CHECK-LABEL: credit.kernel @empty {
// CHECK-NEXT:  }
credit.kernel @empty {
}

// 16-bit storage: element regions see f32; a float result is stored in its
// row's type.
// CHECK-LABEL: credit.kernel @sixteen_bit {
// CHECK-NEXT:    %x = credit.input "x" row : !credit.row<bf16>
// CHECK-NEXT:    %g = credit.input "g" broadcast : !credit.row<f16>
// CHECK:         credit.reduce <sum> (%x) : (!credit.row<bf16>) -> f32 {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK:         credit.apply (%x, %g, %{{.*}}) : (!credit.row<bf16>, !credit.row<f16>, f32) -> !credit.row<f16> {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:         credit.output "y" %{{.*}} : !credit.row<f16>
credit.kernel @sixteen_bit {
  %x = credit.input "x" row : !credit.row<bf16>
  %g = credit.input "g" broadcast : !credit.row<f16>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<bf16>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %g, %s) : (!credit.row<bf16>, !credit.row<f16>, f32) -> !credit.row<f16> {
  ^bb0(%xe: f32, %ge: f32, %se: f32):
    %a = arith.mulf %xe, %ge : f32
    %b = arith.mulf %a, %se : f32
    credit.yield %b : f32
  }
  credit.output "y" %y : !credit.row<f16>
}
