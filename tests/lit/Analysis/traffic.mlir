// RUN: credit-opt %s -split-input-file --credit-traffic | FileCheck %s

// credit-traffic: HBM bytes per element of the row in the global-reread
// schedule (baseline: every pass streams the row inputs it reads, outputs are
// written once) and in the clustered schedule (cluster: every row input crosses
// HBM once), reread = baseline - cluster, keep = row inputs read by >= 2
// passes, D_fixed apart (broadcast vectors per pass that reads them, per-row
// scalar inputs and per-row outputs in bytes per row). docs/report.md.
// Every figure below is worked out by hand.

// LayerNorm shape. Passes: stage 1 reads x, stage 2 reads x, h reads x and the
// broadcast g, b.
//   baseline = 4 + 4 + 4 (x three times) + 4 (y)            = 16
//   cluster  = 4 (x once) + 4 (y)                           =  8
//   reread   = 16 - 8 = 8;  keep = 4 (x: 3 passes);  ceiling = 16 / 8 = 2
//   fixed: broadcast g + b read by h = 8 B/element; no per-row value: 0 B/row
// CHECK-LABEL: credit.kernel @ln attributes {credit.traffic = {
// CHECK-SAME:    L = 2 : i64, baseline = 16 : i64, ceiling = 2.000000e+00 : f64, cluster = 8 : i64,
// CHECK-SAME:    fixed_broadcast_per_element = 8 : i64, fixed_per_row = 0 : i64, keep = 4 : i64,
// CHECK-SAME:    kept = ["x"], outputs = 4 : i64, q = array<i64: 1, 1>, reread = 8 : i64}}
credit.kernel @ln {
  %x = credit.input "x" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %b = credit.input "b" broadcast : !credit.row<f32>
  %n = credit.row_width : f32
  %mu = credit.stage ["mu"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    %m = arith.divf %s, %n : f32
    credit.yield %m : f32
  } : f32
  %var = credit.stage ["var"] {
    %s = credit.reduce <sum> (%x, %mu) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      %d2 = arith.mulf %d, %d : f32
      credit.yield %d2 : f32
    }
    %v = arith.divf %s, %n : f32
    credit.yield %v : f32
  } : f32
  %y = credit.apply (%x, %g, %b, %mu, %var) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %ge: f32, %be: f32, %me: f32, %ve: f32):
    %d = arith.subf %xe, %me : f32
    %r = math.rsqrt %ve : f32
    %t = arith.mulf %d, %r : f32
    %t2 = arith.mulf %t, %ge : f32
    %t3 = arith.addf %t2, %be : f32
    credit.yield %t3 : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Mixed widths and every kind of fixed traffic. Passes:
//   stage 1 (q = 1): sum(x * g)                  reads x;    broadcast g
//   stage 2 (q = 2): max(w), sum(x - m)          reads x, w
//   h:               qo = i8(x * g * s), z = w * a
//                                                reads x, w; broadcast g; scalar s
// v is declared but never read: it costs nothing.
//   baseline = 4 + (4 + 4) + (4 + 4) + 1 (qo, i8) + 4 (z)    = 25
//   cluster  = 4 (x) + 4 (w) + 1 + 4                         = 13
//   reread   = 25 - 13 = 12
//   keep     = 4 (x: 3 passes) + 4 (w: 2 passes)             =  8, kept [x, w]
//   outputs  = 1 + 4 = 5 B/element (t is per-row)
//   fixed: g is read by two passes: 4 + 4 = 8 B/element;
//          per row: t (4, output) + s (4, scalar input)      =  8 B/row
//   ceiling  = 25 / 13 = 1.923076923...
// CHECK-LABEL: credit.kernel @mixed attributes {credit.traffic = {
// CHECK-SAME:    L = 2 : i64, baseline = 25 : i64, ceiling = 1.923076923076923{{[0-9]*}} : f64, cluster = 13 : i64,
// CHECK-SAME:    fixed_broadcast_per_element = 8 : i64, fixed_per_row = 8 : i64, keep = 8 : i64,
// CHECK-SAME:    kept = ["x", "w"], outputs = 5 : i64, q = array<i64: 1, 2>, reread = 12 : i64}}
credit.kernel @mixed {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %v = credit.input "v" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.input "s" scalar : f32
  %m0 = credit.stage ["m0"] {
    %r = credit.reduce <sum> (%x, %g) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %ge: f32):
      %p = arith.mulf %xe, %ge : f32
      credit.yield %p : f32
    }
    credit.yield %r : f32
  } : f32
  %m, %a = credit.stage ["m", "a"] {
    %r1 = credit.reduce <max> (%w) : (!credit.row<f32>) -> f32 {
    ^bb0(%we: f32):
      credit.yield %we : f32
    }
    %r2 = credit.reduce <sum> (%x, %m0) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      credit.yield %d : f32
    }
    credit.yield %r1, %r2 : f32, f32
  } : f32, f32
  %qo, %z = credit.apply (%x, %w, %g, %s, %a) : (!credit.row<f32>, !credit.row<f32>, !credit.row<f32>, f32, f32) -> (!credit.row<i8>, !credit.row<f32>) {
  ^bb0(%xe: f32, %we: f32, %ge: f32, %se: f32, %ae: f32):
    %p = arith.mulf %xe, %ge : f32
    %p2 = arith.mulf %p, %se : f32
    %i = arith.fptosi %p2 : f32 to i8
    %zz = arith.mulf %we, %ae : f32
    credit.yield %i, %zz : i8, f32
  }
  credit.output "qo" %qo : !credit.row<i8>
  credit.output "z" %z : !credit.row<f32>
  credit.output "t" %m : f32
}

// -----

// No stage (elementwise): one pass, nothing re-read; ceiling 8 / 8 = 1.
// CHECK-LABEL: credit.kernel @elementwise attributes {credit.traffic = {
// CHECK-SAME:    L = 0 : i64, baseline = 8 : i64, ceiling = 1.000000e+00 : f64, cluster = 8 : i64,
// CHECK-SAME:    fixed_broadcast_per_element = 0 : i64, fixed_per_row = 0 : i64, keep = 0 : i64,
// CHECK-SAME:    kept = [], outputs = 4 : i64, q = array<i64>, reread = 0 : i64}}
credit.kernel @elementwise {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %t = arith.mulf %xe, %xe : f32
    credit.yield %t : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

// Only a broadcast vector and a per-row output: no byte per element of the row
// at all, baseline = cluster = 0, and the ceiling is defined as 1 (not 0/0).
// fixed: g read by the stage: 4 B/element; the output t: 4 B/row.
// CHECK-LABEL: credit.kernel @no_row_input attributes {credit.traffic = {
// CHECK-SAME:    L = 1 : i64, baseline = 0 : i64, ceiling = 1.000000e+00 : f64, cluster = 0 : i64,
// CHECK-SAME:    fixed_broadcast_per_element = 4 : i64, fixed_per_row = 4 : i64, keep = 0 : i64,
// CHECK-SAME:    kept = [], outputs = 0 : i64, q = array<i64: 1>, reread = 0 : i64}}
credit.kernel @no_row_input {
  %g = credit.input "g" broadcast : !credit.row<f32>
  %t = credit.stage ["t"] {
    %r = credit.reduce <max> (%g) : (!credit.row<f32>) -> f32 {
    ^bb0(%ge: f32):
      credit.yield %ge : f32
    }
    credit.yield %r : f32
  } : f32
  credit.output "t" %t : f32
}
