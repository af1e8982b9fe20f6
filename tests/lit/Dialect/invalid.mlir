// RUN: credit-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the credit dialect.

credit.kernel @dup_input {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{duplicate name 'x'}}
  %y = credit.input "x" broadcast : !credit.row<f32>
}

// -----

credit.kernel @dup_param {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{duplicate name 'x'}}
  %e = credit.param "x" = 1.0 : f32
}

// -----

credit.kernel @dup_output {
  %x = credit.input "x" scalar : f32
  credit.output "y" %x : f32
  // expected-error @+1 {{duplicate name 'y'}}
  credit.output "y" %x : f32
}

// -----

// expected-error @+1 {{!credit.row element type must be f32, bf16, f16, i8, ui8 or i1, got 'f64'}}
func.func private @bad_row(!credit.row<f64>)

// -----

credit.kernel @row_input_not_row {
  // expected-error @+1 {{row input must have type !credit.row<f32|bf16|f16|i8|ui8|i1>, got 'f32'}}
  %x = credit.input "x" row : f32
}

// -----

credit.kernel @scalar_input_i8 {
  // expected-error @+1 {{a scalar input is stored as f32, i32 or i64, got 'i8'}}
  %t = credit.input "t" scalar {storage = i8} : f32
}

// -----

credit.kernel @row_input_storage {
  // expected-error @+1 {{only a scalar input has a 'storage' type (a row's is its element type)}}
  %x = credit.input "x" row {storage = i32} : !credit.row<f32>
}

// -----

credit.kernel @scalar_input_row {
  // expected-error @+1 {{scalar input must have type f32, got '!credit.row<f32>'}}
  %x = credit.input "x" scalar : !credit.row<f32>
}

// -----

credit.kernel @bad_input_kind {
  // expected-error @+1 {{expected input kind 'row', 'broadcast' or 'scalar', got 'vector'}}
  %x = credit.input "x" vector : !credit.row<f32>
}

// -----

// expected-error @+1 {{'credit.input' op expects parent op 'credit.kernel'}}
%x = credit.input "x" row : !credit.row<f32>

// -----

credit.kernel @stage_names {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{expects one name per result, got 1 names for 2 results}}
  %a, %b = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s, %s : f32, f32
  } : f32, f32
}

// -----

credit.kernel @stage_yield_types {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{yielded types must match the result types}}
  %a, %b = credit.stage ["a", "b"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32, f32
}

// -----

credit.kernel @stage_no_reduction {
  %n = credit.row_width : f32
  // expected-error @+1 {{must contain at least one credit.reduce or credit.select}}
  %a = credit.stage ["a"] {
    %t = arith.mulf %n, %n : f32
    credit.yield %t : f32
  } : f32
}

// -----

credit.kernel @stage_no_terminator {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{body must end with credit.yield}}
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
  } : f32
}

// -----

func.func @stage_outside_kernel(%n: f32) -> f32 {
  // expected-error @+1 {{'credit.stage' op expects parent op 'credit.kernel'}}
  %a = credit.stage ["a"] {
    credit.yield %n : f32
  } : f32
  return %a : f32
}

// -----

credit.kernel @reduce_outside_stage {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{'credit.reduce' op expects parent op 'credit.stage'}}
  %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
}

// -----

