// RUN: credit-opt %s --split-input-file --verify-diagnostics

// Malformed #credit.schedule, credit.schedule and credit.materialized: located
// errors, never a crash. The valid attribute these start from:
//   #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>
// -----

// An unknown form.
// expected-error @+2 {{failed to parse Credit_ScheduleAttr parameter 'forms'}}
// expected-error @+1 {{unknown kernel form 'cluster_fast'}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_fast], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A missing parameter.
// expected-error @+1 {{struct is missing required parameter: kept_read_late}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// An unknown parameter.
// expected-error @+1 {{duplicate or unknown struct parameter name: rows}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, rows = 2, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A flag that is not a boolean.
// expected-error @+2 {{failed to parse Credit_ScheduleAttr parameter 'kept_read_late'}}
// expected-error @+1 {{expected 'true' or 'false'}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = 1, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// An unquoted name.
// expected-error @+2 {{failed to parse Credit_ScheduleAttr parameter 'kept'}}
// expected-error @+1 {{expected string}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = [x], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A materialization without its pass.
// expected-error @+2 {{failed to parse Credit_ScheduleAttr parameter 'materialized'}}
// expected-error @+1 {{expected 'by'}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = ["x"], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// An unsupported CTA size.
// expected-error @+1 {{threads must be 128, 256, 512 or 1024, got 384}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 384, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A twin that is not twice the CTA.
// expected-error @+1 {{wide_threads must be 0 or twice threads (512), got 1024}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 1024, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A geometry for another CTA size.
// expected-error @+1 {{the geometry's threads (512) differ from threads (256)}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 512, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A geometry counting other inputs only h reads.
// expected-error @+1 {{the geometry's h_only (1) is not the number of inputs only h reads (0)}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 1>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A malformed geometry.
// expected-error @+2 {{failed to parse Credit_ScheduleAttr parameter 'geometry'}}
// expected-error @+1 {{#credit.geometry needs keep >= 0, stages >= 1, 1 <= q_max <= q_sum and h_only >= 0}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 2, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// SMEM arrays that are not the kept inputs.
// expected-error @+1 {{smem must list the kept inputs, each once}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["w"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A name twice.
// expected-error @+1 {{'x' appears twice in kept}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x", "x"], smem = ["x", "x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A kept input that is not an input.
// expected-error @+1 {{kept input 'y' is not an input of kernel 'k'}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["y"], smem = ["y"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A kept broadcast input.
// expected-error @+1 {{kept input 'g' must be a row input}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["g"], smem = ["g"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A hoisted row input.
// expected-error @+1 {{hoisted input 'w' must be a broadcast input}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = ["w"], hoisted = ["w"], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 1>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A prefetched broadcast input.
// expected-error @+1 {{prefetched input 'g' must be a row input}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = ["g"], hoisted = [], prefetch_l2 = ["g"], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 1>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A hoisted input h does not only read.
// expected-error @+1 {{hoisted input 'g' is not in only_h}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = ["g"], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A kept input only h reads.
// expected-error @+1 {{'x' is both kept and only read by h}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = ["x"], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 1>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A materialization of an input not kept.
// expected-error @+1 {{materialized input 'w' is not kept}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = ["w" by 1], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A materialization by the first pass.
// expected-error @+1 {{'x' is materialized by pass 0}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = ["x" by 0], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A materialization by a pass the kernel lacks.
// expected-error @+1 {{'x' is materialized by pass 5, but the kernel has 2 passes}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = ["x" by 5], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A partial form with one kept input.
// expected-error @+1 {{partial_drop 'x' must be one of two or more kept inputs}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], partial_drop = "x", kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A dropped input whose array is not last.
// expected-error @+1 {{the partial form's dropped input 'x' must have the last SMEM array}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x", "w"], smem = ["x", "w"], materialized = [], partial_drop = "x", kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A read-late flag without a partial form.
// expected-error @+1 {{partial_drop_read_late without partial_drop}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], partial_drop_read_late = true, kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A partial form without a dropped input.
// expected-error @+1 {{form cluster_partial_sync needs a partial_drop}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_partial_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A twin without twin threads.
// expected-error @+1 {{form staged_wide runs at wide_threads, which is 0}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 0, forms = [staged_wide], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A persistent form without kept inputs.
// expected-error @+1 {{form persistent needs a kept input}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [persistent], kept = [], smem = [], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// A form twice.
// expected-error @+1 {{form reread appears twice}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [reread, reread], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f32>
  %w = credit.input "w" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// credit.schedule that is not a #credit.schedule.
