// credit/runtime/Baseline.h -- T_B: one timing of a generated file's
// non-clustered kernel (docs/cost-model.md), measured on the GPU.
//
// `creditc predict --measure-tB` and `credit-calibrate --time-baseline` both
// time the staged (or reread) kernel of a creditc-generated .cu file here: JIT
// through the Runtime, inputs from the file's own signature string, CUDA
// events around each launch, the L2 flushed before each, median of the runs --
// the benchmark's method (bench/peers/timing.py), so the model sees the T_B the
// evaluation used.
#ifndef CREDIT_RUNTIME_BASELINE_H
#define CREDIT_RUNTIME_BASELINE_H

#include "credit/runtime/Layout.h"
#include "credit/runtime/Runtime.h"

#include <string>
#include <vector>

namespace credit {

// One data argument of a generated launch API: credit_<K>_signature()'s
// "name:in|out:row|broadcast|scalar:<type>" (row [M][N], broadcast [N], scalar [M]).
// Types: f32, bf16, f16, i8 (inputs and outputs); u8 and bool (row and broadcast
// inputs: masks, one byte); i32 and i64 (scalar inputs: a class index per row).
struct KernelArg {
  std::string name;
  bool input = true;
  enum Kind { Row, Broadcast, Scalar, Param } kind = Row;  // Param: a runtime param (f32 input)
  enum Type { F32, I8, BF16, F16, U8, Bool, I32, I64 } type = F32;
  int elemBytes = 4;  // f32 and i32 4, bf16 and f16 2, i8, u8 and bool 1, i64 8
};

// Parses a signature string; false (with `error`) on a malformed entry, or on a
// type the language does not allow where it stands (an i64 row, a bool output).
bool parseKernelSignature(const std::string& signature, std::vector<KernelArg>& out,
                          std::string& error);

// The signature string of kernel `kernel` in a generated file: the literal
// returned by `credit_<kernel>_signature()`. False if there is none.
bool findKernelSignature(const std::string& source, const std::string& kernel,
                         std::string& signature);

struct BaselineTiming {
  std::string function;  // e.g. "credit_<K>_staged_v4"
  bool staged = false;
  double medianMs = 0, minMs = 0;
  int reps = 0;
  std::size_t smemBytes = 0;
};

// The kernel the staged (`staged`) or reread launcher of a generated file runs
// at row width N on a device with `smemPerSm` / `smemOptin` bytes of SMEM per
// SM / per block, its CTA size and dynamic SMEM: `credit_<K>_staged_regs_v*`
// for rows of at most regsMaxN(threads) elements, `_staged_regs_wide_v*` up to
// regsWideMaxN(threads), then the SMEM staged kernel `_staged_v*` -- or, where
// that fits one CTA per SM (useWideCta; threads <= 256), its twin with twice
// the threads, `_staged_regs_wide_v*_cta<2 threads>` (the row in its registers)
// or `_staged_v*_cta<2 threads>`; `_reread_v*`. v<vectorWidth> (the file's vector
// width, 4 or 8) when N % vectorWidth == 0 (the launchers also need aligned
// pointers, which timeBaselineKernel's allocations are), else v1 -- and v1 of the deep
// form only where the file has it (hasScalarDeepRegisterForm(keptInputs)), else the
// SMEM twin, as the launcher does.
struct BaselineKernelChoice {
  std::string function;
  int threads = 0;
  std::size_t smemBytes = 0;
};
// `registersOk` false: the SMEM form at every N (the generic variant
// "staged_smem"), which T_slice times (Model.h, occupancySaving).
BaselineKernelChoice baselineKernelFor(const std::string& kernel, WorkloadGeometry geometry, long long N,
                                       bool staged, long long smemPerSm, long long smemOptin,
                                       bool registersOk = true, int vectorWidth = 4, int keptInputs = 1);

struct BaselineRequest {
  std::string source;         // the generated .cu (creditc output, staged/reread variants)
  std::string kernel;         // K
  WorkloadGeometry geometry{};  // the file's `geometry` (threads, b_keep, ...)
  // The file's `reread_geometry` where it has one (the reread kernel's own stages, an
  // online statistic); threads 0: `geometry`.
  WorkloadGeometry rereadGeometry{};
  bool staged = true;         // staged kernel (Eq. 3 must hold at P = 1); else reread
  bool registersOk = true;    // false: the staged kernel's SMEM form (T_slice)
  int vectorWidth = 4;        // the file's vector kernels' width (the schedule's vector_width)
  int keptInputs = 1;         // the file's kept inputs (the schedule's `kept`)
  long long M = 0, N = 0;
  int warmups = 2, reps = 15;
  std::size_t flushBytes = std::size_t(256) << 20;  // L2 flush before each timed launch
  unsigned seed = 1;
};

// JIT-compiles and loads the file, allocates its arguments (float inputs uniform
// in [0.5, 1.5): positive, so every divisor a workload forms from them is
// nonzero; i32 / i64 class indices uniform in [0, N); bool masks about 3/4 true;
// u8 / i8 small integers), and times the kernel the launcher would run
// (baselineKernelFor) with grid M, the file's CTA size and its dynamic SMEM
// (Layout.h). Errors: a bad request, no signature, Eq. 3 (staged), or any
// CUDA/NVRTC failure.
Expected<BaselineTiming> timeBaselineKernel(Runtime& rt, const BaselineRequest& request);

// T_slice(P) (credit/runtime/Model.h, occupancySaving) for a staged request:
// where the staged kernel runs one CTA per SM on this device
// (isOneCtaPerSmForm(stagedForm(...))), the staged kernel's SMEM form timed at
// M*P rows of sliceElems(N, P) elements for every P in {2, 4, 8, 16} whose
// cluster kernel is Eq. 3-legal here (either protocol); an empty list
// elsewhere. `creditc predict --measure-tB` and `credit-calibrate
// --time-baseline` both call it.
struct SliceTiming {
  int P = 0;
  long long rows = 0, width = 0;
  BaselineTiming timing;
};
Expected<std::vector<SliceTiming>> timeSliceKernels(Runtime& rt, const BaselineRequest& stagedRequest);

}  // namespace credit

#endif  // CREDIT_RUNTIME_BASELINE_H
