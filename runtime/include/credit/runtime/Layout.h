// credit/runtime/Layout.h -- shared-memory layout, padding and legality rules.
//
// One source of truth for the compiler (legality / report), the host launcher and
// the generated CUDA: this file is embedded VERBATIM into every generated .cu
// file (see credit/runtime/EmbeddedSources.h), so it
//   * includes nothing (builtin integer types only; NVRTC has no <stdint.h>),
//   * uses no std:: facility,
//   * marks every function CREDIT_HD constexpr (host and device, and usable in
//     constant expressions on both sides),
//   * compiles as plain C++17 (g++/clang), under nvcc and under NVRTC.
//
// Units: "elems" are elements of the row, "words" are 4-byte shared-memory
// words, byte counts are long long (N * bytes-per-element may exceed 2^31).
#ifndef CREDIT_LAYOUT_H
#define CREDIT_LAYOUT_H

#ifndef CREDIT_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD __host__ __device__
#else
#define CREDIT_HD
#endif
#endif

namespace credit {

// ---------------------------------------------------------------------------
// Small integer helpers.
// ---------------------------------------------------------------------------
CREDIT_HD constexpr long long gcd(long long a, long long b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}
CREDIT_HD constexpr long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }
CREDIT_HD constexpr long long roundUp(long long a, long long m) { return ceilDiv(a, m) * m; }
CREDIT_HD constexpr long long roundDown(long long a, long long m) { return (a / m) * m; }
CREDIT_HD constexpr long long maxLL(long long a, long long b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------
// Bank-conflict padding rule (seed 002, "Optimizing Shared Memory Access").
//
// 32 banks x 4 bytes. Threads of a warp reading runs `strideWords` apart with
// `accessWords`-wide accesses (w = 1: 32-bit, 2: float2, 4: float4) hit
//     degree >= max(1, gcd(S, 32) / w)
// (a lower bound; tight for g <= w, measured 2x the bound for 128-bit at g > w).
// Premises: S is a whole number of words and S >= w.
// ---------------------------------------------------------------------------
CREDIT_HD constexpr int conflictDegree(long long strideWords, int accessWords) {
  const long long g = gcd(strideWords, 32);
  const long long w = accessWords < 1 ? 1 : accessWords;
  return g > w ? static_cast<int>(g / w) : 1;
}

// Word stride of runs of `elems` elements of `elemBytes` bytes. Integer
// division, as the seed's pick_pad: meaningful only when elems*elemBytes % 4 == 0.
CREDIT_HD constexpr long long strideWords(long long elems, int elemBytes) {
  return elems * elemBytes / 4;
}

// The seed's pick_pad, verbatim: among pads of k = 1 and k = 2 multiples of 16
// bytes, the one (in elements) with the smaller gcd(S, 32); k = 1 on a tie.
// Whenever chunk*E is a multiple of 16 one of the two reaches gcd 4.
CREDIT_HD constexpr int pickPad(long long chunkElems, int elemBytes) {
  const int pad1 = 16 / elemBytes;
  const int pad2 = 32 / elemBytes;
  const long long g1 = gcd(strideWords(chunkElems + pad1, elemBytes), 32);
  const long long g2 = gcd(strideWords(chunkElems + pad2, elemBytes), 32);
  return g2 < g1 ? pad2 : pad1;
}

CREDIT_HD constexpr long long paddedStride(long long chunkElems, int elemBytes) {
  return chunkElems + pickPad(chunkElems, elemBytes);
}

// Words touched per access of `accessBytes` bytes (sub-word accesses count 1).
CREDIT_HD constexpr int accessWords(int accessBytes) { return accessBytes >= 4 ? accessBytes / 4 : 1; }

// True when runs of `chunkElems` elements read with `accessBytes`-wide accesses
// need a pad: false exactly when the unpadded stride is conflict-free
// (degree 1: gcd(S,32) <= w) AND every run starts aligned to the access
// (chunk*E % accessBytes == 0) AND S is a whole number of words.
CREDIT_HD constexpr bool needsPad(long long chunkElems, int elemBytes, int accessBytes) {
  const long long runBytes = chunkElems * elemBytes;
  if (runBytes % 4 != 0) return true;
  if (runBytes % (accessBytes < 1 ? 1 : accessBytes) != 0) return true;
  return conflictDegree(runBytes / 4, accessWords(accessBytes)) != 1;
}

// Smallest pad (elements, >= 0) satisfying both conditions of seed 002's table
// for one access width: gcd(S,32) <= w and the run start aligned to the access.
// fp32 chunk 64: 1 (w=1), 2 (w=2), 4 (w=4). -1 if none within 32 words.
CREDIT_HD constexpr int minPadForWidth(long long chunkElems, int elemBytes, int accessBytes) {
  const int limit = 32 * 4 / elemBytes + 1;
  for (int p = 0; p <= limit; ++p)
    if (!needsPad(chunkElems + p, elemBytes, accessBytes)) return p;
  return -1;
}

// ---------------------------------------------------------------------------
// Kernel geometry.
// ---------------------------------------------------------------------------
constexpr int kVecElems = 4;           // 16-byte float4 accesses
constexpr int kScratchAlign = 16;      // every scratch region starts 16-byte aligned
// The retained slices start 128-byte aligned (the scratch is padded up to it).
// Measured on the H200 (same-run A/B, docs/results §2): with only 16-B
// alignment the bulk copies into the slice ran up to 14% slower, and which
// shapes suffered moved with the scratch size (e.g. a CTA size or protocol
// that changed the scratch by a few dozen bytes).
constexpr int kSliceAlign = 128;
constexpr int kWarpSize = 32;
constexpr int kMbarrierBytes = 8;

// Elements of the row owned by one CTA of a cluster of P: ceil(N/P) rounded up
// to the vector width, so every CTA's slice starts 16-byte aligned (for 4-byte
// elements). CTA c owns [c*slice, min((c+1)*slice, N)); the last CTAs may own
// fewer (or zero) elements.
CREDIT_HD constexpr long long sliceElems(long long N, int P) {
  return roundUp(ceilDiv(N, P), kVecElems);
}

// The staged kernel keeps the row in registers instead of SMEM when it is at
// most this many elements per thread (per kept input): the register-resident
// form of the same schedule (no SMEM for the row, no bulk copies), as the
// Triton peers do for short rows. Rows up to regsMaxN(threads) elements; up to
// regsWideMaxN(threads) in the wide form (twice the registers, fewer CTAs per
// SM). The cluster kernels keep a slice of at most regsWideMaxN(threads)
// elements in registers the same way (only the exchange scratch in SMEM).
constexpr int kRegsElemsPerThread = 16;
constexpr int kRegsWideElemsPerThread = 32;
CREDIT_HD constexpr long long regsMaxN(int threads) { return (long long)kRegsElemsPerThread * threads; }
CREDIT_HD constexpr long long regsWideMaxN(int threads) {
  return (long long)kRegsWideElemsPerThread * threads;
}
// The one-CTA-per-SM twin holds up to kTwinDataRegs row registers per thread:
// two kept inputs x 32 elements, which the two-input workloads' twins run at
// 94-97% of copy bandwidth (N = 16384, H200). With one kept input the same
// budget holds 64 elements per thread, so the twin keeps rows of up to
// regsDeepMaxN(2 threads) elements (32768 at 512 threads) in registers too,
// where the SMEM twin streamed at 78-82%. Measured (H200, same-run A/B,
// docs/results §2): quant_int8 32768 0.954 of the SMEM twin's time (85%, not
// the 95% predicted: still one CTA per SM), layernorm 1.01 (noise level).
constexpr int kTwinDataRegs = 64;
constexpr int kRegsDeepElemsPerThread = 64;
CREDIT_HD constexpr long long regsDeepMaxN(int threads) {
  return (long long)kRegsDeepElemsPerThread * threads;
}

// The staged register forms load the kept row at entry. The inputs that only
// h reads (streamed row inputs such as lars's v, broadcast vectors such as
// layernorm's gamma and beta) are loaded there too, so their latency hides
// behind the stage passes instead of stalling h, where the row's data
// registers stay within a budget per thread: (kept + h-only arrays) x elements
// per thread at most kPrefetchDataRegs in the forms that run several CTAs per
// SM (the register cost must not take one of them away), twice that in the
// one-CTA-per-SM twin. Measured on the H200 (same-run A/B, docs/results §2):
// layernorm 4096 (narrow form, 48 data registers: 56 -> 64 registers, still 4
// CTAs per SM) 0.94 of the time, lars 16384 (twin, 96) 0.98; the 256-thread
// wide form (96 for layernorm 8192: 72 -> 126 registers, 3 -> 2 CTAs per SM)
// 1.02, which the budget excludes.
constexpr int kPrefetchDataRegs = 48;
CREDIT_HD constexpr bool prefetchInputsOfH(long long keptArrays, long long hOnlyArrays, int elemsPerThread,
                                           bool oneCtaPerSmTwin) {
  // keptArrays > 0: the loads ride along with the kept row's (no kept row, no entry loads).
  return keptArrays > 0 && hOnlyArrays > 0 &&
         (keptArrays + hOnlyArrays) * elemsPerThread <= (oneCtaPerSmTwin ? 2 : 1) * kPrefetchDataRegs;
}

enum class Protocol : int { Sync = 0, Mbarrier = 1 };

// CTAs of `smemBytes` dynamic SMEM that fit one SM's `smemPerSm` bytes (the
// driver reserves 1 KiB per CTA on sm_80+).
constexpr int kSmemReservedPerCta = 1024;
CREDIT_HD constexpr long long ctasPerSmBySmem(long long smemBytes, long long smemPerSm) {
  return smemPerSm / (smemBytes + kSmemReservedPerCta);
}

// The wide-CTA rule of the generated launchers: where a kernel's SMEM
// footprint lets only one CTA reside per SM, its twin with twice the threads
// (when generated, and legal with its own, slightly larger scratch) runs
// instead, so the SM has twice the warps to overlap the passes with.
CREDIT_HD constexpr bool useWideCta(int wideThreads, long long smemBytes, long long wideSmemBytes,
                                    long long smemPerSm, long long smemOptin) {
  return wideThreads > 0 && smemPerSm > 0 && ctasPerSmBySmem(smemBytes, smemPerSm) <= 1 &&
         wideSmemBytes <= smemOptin;
}

// The partial-retention rule of the generated cluster launchers (kernels with
// two or more kept inputs). The partial form retains one input fewer and
// re-reads it from global memory, where it is still in L2 (the cluster's
// slices of a row are read moments apart). It runs instead of the full form
// (and its wide-CTA twin) where the full form is legal but its footprint lets
// only one CTA reside per SM, the partial one fits two or more, and either
//   - the dropped input is first read after the first pass (`droppedReadLate`):
//     the full form holds its slice idle through the earlier passes, or
//   - P >= kPartialRetentionMinP: at one CTA per SM only 7 clusters of 16 are
//     resident on the H200 (Nsight Compute: 112 of 132 SMs, 42% of DRAM
//     bandwidth), against 21 with half the footprint.
// Measured on the H200 (same-run A/B, partial / full, docs/results §2):
// softmax_logits_bwd (dy first read by stage 3) 0.64-0.84 at P = 2..16; the
// other three two-input workloads 0.85-0.97 at P = 16 but up to 1.16 at
// P = 2..8, where the second read of the dropped input costs more than the
// occupancy gains.
constexpr int kPartialRetentionMinP = 16;
CREDIT_HD constexpr bool usePartialRetention(long long smemBytes, long long partialSmemBytes, int P,
                                             bool droppedReadLate, long long smemPerSm,
                                             long long smemOptin) {
  return partialSmemBytes > 0 && partialSmemBytes < smemBytes && smemPerSm > 0 &&
         smemBytes <= smemOptin && ctasPerSmBySmem(smemBytes, smemPerSm) <= 1 &&
         ctasPerSmBySmem(partialSmemBytes, smemPerSm) >= 2 &&
         (droppedReadLate || P >= kPartialRetentionMinP);
}

// The cluster scheduling policy of the generated cluster launchers: whether a
// launch asks for cudaClusterSchedulingPolicyLoadBalancing (the hardware may
// place several CTAs of one cluster on one SM) instead of the default, which
// Nsight Compute reports as PolicySpread (one per SM). Measured on the H200
// (same-process A/B at N = 65536..262144, P = 8..16, docs/results/cluster-policy/):
// one more resident cluster of 16 (22 against 21 at three CTAs per SM) and 0.92-0.98
// of the time for the forms that retain every kept input (layernorm 262144
// 0.915, quant_int8 131072 0.949, wvar_bwd 131072 0.981), no change at one CTA
// per SM; but 1.006-1.025 where the launcher retains one kept input fewer
// (usePartialRetention) at 262144, which keeps the default. Nsight Compute at
// full clock: the gain is balance (layernorm 262144: busiest SM 1.10x instead of
// 1.16x the average active cycles), not more SMs in use.
CREDIT_HD constexpr bool clusterLoadBalancing(bool partialRetentionForm) { return !partialRetentionForm; }

// Which forms a file generated for `threads` per CTA carries: the register-
// resident ones up to 512 threads (at 1024, 64 registers per thread, they
// spill), wide-CTA twins with twice the threads up to 512 of them (0: none).
CREDIT_HD constexpr bool hasRegisterForms(int threads) { return threads <= 512; }
CREDIT_HD constexpr int wideCtaThreads(int threads) { return threads * 2 <= 512 ? threads * 2 : 0; }

// Passed BY VALUE everywhere: nvcc rejects binding a reference to a
// namespace-scope constexpr object in device code ("identifier ... is undefined
// in device code"), by-value copies of it are fine (NVRTC accepts both).
struct WorkloadGeometry {
  int keepBytesPerElem;  // b_keep: bytes retained in SMEM per row element (sum over kept arrays)
  int numStages;         // L
  int qMax;              // max over stages of q_l (statistics per stage)
  int qSum;              // sum over stages of q_l
  int threads;           // threads per CTA (a multiple of 32)
  // Inputs only h reads (streamed row inputs and broadcast vectors read by no
  // stage): what the staged register forms load at entry besides the kept row
  // (prefetchInputsOfH), hence their data registers (isLightRegisterRow).
  // Not part of the SMEM footprint. Files of creditc before this field leave it 0.
  int hOnlyArrays = 0;
};

// Fixed per-CTA scratch, laid out from offset 0 of the dynamic SMEM in this
// order, each region rounded up to 16 bytes:
//   warpPartials  ceil(threads/32) * qMax floats
//   ctaPartial    qMax floats
//   slots         Sync:     P * qMax floats -- one [P][q_l] slot set, reused by
//                           every stage (the 2nd cluster barrier of a stage
//                           protects the reuse)
//                 Mbarrier: P * qSum floats -- one [P][q_l] slot set per stage,
//                           stage l's at float offset P * (q_0+...+q_{l-1});
//                           never reused, so no 2nd barrier is needed
//   mbarriers     Mbarrier only: numStages 8-byte mbarriers (one per stage)
//   loadBars      kLoadChunks 8-byte mbarriers per kept array: the bulk
//                 asynchronous copies (TMA, cp.async.bulk) that fill the
//                 retained slice complete on them, chunk by chunk, so the first
//                 pass starts on chunk 0 while the later chunks are in flight
//   (padding)     up to kSliceAlign: the retained slice starts 128-B aligned
//                 (every kept array after the first: at a multiple of the
//                 slice length, 128-B aligned when the slice is a multiple of
//                 32 elements -- every power-of-two N >= 32 P)
// The formula is uniform in P: P = 1 (the one-CTA `staged` kernel, which needs
// no exchange) still reserves the (tiny: qMax or qSum floats, rounded to 16 B)
// slot set and, for Mbarrier, the mbarriers. This keeps one legality rule for
// both kernels and makes a cluster kernel launched with a cluster of 1 safe.
struct SmemLayout {
  long long warpPartialsOffset;
  long long ctaPartialOffset;
  long long slotsOffset;
  long long mbarOffset;    // == loadBarOffset when protocol == Sync
  long long loadBarOffset; // [kept array][kLoadChunks] mbarriers of the bulk loads
  long long keepOffset;    // == scratch bytes; the retained slice starts here (kSliceAlign-aligned)
  long long keepBytes;     // sliceElems(N,P) * keepBytesPerElem
  long long totalBytes;    // keepOffset + keepBytes == smemBytes()
  long long claimsOffset;  // persistent form: the row claims' words (kRowClaimWords); elsewhere == mbarOffset, none
};

CREDIT_HD constexpr long long alignedRegion(long long bytes) { return roundUp(bytes, kScratchAlign); }

// Chunks per kept array of the bulk loads into the retained slice (one
// mbarrier each). Inputs are f32 (the language's only input type), so the
// number of kept arrays is keepBytesPerElem / 4.
constexpr int kLoadChunks = 4;
CREDIT_HD constexpr long long numKeptArrays(WorkloadGeometry g) { return ceilDiv(g.keepBytesPerElem, 4); }

// Elements per bulk-load chunk of a slice of `len` elements: a quarter of it,
// rounded up to whole sweeps of the CTA's float4 accesses (4 * threads
// elements), so every thread has work in every chunk. Chunk c covers
// [min(c * chunk, len), min((c + 1) * chunk, len)); trailing chunks may be empty.
CREDIT_HD constexpr long long loadChunkElems(long long len, int threads) {
  return roundUp(ceilDiv(len, kLoadChunks), (long long)kVecElems * threads);
}

CREDIT_HD constexpr SmemLayout smemLayout(WorkloadGeometry g, long long N, int P,
                                          Protocol protocol) {
  SmemLayout l{0, 0, 0, 0, 0, 0, 0, 0, 0};
  const long long warps = ceilDiv(g.threads, kWarpSize);
  l.warpPartialsOffset = 0;
  l.ctaPartialOffset = l.warpPartialsOffset + alignedRegion(warps * g.qMax * 4LL);
  l.slotsOffset = l.ctaPartialOffset + alignedRegion(g.qMax * 4LL);
  const long long slotFloats =
      protocol == Protocol::Sync ? (long long)P * g.qMax : (long long)P * g.qSum;
  l.mbarOffset = l.slotsOffset + alignedRegion(slotFloats * 4LL);
  l.claimsOffset = l.mbarOffset;  // no row claims outside the persistent form
  const long long mbarBytes =
      protocol == Protocol::Mbarrier ? (long long)g.numStages * kMbarrierBytes : 0;
  l.loadBarOffset = l.mbarOffset + alignedRegion(mbarBytes);
  l.keepOffset = roundUp(
      l.loadBarOffset + alignedRegion(numKeptArrays(g) * kLoadChunks * (long long)kMbarrierBytes),
      (long long)kSliceAlign);
  l.keepBytes = sliceElems(N, P) * g.keepBytesPerElem;
  l.totalBytes = l.keepOffset + l.keepBytes;
  return l;
}

CREDIT_HD constexpr long long scratchBytes(WorkloadGeometry g, int P, Protocol protocol) {
  return smemLayout(g, 0, P, protocol).keepOffset;
}

// Eq. (3) left-hand side: sliceElems(N,P) * b_keep + S_scratch.
CREDIT_HD constexpr long long smemBytes(WorkloadGeometry g, long long N, int P,
                                        Protocol protocol) {
  return sliceElems(N, P) * g.keepBytesPerElem + scratchBytes(g, P, protocol);
}

CREDIT_HD constexpr bool isLegal(WorkloadGeometry g, long long N, int P, Protocol protocol,
                                 long long smemLimit) {
  return smemBytes(g, N, P, protocol) <= smemLimit;
}

// The staged kernel a generated file's staged launcher runs at row width N
// (`registersOk` false: the generic variant "staged_smem"), on a device with
// `smemPerSm` / `smemOptin` bytes of SMEM per SM / per block (0: unknown, no
// twin). One rule for the launcher (CudaEmitter.cpp, host::staged) and for
// T_B measurement (Baseline.cpp), so both time and run the same kernel.
enum class StagedForm : int {
  Registers,         // credit_K_staged_regs_v*: N <= regsMaxN(threads)
  WideRegisters,     // credit_K_staged_regs_wide_v*: N <= regsWideMaxN(threads)
  Smem,              // credit_K_staged_v*: the row in SMEM (Eq. 3)
  WideCtaRegisters,  // credit_K_staged_regs_wide_v*_cta<2 threads>: N <= regsWideMaxN(2 threads)
  WideCtaSmem,       // credit_K_staged_v*_cta<2 threads>
  WideCtaDeepRegisters,  // credit_K_staged_regs_deep_v*_cta<2 threads>: one kept input (hasDeepRegisterForm),
                         // regsWideMaxN(2 threads) < N <= regsDeepMaxN(2 threads)
  LightWideCtaRegisters,  // the WideCtaRegisters kernel where the SMEM form fits several CTAs per SM,
                          // but fewer threads than it (useLightTwin; quant_int8: N of about 14300-16384)
};
// Whether the wide-CTA twin's register form also runs where the SMEM form fits
// several CTAs per SM (StagedForm::LightWideCtaRegisters). Two conditions:
//   - a light row (isLightRegisterRow): its data registers per thread, (kept +
//     h-only arrays) x kRegsWideElemsPerThread, stay within kLightRowDataRegs --
//     one kept input and no input only h reads, as quant_int8. Then the twin
//     keeps kLightTwinCtasPerSm CTAs per SM by registers (ptxas: 60 per thread
//     for quant_int8) and skips the SMEM round trip;
//   - the SMEM form holds fewer threads per SM than those twin CTAs
//     (useLightTwin): otherwise it hides latency as well and needs no idle lanes.
// Measured on the H200 (quant_int8; same-process A/B, both orders, docs/results §2):
// 16384 (SMEM form: three CTAs of 256 threads per SM, 768 threads against 1024)
// 0.977-0.978 of the SMEM form's time; 12288 (four, 1024 against 1024) 1.006;
// 10000 (five) 1.07. layernorm 16384, whose twin also loads gamma and beta at
// entry (96 data registers, one CTA per SM), 1.09, which the register budget excludes.
constexpr int kLightRowDataRegs = 32;
constexpr int kLightTwinCtasPerSm = 2;
CREDIT_HD constexpr bool isLightRegisterRow(WorkloadGeometry g) {
  return g.keepBytesPerElem > 0 &&
         (numKeptArrays(g) + g.hOnlyArrays) * kRegsWideElemsPerThread <= kLightRowDataRegs;
}
CREDIT_HD constexpr bool useLightTwin(WorkloadGeometry g, long long N, long long smemPerSm) {
  const int wide = wideCtaThreads(g.threads);
  return hasRegisterForms(g.threads) && wide > 0 && smemPerSm > 0 && isLightRegisterRow(g) &&
         N > regsWideMaxN(g.threads) && N <= regsWideMaxN(wide) &&
         ctasPerSmBySmem(smemBytes(g, N, 1, Protocol::Sync), smemPerSm) * g.threads < kLightTwinCtasPerSm * wide;
}

// The forms that run one CTA per SM (the wide-CTA twins): where the model
// measures T_slice (Model.h, occupancySaving).
CREDIT_HD constexpr bool isOneCtaPerSmForm(StagedForm f) {
  return f == StagedForm::WideCtaRegisters || f == StagedForm::WideCtaDeepRegisters ||
         f == StagedForm::WideCtaSmem;
}
// Whether a file carries the deep register twin (kRegsDeepElemsPerThread per
// thread): twins exist and the kept inputs' registers fit kTwinDataRegs.
CREDIT_HD constexpr bool hasDeepRegisterForm(WorkloadGeometry g) {
  return hasRegisterForms(g.threads) && wideCtaThreads(g.threads) > 0 && g.keepBytesPerElem > 0 &&
         numKeptArrays(g) * kRegsDeepElemsPerThread <= kTwinDataRegs;
}
CREDIT_HD constexpr StagedForm stagedForm(WorkloadGeometry g, long long N, bool registersOk,
                                          long long smemPerSm, long long smemOptin) {
  if (registersOk && hasRegisterForms(g.threads) && N >= 1 && N <= regsWideMaxN(g.threads))
    return N <= regsMaxN(g.threads) ? StagedForm::Registers : StagedForm::WideRegisters;
  const int wide = wideCtaThreads(g.threads);
  WorkloadGeometry wideGeometry = g;
  wideGeometry.threads = wide;
  if (N >= 1 && useWideCta(wide, smemBytes(g, N, 1, Protocol::Sync),
                           smemBytes(wideGeometry, N, 1, Protocol::Sync), smemPerSm, smemOptin)) {
    if (registersOk && N <= regsWideMaxN(wide)) return StagedForm::WideCtaRegisters;
    if (registersOk && hasDeepRegisterForm(g) && N <= regsDeepMaxN(wide)) return StagedForm::WideCtaDeepRegisters;
    return StagedForm::WideCtaSmem;
  }
  // Device sizes known (the rule above did not apply with them): the SMEM form
  // fits several CTAs per SM.
  if (registersOk && useLightTwin(g, N, smemPerSm)) return StagedForm::LightWideCtaRegisters;
  return StagedForm::Smem;
}

// Whether the model's T_slice(P) is measured (Model.h, occupancySaving): the
// staged kernel runs one CTA per SM at N on this device and the cluster kernel
// of P is Eq. 3-legal there (either protocol). One rule for the generated
// dispatch (timeSlices) and the runtime's credit::timeSliceKernels.
CREDIT_HD constexpr bool measuresSlice(WorkloadGeometry g, long long N, int P, long long smemPerSm,
                                       long long smemOptin) {
  return isOneCtaPerSmForm(stagedForm(g, N, true, smemPerSm, smemOptin)) &&
         (isLegal(g, N, P, Protocol::Sync, smemOptin) || isLegal(g, N, P, Protocol::Mbarrier, smemOptin));
}

// The persistent form of the cluster kernels (CLUSTER_PERSISTENT; docs/codegen.md).
// The grid holds only the resident clusters; cluster c takes rows c, c + G,
// c + 2G, ... Each CTA streams its kept inputs' slices through a ring of `units`
// SMEM buffers of one slice each, so the next rows load while it reduces and
// writes this one. Broadcast inputs that only h reads (layernorm's gamma and
// beta) are loaded ONCE per CTA, into registers (the 512-thread twin's fixed
// sweeps, kRegsWideElemsPerThread per thread). The exchange slots and mbarriers
// are double-buffered by row parity (mbarrier protocol only).
// The ring is counted in copies, not rows. Each kept slice is copied in
// `pieces` parts (1 or 2; persistentRing chooses): the CTA's j-th copy is, with
// C = A * pieces copies per row (A = numKeptArrays, in first-read order),
// piece j % pieces of kept array (j % C) / pieces of its row j / C, into unit
// j % units, so `units` need not be a multiple of C. With two kept inputs at
// slices of 16384, whole slices give 3 units of 64 KiB (the next row's first
// array in flight during this row), half slices 7 units of 32 KiB (three of
// the next row's four pieces in flight), and the first pass starts on a row's
// first piece while its second lands.
// Row claims (the launcher's counter, credit::useRowClaims; docs/codegen.md): each
// cluster's first ceil(units / C) rows (at least) are the static ones above; rank 0
// claims every later row with an atomicAdd (warp 1, a row before it is sent) and
// sends its index with stage 1's partials, so that clusters running faster take
// more rows. Layout: the mbarrier scratch with two slot sets and 2L exchange
// mbarriers, the row claims' words (two incoming slots by row parity, a queue of
// kRowClaimQueue claimed rows, the handoff from the claiming thread to the
// senders), one load mbarrier per unit, then the units;
// each holds one piece, persistentPieceElems * 4 bytes rounded up to
// kSliceAlign (`keepBytes` is one unit here).
constexpr int kPersistentMaxPieces = 2;
// The claimed rows a CTA holds: the one a row's exchange brings is used
// ceil(units / C) <= kPersistentMaxRows rows later, and its queue entry is
// written again kRowClaimQueue rows later.
constexpr int kRowClaimQueue = 4;
constexpr int kRowClaimWords = 2 + kRowClaimQueue + 1;  // slots, queue, the handoff to the senders
// A piece is whole sweeps of the widest batch the form is built with
// (CREDIT_UNROLL_PERSISTENT <= 4), so that every sweep of the pass loops lies
// in one piece: 8192 elements at 512 threads.
constexpr int kPersistentMaxUnroll = 4;
CREDIT_HD constexpr long long persistentPieceElems(WorkloadGeometry g, long long N, int P, int pieces) {
  const long long slice = sliceElems(N, P);
  return pieces <= 1 ? slice : roundUp(ceilDiv(slice, pieces), (long long)kVecElems * kPersistentMaxUnroll * g.threads);
}
CREDIT_HD constexpr SmemLayout smemLayoutPersistent(WorkloadGeometry g, long long N, int P, int units, int pieces = 1) {
  SmemLayout l{0, 0, 0, 0, 0, 0, 0, 0, 0};
  const long long warps = ceilDiv(g.threads, kWarpSize);
  l.ctaPartialOffset = alignedRegion(warps * g.qMax * 4LL);
  l.slotsOffset = l.ctaPartialOffset + alignedRegion(g.qMax * 4LL);
  l.claimsOffset = l.slotsOffset + alignedRegion(2LL * P * g.qSum * 4LL);
  l.mbarOffset = l.claimsOffset + alignedRegion(kRowClaimWords * 4LL);
  l.loadBarOffset = l.mbarOffset + alignedRegion(2LL * g.numStages * kMbarrierBytes);
  l.keepOffset = roundUp(l.loadBarOffset + alignedRegion((long long)units * kMbarrierBytes), (long long)kSliceAlign);
  l.keepBytes = roundUp(persistentPieceElems(g, N, P, pieces) * 4LL, (long long)kSliceAlign);
  l.totalBytes = l.keepOffset + units * l.keepBytes;
  return l;
}
CREDIT_HD constexpr long long persistentSmemBytes(WorkloadGeometry g, long long N, int P, int units, int pieces = 1) {
  return smemLayoutPersistent(g, N, P, units, pieces).totalBytes;
}
// The ring's arithmetic, one definition for the generated kernels and the
// tests: copy j (C = copiesPerRow = arrays * pieces copies per row) is piece
// j % pieces of kept input (j % C) / pieces (first-read order) of the CTA's row
// j / C, goes to unit j % units and completes phase (j / units) % 2 of that
// unit's mbarrier. Thread 0 issues copies 0 .. units - 1 first and, when row k
// ends, copies k*C + units ... + C - 1, which reuse exactly row k's units;
// with units >= C every copy is issued before its row waits for it
// (LayoutTests simulates it).
CREDIT_HD constexpr long long ringRow(long long j, int copiesPerRow) { return j / copiesPerRow; }
CREDIT_HD constexpr int ringArray(long long j, int arrays, int pieces = 1) {
  return static_cast<int>(j % (static_cast<long long>(arrays) * pieces)) / pieces;
}
CREDIT_HD constexpr int ringPiece(long long j, int pieces) { return static_cast<int>(j % pieces); }
CREDIT_HD constexpr int ringUnit(long long j, int units) { return static_cast<int>(j % units); }
CREDIT_HD constexpr unsigned ringParity(long long j, int units) { return static_cast<unsigned>((j / units) & 1); }
// The same per row without a 64-bit division (the kernels' threads evaluate
// them for every row): the row's first copy k*C sits in unit u0 = (k*C) % units
// of lap parity ((k*C) / units) & 1; its copy q < units is in unit ringUnitAt and
// waits on phase ringParityAt. ringAdvance moves (u0, lap) to the next row
// (C < units: one wrap at most).
CREDIT_HD constexpr int ringUnitAt(int u0, int q, int units) { return u0 + q >= units ? u0 + q - units : u0 + q; }
CREDIT_HD constexpr unsigned ringParityAt(unsigned lap, int u0, int q, int units) {
  return (lap + (u0 + q >= units ? 1u : 0u)) & 1u;
}
CREDIT_HD constexpr void ringAdvance(int& u0, unsigned& lap, int copiesPerRow, int units) {
  u0 += copiesPerRow;
  if (u0 >= units) {
    u0 -= units;
    lap ^= 1u;
  }
}
// The ring's shape: `units` SMEM units of one piece each, every kept slice in
// `pieces` pieces; units == 0 where the form does not fit.
struct PersistentRing {
  int units;
  int pieces;
};
// As many units as fit the opt-in limit, up to kPersistentMaxRows rows' worth
// (kPersistentMaxRows * C copies); none where fewer than C + 1 fit (no copy of
// a later row could be in flight). Of 1 or 2 pieces, the one holding more
// rows' worth (units / C), whole slices on a tie; a second piece must not be
// empty. `halves` false: whole slices only. Measured on the H200:
// - three rows 94.1% of copy bandwidth at 262144 against 92.7% for two, and
//   within 0.5% of two elsewhere (docs/results/persistent-broadcast/, layernorm,
//   slices of 16384 at 512 threads);
// - halves against whole slices with two kept inputs at slices of 16384
//   (docs/results/ring-pieces/): 0.91-0.97 of the time at 131072 and 262144 and
//   0.99-1.003 below where both inputs are first read by the first pass
//   (pearson_bwd, wvar_bwd, lars), but 1.02-1.05 where one is first read
//   later (softmax_logits_bwd's dy, stage 3), whose copy whole slices already
//   overlap with the passes before it; still 1.02-1.05 at 131072 and 262144
//   once h releases the first pieces early (docs/results/mid-release/). The
//   generated launcher passes halves = !kKeptInputReadLate.
constexpr int kPersistentMaxRows = 3;
static_assert(kPersistentMaxRows < kRowClaimQueue, "a queued claimed row is used before its entry is written again");
CREDIT_HD constexpr int persistentMinUnits(WorkloadGeometry g, int pieces = 1) {
  return static_cast<int>(numKeptArrays(g)) * pieces + 1;
}
CREDIT_HD constexpr int persistentUnitsOfPieces(WorkloadGeometry g, long long N, int P, int pieces, long long smemOptin) {
  if (g.keepBytesPerElem <= 0 || pieces < 1) return 0;
  if (pieces > 1 && persistentPieceElems(g, N, P, pieces) * (pieces - 1) >= sliceElems(N, P)) return 0;  // an empty piece
  const int copies = static_cast<int>(numKeptArrays(g)) * pieces;
  for (int u = kPersistentMaxRows * copies; u >= persistentMinUnits(g, pieces); --u)
    if (persistentSmemBytes(g, N, P, u, pieces) <= smemOptin) return u;
  return 0;
}
CREDIT_HD constexpr PersistentRing persistentRing(WorkloadGeometry g, long long N, int P, long long smemOptin,
                                                  bool halves = true) {
  PersistentRing best{0, 1};
  for (int pieces = 1; pieces <= (halves ? kPersistentMaxPieces : 1); ++pieces) {
    const int u = persistentUnitsOfPieces(g, N, P, pieces, smemOptin);
    // rows' worth u / (A * pieces) against best.units / (A * best.pieces)
    if (u > 0 && (best.units == 0 || (long long)u * best.pieces > (long long)best.units * pieces)) best = {u, pieces};
  }
  return best;
}
CREDIT_HD constexpr int persistentUnits(WorkloadGeometry g, long long N, int P, long long smemOptin) {
  return persistentRing(g, N, P, smemOptin).units;
}
// Whether the persistent form can run at (N, P): the file has it (kept inputs, a
// 512-thread twin with register forms), P >= 2, the slice needs the twin's
// sweeps (more than regsWideMaxN(threads), at most regsWideMaxN(2 threads)
// elements: the widths measured) and the ring fits. `g` is the twin's geometry
// (geometry_wide_cta); `halves` as for persistentRing, whose ring must fit. The
// generic variant "cluster_persistent" runs it wherever this holds (tests,
// benchmarks).
CREDIT_HD constexpr bool persistentFits(WorkloadGeometry g, int narrowThreads, long long N, int P, long long smemOptin,
                                        bool halves = true) {
  return g.keepBytesPerElem > 0 && hasRegisterForms(narrowThreads) && wideCtaThreads(narrowThreads) == g.threads &&
         g.threads > 0 && P >= 2 && N >= 1 && sliceElems(N, P) > regsWideMaxN(narrowThreads) &&
         sliceElems(N, P) <= regsWideMaxN(g.threads) && persistentRing(g, N, P, smemOptin, halves).units > 0;
}
// Whether the generated cluster launcher (mbarrier protocol) runs it: where it
// fits and either
//   - there are broadcast inputs only h reads (`hoistedArrays`), which it loads
//     once per CTA instead of once per row, or
//   - the one-row form's footprint lets only one CTA reside per SM anyway.
//     The persistent form runs one CTA per SM (its ring fills the SMEM); where
//     the one-row form fits several, clusters of 16 reach all 132 SMs of the
//     H200 instead of 112 (usePartialRetention), which is worth more.
// Measured on the H200 against the one-row form at the same P
// (docs/results/persistent-broadcast/, persistent-ring/): layernorm 0.88-0.99;
// two kept inputs at slices of 16384 (128 KiB, one CTA per SM) 0.80-0.995;
// quant_int8 (one kept input, 64 KiB, three CTAs per SM) 1.02-1.13, hence the
// second condition (Nsight Compute: 7 resident clusters of 16 against 22).
CREDIT_HD constexpr bool usePersistent(WorkloadGeometry g, int hoistedArrays, int narrowThreads, long long N, int P,
                                       long long smemPerSm, long long smemOptin, bool halves = true) {
  return persistentFits(g, narrowThreads, N, P, smemOptin, halves) &&
         (hoistedArrays > 0 || (smemPerSm > 0 && ctasPerSmBySmem(smemBytes(g, N, P, Protocol::Mbarrier), smemPerSm) <= 1));
}

// Whether the launcher hands a persistent launch of P-CTA clusters the row-claim
// counter (rows claimed at run time) or lets it take the static rows. Measured on
// the H200 against the static rows in one process (docs/results/row-claims/,
// 17:15, claims from warp 1 a row ahead): at P <= 8 the claims took 0.94-1.01 of
// the time for all five persistent workloads, except layernorm 65536 at P = 2, a
// P the launcher does not run there (1.03); at P = 16, where each claim and its
// exchange hold up 16 CTAs, 0.98-1.05 (layernorm 1.025, softmax_logits_bwd 1.048).
// The first claims (thread 0 claiming at the row that sends it) lost 2-3% for
// softmax_logits_bwd at P = 4 and 8; the atomic's latency stalled thread 0.
CREDIT_HD constexpr bool useRowClaims(int P) { return P <= 8; }

// Largest row width N kept 32-bit indexable (N <= kMaxRowElems).
constexpr long long kMaxRowElems = 2147483647LL;

// Largest N with smemBytes(g, N, P, protocol) <= smemLimit (Eq. 3), 0 if none.
// Slices are multiples of 4, so the answer is a multiple of 4*P: the largest
// legal slice s (a multiple of 4) admits every N <= s*P, and N = s*P + 1 needs
// slice s + 4. With keepBytesPerElem == 0 the bound is kMaxRowElems rounded
// down to a multiple of 4*P.
CREDIT_HD constexpr long long maxLegalN(WorkloadGeometry g, int P, Protocol protocol,
                                        long long smemLimit) {
  if (P < 1) return 0;
  const long long scratch = scratchBytes(g, P, protocol);
  if (scratch > smemLimit) return 0;
  const long long cap = roundDown(kMaxRowElems, (long long)kVecElems * P);
  if (g.keepBytesPerElem <= 0) return cap;
  const long long slice = roundDown((smemLimit - scratch) / g.keepBytesPerElem, kVecElems);
  const long long n = slice * P;
  return n < cap ? n : cap;
}

// ---------------------------------------------------------------------------
// Targets.
// ---------------------------------------------------------------------------
struct TargetInfo {
  const char* arch;            // "sm_90", ...; nullptr for "unknown"
  int smemOptinBytes;          // max dynamic SMEM per block after opt-in
  int maxPortableCluster;      // portable cluster size
  int maxNonPortableCluster;   // with cudaFuncAttributeNonPortableClusterSizeAllowed
};

constexpr int kNumTargets = 3;

CREDIT_HD constexpr TargetInfo targetAt(int i) {
  return i == 0   ? TargetInfo{"sm_90", 232448, 8, 16}    // H100/H200: 227 KB
         : i == 1 ? TargetInfo{"sm_100", 232448, 8, 16}   // B200: 227 KB
         : i == 2 ? TargetInfo{"sm_120", 101376, 8, 8}    // RTX 50: 99 KB
                  : TargetInfo{nullptr, 0, 0, 0};
}

namespace detail {
// Compares the digits of `arch` after "sm_" / "compute_" with `base`'s, allowing
// an 'a' or 'f' suffix on `arch` ("sm_90a" -> "sm_90").
CREDIT_HD constexpr bool archMatches(const char* arch, const char* base) {
  int i = 0;
  if (arch[0] == 's' && arch[1] == 'm' && arch[2] == '_') {
    i = 3;
  } else if (arch[0] == 'c' && arch[1] == 'o' && arch[2] == 'm' && arch[3] == 'p' &&
             arch[4] == 'u' && arch[5] == 't' && arch[6] == 'e' && arch[7] == '_') {
    i = 8;
  } else {
    return false;
  }
  int j = 3;  // base is always "sm_..."
  while (base[j] != '\0') {
    if (arch[i] != base[j]) return false;
    ++i;
    ++j;
  }
  if (arch[i] == '\0') return true;
  return (arch[i] == 'a' || arch[i] == 'f') && arch[i + 1] == '\0';
}
}  // namespace detail

// Looks a target up by name ("sm_90", "sm_90a", "compute_100", ...). Returns
// TargetInfo{nullptr, 0, 0, 0} for an unknown name.
CREDIT_HD constexpr TargetInfo findTarget(const char* arch) {
  if (arch == nullptr) return targetAt(-1);
  for (int i = 0; i < kNumTargets; ++i)
    if (detail::archMatches(arch, targetAt(i).arch)) return targetAt(i);
  return targetAt(-1);
}

CREDIT_HD constexpr bool isKnownTarget(const char* arch) { return findTarget(arch).arch != nullptr; }

}  // namespace credit

#endif  // CREDIT_LAYOUT_H