credit.kernel @reduce_arg_count {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{expects one element block argument per operand (1), got 2}}
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %extra: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @reduce_arg_type {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{block argument #0 has type '!credit.row<f32>', expected 'f32' for operand of type '!credit.row<f32>'}}
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: !credit.row<f32>):
      %c = arith.constant 0.0 : f32
      credit.yield %c : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @reduce_yield_two {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{element region must yield exactly one f32 value}}
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe, %xe : f32, f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @reduce_operand_type {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %c = arith.constant 1 : i32
    // expected-error @+1 {{operand #0 must be variadic of credit row or f32}}
    %s = credit.reduce <sum> (%c) : (i32) -> f32 {
    ^bb0(%ce: i32):
      %z = arith.constant 0.0 : f32
      credit.yield %z : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @reduce_isolated {
  %x = credit.input "x" row : !credit.row<f32>
  %n = credit.row_width : f32
  %a = credit.stage ["a"] {
    // expected-note @+1 {{required by region isolation constraints}}
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      // expected-error @+1 {{using value defined outside the region}}
      %t = arith.mulf %xe, %n : f32
      credit.yield %t : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @nested_reduction {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      // expected-error @+1 {{reduction nested in a reduction}}
      %m = credit.reduce <max> () : () -> f32 {
        %c = arith.constant 0.0 : f32
        credit.yield %c : f32
      }
      credit.yield %m : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @nested_selection {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %s = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      // expected-error @+1 {{reduction nested in a reduction}}
      %m = credit.select <median> () : () -> f32 {
        %c = arith.constant 0.0 : f32
        credit.yield %c : f32
      }
      credit.yield %m : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @select_outside_stage {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{'credit.select' op expects parent op 'credit.stage'}}
  %s = credit.select <median> (%x) : (!credit.row<f32>) -> f32 {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
}

// -----

credit.kernel @bad_select_kind {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{expected selection kind 'median', 'quantile' or 'topk', got 'mode'}}
    %s = credit.select <mode> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @median_param {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{median takes no parameter}}
    %s = credit.select <median, 0.5> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @quantile_range {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{quantile parameter must be in [0, 1], got 1.5}}
    %s = credit.select <quantile, 1.5> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @topk_integer {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+1 {{topk parameter must be a positive integer, got 2.5}}
    %s = credit.select <topk, 2.5> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @two_applies {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  // expected-error @+1 {{at most one credit.apply per kernel}}
  %z = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "z" %z : !credit.row<f32>
}

// -----

credit.kernel @apply_result_unused {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{result #1 must be used by exactly one credit.output}}
  %y, %z = credit.apply (%x) : (!credit.row<f32>) -> (!credit.row<f32>, !credit.row<f32>) {
  ^bb0(%xe: f32):
    credit.yield %xe, %xe : f32, f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @apply_result_two_outputs {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{result #0 must be used by exactly one credit.output}}
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  credit.output "y" %y : !credit.row<f32>
  credit.output "y2" %y : !credit.row<f32>
}

// -----

credit.kernel @apply_result_count {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{expects one result per yielded value, got 1 results for 2 yielded values}}
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    credit.yield %xe, %xe : f32, f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @apply_result_type {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{result #0 has type '!credit.row<f32>', expected !credit.row<i8> for a yielded 'i8'}}
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %q = arith.fptosi %xe : f32 to i8
    credit.yield %q : i8
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @apply_yield_type {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{yielded value #0 must be f32 or i8, got 'i32'}}
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %q = arith.fptosi %xe : f32 to i32
    credit.yield %q : i32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @reduction_in_apply {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    // expected-error @+1 {{reduction nested in a credit.apply}}
    %m = credit.reduce <max> () : () -> f32 {
      %c = arith.constant 0.0 : f32
      credit.yield %c : f32
    }
    credit.yield %m : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @apply_in_stage {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    // expected-error @+1 {{'credit.apply' op expects parent op 'credit.kernel'}}
    %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @output_in_stage {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    // expected-error @+1 {{'credit.output' op expects parent op 'credit.kernel'}}
    credit.output "s" %s : f32
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @yield_in_kernel {
  %n = credit.row_width : f32
  // expected-error @+1 {{'credit.yield' op expects parent op to be one of 'credit.stage, credit.reduce, credit.reduce_sumexp, credit.reduce_moments, credit.select, credit.apply'}}
  credit.yield %n : f32
}

// -----

credit.kernel @scan_outside_element_region {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    %s = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    // expected-error @+1 {{only allowed inside a credit.reduce, credit.select or credit.apply region}}
    %p = credit.scan <sum> %s : f32
    credit.yield %p : f32
  } : f32
}

// -----

credit.kernel @bad_reduce_kind {
  %x = credit.input "x" row : !credit.row<f32>
  %a = credit.stage ["a"] {
    // expected-error @+2 {{expected ::mlir::credit::ReduceKind to be one of: sum, max, min}}
    // expected-error @+1 {{failed to parse Credit_ReduceKindAttr parameter 'value'}}
    %s = credit.reduce <prod> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %s : f32
  } : f32
}

// -----

credit.kernel @apply_result_not_row {
  %x = credit.input "x" row : !credit.row<f32>
  // expected-error @+1 {{result #0 must be variadic of credit row}}
  %y = credit.apply (%x) : (!credit.row<f32>) -> f32 {
  ^bb0(%xe: f32):
    credit.yield %xe : f32
  }
  credit.output "y" %y : f32
}

// -----

credit.kernel @sort_outside_element_region {
  %n = credit.row_width : f32
  // expected-error @+1 {{only allowed inside a credit.reduce, credit.select or credit.apply region}}
  %s = credit.sort %n : f32
}

// -----

credit.kernel @bad_scan_kind {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    // expected-error @+2 {{expected ::mlir::credit::ScanKind to be one of: sum, max, min}}
    // expected-error @+1 {{failed to parse Credit_ScanKindAttr parameter 'value'}}
    %p = credit.scan <mul> %xe : f32
    credit.yield %p : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @neighbor_of_scalar {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.input "s" scalar : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    // expected-error @+1 {{operand must stand for a !credit.row operand, not a row-level value}}
    %l = credit.neighbor %se [-1] : f32
    credit.yield %l : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @neighbor_of_computed_value {
  %x = credit.input "x" row : !credit.row<f32>
  %y = credit.apply (%x) : (!credit.row<f32>) -> !credit.row<f32> {
  ^bb0(%xe: f32):
    %t = arith.mulf %xe, %xe : f32
    // expected-error @+1 {{operand must be an element argument of the enclosing credit.apply}}
    %l = credit.neighbor %t [1] : f32
    credit.yield %l : f32
  }
  credit.output "y" %y : !credit.row<f32>
}

// -----

credit.kernel @neighbor_outside_element_region {
  %n = credit.row_width : f32
  // expected-error @+1 {{must be directly inside a credit.reduce, credit.reduce_moments, credit.select or credit.apply region}}
  %l = credit.neighbor %n [1] : f32
}

// -----

// expected-error @+1 {{expected valid '@'-identifier for symbol name}}
credit.kernel "no_symbol" {
}