// expected-error @+1 {{'credit.schedule' must be a #credit.schedule attribute}}
credit.kernel @k attributes {credit.schedule = {kept = ["x"]}} {
  %x = credit.input "x" row : !credit.row<f32>
}

// -----

// credit.schedule on another op.
credit.kernel @k {
  // expected-error @+1 {{'credit.schedule' annotates a credit.kernel only}}
  %x = credit.input "x" row {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} : !credit.row<f32>
}

// -----

// credit.materialized naming no row input.
credit.kernel @k {
  %x = credit.input "x" row : !credit.row<f32>
  %g = credit.input "g" broadcast : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x, %g) : (!credit.row<f32>, !credit.row<f32>) -> f32 {
    ^bb0(%xe: f32, %ge: f32):
      // expected-error @+1 {{'credit.materialized': 'g' is not a row input of the kernel}}
      %e = math.exp %xe {credit.materialized = "g"} : f32
      %p = arith.mulf %e, %ge : f32
      credit.yield %p : f32
    }
    credit.yield %r : f32
  } : f32
}

// -----

// credit.materialized that is not a name.
credit.kernel @k {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      // expected-error @+1 {{'credit.materialized' must name a kept input (a string)}}
      %e = math.exp %xe {credit.materialized = 1 : i64} : f32
      credit.yield %e : f32
    }
    credit.yield %r : f32
  } : f32
}

// -----

// credit.materialized outside an element region.
credit.kernel @k {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    // expected-error @+1 {{'credit.materialized' annotates an op of a reduce or apply region}}
    %e = math.exp %r {credit.materialized = "x"} : f32
    credit.yield %e : f32
  } : f32
}
// -----

// A persistent form with a 16-bit kept input (the ring is filled by bulk copies).
// expected-error @+1 {{form persistent with the 'bf16' kept input 'x' (the ring keeps f32 slices only)}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [persistent], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 2, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<bf16>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<bf16>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<bf16>, f32) -> !credit.row<bf16> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<bf16>
}
// -----

// T(x) stored over a 16-bit kept copy would be rounded.
// expected-error @+1 {{'x' ('f16') cannot be materialized: its kept copy is 16-bit}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = ["x" by 1], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 2, stages = 2, q_max = 1, q_sum = 2, threads = 256, h_only = 0>>} {
  %x = credit.input "x" row : !credit.row<f16>
  %m = credit.stage ["m"] {
    %r = credit.reduce <max> (%x) : (!credit.row<f16>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x, %m) : (!credit.row<f16>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %e = arith.subf %xe, %me : f32
      %t = math.exp %e : f32
      credit.yield %t : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %m, %s) : (!credit.row<f16>, f32, f32) -> !credit.row<f16> {
  ^bb0(%xe: f32, %me: f32, %se: f32):
    %e = arith.subf %xe, %me : f32
    %t = math.exp %e : f32
    %a = arith.divf %t, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f16>
}
// -----

// A vector width other than 4 or 8.
// expected-error @+1 {{vector_width must be 4 or 8, got 6}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 2, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>, vector_width = 6>} {
  %x = credit.input "x" row : !credit.row<bf16>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<bf16>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<bf16>, f32) -> !credit.row<bf16> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<bf16>
}
// -----

// Runs of 8 elements over an f32 row (two accesses a run, conflicting SMEM reads).
// expected-error @+1 {{vector_width 8 with the '!credit.row<f32>' input 'x'}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>, vector_width = 8>} {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
// -----

// The persistent forms run float4 accesses only.
// expected-error @+1 {{form persistent runs float4 accesses only (vector_width 4)}}
credit.kernel @k attributes {credit.schedule = #credit.schedule<threads = 256, wide_threads = 512, forms = [cluster_sync, persistent], kept = ["x"], smem = ["x"], materialized = [], kept_read_late = false, only_h = [], hoisted = [], prefetch_l2 = [], geometry = <keep = 4, stages = 1, q_max = 1, q_sum = 1, threads = 256, h_only = 0>, vector_width = 8>} {
  %x = credit.input "x" row : !credit.row<f32>
  %s = credit.stage ["s"] {
    %r = credit.reduce <sum> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    credit.yield %r : f32
  } : f32
  %y = credit.apply (%x, %s) : (!credit.row<f32>, f32) -> !credit.row<f32> {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.mulf %xe, %se : f32
    credit.yield %a : f32
  }
  credit.output "y" %y : !credit.row<f32>
}
