// credit/device/row_kernel.cuh -- the row kernel: one schedule for every form.
//
// Per CTA: set-up (the exchange's barriers and mbarriers, the bulk copies'
// mbarriers, the ring's first copies, hoisted inputs), then for each of its rows:
// pointers, per-row inputs, the row's copies or register loads, the L stages (a pass,
// the block reduction, the exchange, the row-level math), h, the per-row outputs.
// The form's policies (form.cuh) decide where elements come from and how partials
// are combined; the workload (workload.cuh) supplies the arithmetic.
//
// CTA `rank` of a cluster of P owns the slice [rank * s, min((rank + 1) * s, N)) of
// its row, s = sliceElems(N, P); the slice may be empty, every thread still reaches
// every barrier. Dynamic SMEM is exactly smemLayout(geometry, N, P, protocol)
// (SmemLayout.h), or smemLayoutPersistent for the ring (Ring.h).
#ifndef CREDIT_DEVICE_ROW_KERNEL_CUH
#define CREDIT_DEVICE_ROW_KERNEL_CUH

#include "credit/device/exchange.cuh"
#include "credit/device/form.cuh"
#include "credit/device/memory.cuh"
#include "credit/device/pass.cuh"
#include "credit/device/reduce.cuh"
#include "credit/device/residency.cuh"
#include "credit/device/ring.cuh"
#include "credit/device/row_claims.cuh"
#include "credit/device/workload.cuh"
#include "credit/runtime/Target.h"

namespace credit {
namespace device {

// The kernel's arguments: the data pointers (inputs, then outputs) and the runtime
// params' values, in signature order.
template <class W>
struct Operands {
  static constexpr int kNumPointers = Contract<W>::kNumInputs + Contract<W>::kNumOutputs;
  const void* p[kNumPointers];
  float params[Contract<W>::kNumParams > 0 ? Contract<W>::kNumParams : 1];

  CREDIT_DEVICE void set(int i, const void* ptr) { p[i] = ptr; }
  CREDIT_DEVICE void set(int i, float value) { params[i - kNumPointers] = value; }
};

// The only global store of the control kernels, never executed (N >= 1 always, which
// the compiler cannot know): it keeps the statistics, hence the whole reduction and
// exchange, alive.
[[maybe_unused]] static __device__ float control_sink;

// Bulk copies (cp.async.bulk with an mbarrier) exist from sm_90 on. The SMEM
// layout keeps their barriers' room either way, so host and device agree.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kHasBulkCopies = false;
#else
inline constexpr bool kHasBulkCopies = true;
#endif

template <class Wk, class Pol>
struct RowKernel {
  using W = Wk;
  using C = Contract<W>;
  using Row = typename W::Row;
  static constexpr int VEC = Pol::VEC, kThreads = Pol::kThreads, kWarps = kThreads / 32;
  static constexpr int RPT = Pol::RPT, PIECES = Pol::PIECES;
  static constexpr int NI = C::kNumInputs, NO = C::kNumOutputs, NK = C::kNumKept, L = C::kStages;
  static constexpr int NKA = C::kKeptExtent;  // array extent over the kept inputs (>= 1)
  static constexpr bool kControl = Pol::kResidency == Residency::None;
  static constexpr bool kCluster = Pol::kExchange != Exchange::None;
  static constexpr bool kPersistent = Pol::kResidency == Residency::Ring;
  static constexpr bool kPartial = Pol::kResidency == Residency::Partial;
  static constexpr bool kRegs = Pol::kResidency == Residency::Registers;
  static constexpr bool kRetain = Pol::kResidency == Residency::Smem || kPartial || kPersistent;
  static constexpr bool kSweeps = kRegs || kPersistent;  // compile-time sweeps of RPT elements per thread
  static constexpr bool kClaims = Pol::kRows == Rows::Claimed;
  static constexpr Protocol kProtocol = Pol::kExchange == Exchange::Mbarrier ? Protocol::Mbarrier : Protocol::Sync;
  static constexpr WorkloadGeometry geometry = kThreads != W::kThreads ? C::wideGeometry()
                                               : kPartial              ? C::partialGeometry()
                                                                       : C::narrowGeometry();
  // The forms that retain with vector accesses fill the kept slices with bulk copies
  // (sm_90 and later; before, the first pass stores what it loads, as the scalar
  // forms do); one row per launch copies them in chunks. Bulk copies move 16-byte
  // aligned units: f32 slices always are (VEC = 4 launches), narrower ones where N and
  // the slice are multiples of 16 bytes and the pointers 16-byte aligned (bulk_ok);
  // elsewhere the first pass stores what it loads.
  static constexpr bool kBulk = kRetain && VEC > 1 && geometry.keepBytesPerElem > 0 && kHasBulkCopies;
  static constexpr bool kChunked = kBulk && !kPersistent;
  // The reread form's every pass loads its row from global memory: it keeps twice
  // the runs of 8 in flight (CREDIT_UNROLL_VEC8_REREAD).
  static constexpr bool kReread = Pol::kResidency == Residency::Reread;
  static constexpr int kUnroll = VEC == 8   ? (kReread ? CREDIT_UNROLL_VEC8_REREAD : CREDIT_UNROLL_VEC8)
                                 : VEC == 4 ? (kPersistent ? CREDIT_UNROLL_PERSISTENT : CREDIT_UNROLL_VEC4)
                                            : CREDIT_UNROLL_VEC1;
  static constexpr int kRegIters = kSweeps ? (RPT + kUnroll * VEC - 1) / (kUnroll * VEC) : 1;
  // Vector register forms load every kept slice at entry; scalar ones keep what the
  // first pass loads.
  static constexpr bool kRegPrefetch = kRegs && VEC > 1;
  // The staged register forms also load the inputs only h reads at entry where the
  // row's data registers allow it.
  static constexpr bool kPrefetchH = kRegPrefetch && Pol::kExchange == Exchange::None &&
                                     prefetchInputsOfH(NK, popcount(C::onlyH()), RPT, kThreads != W::kThreads);
  static constexpr int kRingCopies = static_cast<int>(numKeptArrays(geometry)) * PIECES;  // C, copies a row
  static constexpr int kPiece1Sweep = PIECES > 1 ? kPersistentMaxUnroll / kUnroll : kRegIters;
  static constexpr bool kHasH = W::kReads[C::kH] != 0u || C::rowOutputs() != 0u;
  static_assert(NK >= 1 || Pol::kResidency == Residency::Reread,
                "a workload that keeps no input (a one-pass kernel) runs the reread forms only");

  CREDIT_HD static constexpr bool keep(int kp) { return kRetain && !(kPartial && kp == W::kPartialDrop); }
  CREDIT_HD static constexpr bool bulk(int kp) { return kBulk && keep(kp); }
  // Whether this launch's bulk-copy kernels copy (else the first pass stores what it loads).
  CREDIT_DEVICE bool copies() const { return C::keptAllF32() || bulk_ok; }
  CREDIT_HD static constexpr bool prefetched(int i) {
    return kPrefetchH && hasBit(C::onlyH(), i);
  }

  static_assert(!kPersistent || (VEC == 4 && kThreads == W::kWideThreads), "the persistent form: float4, the twins' threads");
  // The ring fills its units with bulk copies only (16-byte units).
  static_assert(!kPersistent || C::keptAllF32(), "no persistent form for a workload with a kept input that is not f32");
  static_assert(!kPartial || (W::kPartialDrop >= 0 && kThreads == W::kThreads), "no partial form");
  static_assert(kThreads == W::kThreads || kThreads == W::kWideThreads, "THREADS");
  // Thread t's runs of VEC kept elements, back to back, accessed up to 16 bytes wide,
  // are bank-conflict-free without a pad (so VEC = 8 keeps inputs of at most 2 bytes).
  static_assert(VEC == 1 || NK == 0 ||
                    !needsPad(VEC, C::keptMaxBytes(), VEC * C::keptMaxBytes() < 16 ? VEC * C::keptMaxBytes() : 16),
                "the kept slice needs no padding");
  static_assert(!kPersistent || kPersistentMaxUnroll % kUnroll == 0, "CREDIT_UNROLL_PERSISTENT: 1, 2 or 4");
  static_assert(kPersistentMaxPieces == 2, "the pass loops select between two pieces");
  static_assert(PIECES == 1 || RPT * kThreads <= 2 * kVecElems * kPersistentMaxUnroll * kThreads,
                "a slice splits into two pieces at a fixed sweep");

  const Operands<W>& ops;
  long long M;
  int N, P, ring;
  unsigned tid, warp, lane;
  int rank;
  long long slice, begin;
  unsigned len, piece_elems, chunk;
  bool release_in_h;  // two pieces, the second not empty: h refills the first pieces' units
  bool bulk_ok;       // every kept slice 16-byte aligned in global memory and SMEM (kBulk, any element size)
  long long ring_copy;  // the row's first copy
  SmemLayout layout;
  unsigned char* smem;
  float* warp_partials;  // [kWarps][qMax]
  float* cta_partial;    // [qMax]
  float* slots;          // sync: [P][q_l]; mbarrier: one set per stage (two by row parity: the ring)
  uint64_t* bars;        // mbarrier: one per stage (two sets: the ring)
  uint64_t* load_bars;   // [kept array][kLoadChunks]; the ring: one per unit
  RowSchedule<kCluster, kPersistent, kClaims, kThreads> rows;
  RingCursor cursor;
  // Registers indexed by sweep and batch position: an object of their own, so that
  // the kernel's other state is promoted to registers before the sweeps are unrolled.
  struct Registers {
    float kept[NKA][kRegs ? kRegIters : 1][kUnroll][VEC];                 // the register forms' slices
    float h[NI][(kPrefetchH || kPersistent) ? kRegIters : 1][kUnroll][VEC];  // inputs only h reads, loaded early
  };
  Registers& regs;
  const void* in_slice[NI];  // this CTA's slice of each row and broadcast input (row inputs: this row's)
  void* out_slice[NO];
  unsigned char* kept_smem[NKA];     // this row's kept slices (the ring: their first pieces), in their storage type
  unsigned char* kept_smem_p1[NKA];  // the ring: their second pieces
  float N_f;
  long long row_base;  // row * N + begin: this CTA's slice of the row

  // This CTA's slice of input i (row inputs: of this row), of output j, and input i itself.
  template <int i>
  CREDIT_DEVICE const typename Storage<W::kInputs[i].elem>::type* in_ptr() const {
    return row_input<i>() + (C::isRowInput(i) ? row_base : begin);
  }
  template <int i>
  CREDIT_DEVICE const typename Storage<W::kInputs[i].elem>::type* row_input() const {
    return static_cast<const typename Storage<W::kInputs[i].elem>::type*>(ops.p[i]);
  }
  template <int j>
  CREDIT_DEVICE typename Storage<W::kOutputs[j].elem>::type* out_base() const {
    return static_cast<typename Storage<W::kOutputs[j].elem>::type*>(const_cast<void*>(ops.p[NI + j]));
  }
  template <int j>
  CREDIT_DEVICE typename Storage<W::kOutputs[j].elem>::type* out_ptr() const {
    return out_base<j>() + row_base;
  }

  CREDIT_DEVICE RowKernel(const Operands<W>& ops_, Registers& regs_, long long M_, int N_, int P_, int ring_,
                          unsigned* row_claims)
      : ops(ops_), M(M_), N(N_), P(kCluster ? P_ : 1), ring(kPersistent ? ring_ : 0), regs(regs_) {
    tid = threadIdx.x;
    warp = tid / 32;
    lane = tid % 32;
    rank = kCluster ? static_cast<int>(ptx::cluster_ctarank()) : 0;
    slice = sliceElems(N, P);
    begin = rank * slice < N ? rank * slice : N;
    len = static_cast<unsigned>((begin + slice < N ? begin + slice : N) - begin);
    piece_elems = static_cast<unsigned>(kPersistent ? persistentPieceElems(geometry, N, P, PIECES) : slice);
    release_in_h = kPersistent && PIECES > 1 && len > piece_elems;
    layout = kPersistent ? smemLayoutPersistent(geometry, N, P, ring, PIECES) : smemLayout(geometry, N, P, kProtocol);
    smem = ptx::dynamic_smem();
    warp_partials = reinterpret_cast<float*>(smem + layout.warpPartialsOffset);
    cta_partial = reinterpret_cast<float*>(smem + layout.ctaPartialOffset);
    slots = reinterpret_cast<float*>(smem + layout.slotsOffset);
    bars = reinterpret_cast<uint64_t*>(smem + layout.mbarOffset);
    load_bars = reinterpret_cast<uint64_t*>(smem + layout.loadBarOffset);
    chunk = static_cast<unsigned>(loadChunkElems(len, kThreads, VEC));
    bulk_ok = kBulk && kept_slices_aligned(Indices<NK>{});
    rows.init(M, P, rank, tid, row_claims, ring, kRingCopies, reinterpret_cast<unsigned*>(smem + layout.claimsOffset));
    set_broadcast_slices(Indices<NI>{});
    N_f = static_cast<float>(N);
  }

  // Rows and slices whole multiples of 16 bytes of the narrowest kept element (so every
  // slot, laid out largest element first, starts 16-byte aligned too), and the kept
  // inputs' pointers 16-byte aligned.
  template <int... KP>
  CREDIT_DEVICE bool kept_slices_aligned(IntSeq<KP...>) const {
    constexpr long long g = 16 / C::keptMinBytes();
    return N % g == 0 && slice % g == 0 &&
           ((reinterpret_cast<unsigned long long>(ops.p[W::kKept[KP]]) % 16ull == 0ull) && ...);
  }

  template <int... I>
  CREDIT_DEVICE void set_broadcast_slices(IntSeq<I...>) {
    ((in_slice[I] = kControl || !C::isBroadcast(I) ? nullptr : row_input<I>() + begin), ...);
  }
  template <int... I, int... J>
  CREDIT_DEVICE void set_row_slices(IntSeq<I...>, IntSeq<J...>, long long row) {
    ((C::isRowInput(I) ? (void)(in_slice[I] = kControl ? nullptr : row_input<I>() + row * N + begin) : void()), ...);
    ((out_slice[J] = kControl || !C::isRowOutput(J) ? nullptr : out_base<J>() + row * N + begin), ...);
  }

  // Per-row inputs and outputs, as begin_row and end_row see them.
  struct RowInputs {
    const RowKernel& k;
    long long row;
    template <int i>
    CREDIT_DEVICE float in() const {
      static_assert(W::kInputs[i].kind == Kind::PerRow, "a per-row input");
      if constexpr (kControl) return 0.0f;
      else return static_cast<float>(__ldg(k.template row_input<i>() + row));
    }
    // Runtime param j: one value for every row, a kernel argument.
    template <int j>
    CREDIT_DEVICE float param() const {
      static_assert(j >= 0 && j < C::kNumParams, "a runtime param");
      if constexpr (kControl) return 0.0f;
      else return k.ops.params[j];
    }
  };
  struct RowOutputs {
    const RowKernel& k;
    long long row;
    template <int j, class V>
    CREDIT_DEVICE void out(V v) const {
      static_assert(W::kOutputs[j].kind == Kind::PerRow, "a per-row output");
      static_cast<typename Storage<W::kOutputs[j].elem>::type*>(const_cast<void*>(k.ops.p[NI + j]))[row] = v;
    }
  };

  // Stage l: the pass, the block reduction, the exchange, the row-level math.
  template <int l, int... J>
  CREDIT_DEVICE void stage(IntSeq<J...>, long long k, Row& r) {
    constexpr int off = C::qOffset(l);
    float acc[sizeof...(J)] = {identity<W::kReduce[off + J]>()...};
    if constexpr (!kControl) {
      float picked[sizeof...(J)];
      pick_columns<l>(*this, r, picked);
      run_pass<l>(*this, r, acc);
      add_picked<l, W>(IntSeq<J...>{}, acc, picked);
    }
    BlockReduce<kWarps, C::qMax(), W::kReduce[off + J]...>::run(acc, warp_partials, cta_partial, warp, lane);
    float s[sizeof...(J)];
    ExchangePolicy<Pol::kExchange, kPersistent>::template stage<l, off, C::qSum(), L, W::kReduce[off + J]...>(
        IntSeq<J...>{}, s, *this, k, rows);
    finish_sumexp<W::kReduce[off + J]...>(IntSeq<J...>{}, s);
    W::finish(Stage<l>{}, r, s);
  }
  template <int... S>
  CREDIT_DEVICE void stages(IntSeq<S...>, long long k, Row& r) {
    (stage<S>(Indices<W::kQ[S]>{}, k, r), ...);
  }

  CREDIT_DEVICE void run() {
    ExchangePolicy<Pol::kExchange, kPersistent>::setup(tid, bars, L);
    if constexpr (kBulk) {  // one mbarrier per kept array and chunk (the ring: per unit)
      if (tid == 0) {
        for (int c = 0; c < (kPersistent ? ring : static_cast<int>(numKeptArrays(geometry)) * kLoadChunks); ++c)
          ptx::mbar_init(ptx::smem_addr(load_bars + c), 1);
        ptx::fence_mbarrier_init_cluster();  // the inits, visible to the async proxy
      }
      __syncthreads();  // initialised before any thread waits on them or a copy signals them
    }
    if constexpr (kPersistent) {
      if (tid == 0) ring_start(*this);
      residency::hoist(Indices<NI>{}, *this);
    }
    rows.start();
    for (long long k = 0; rows.exists(k); ++k) {
      const long long row = rows.index(k);
      rows.begin_row(k);
      ring_copy = k * kRingCopies;
      residency::set_kept_pointers(Indices<NK>{}, *this);
      row_base = row * N + begin;
      if constexpr (kPersistent && !kControl) residency::prefetch_l2(Indices<NI>{}, *this);
      Row r;
      r.N = N_f;
      W::begin_row(r, RowInputs{*this, row});
      if constexpr (kChunked) residency::issue_chunks(Indices<NK>{}, *this);
      if constexpr (kRegPrefetch) residency::prefetch_registers(Indices<NK>{}, Indices<NI>{}, *this);
      stages(Indices<L>{}, k, r);
      if constexpr (kHasH && !kControl) {
        float none[1];
        run_pass<C::kH>(*this, r, none);
      }
      if constexpr (!kControl) {
        if (rank == 0 && tid == 0) {
          RowOutputs o{*this, row};
          W::end_row(r, o);
        }
      } else {
        if (N < 0) control_sink = W::control_value(r);
      }
      if constexpr (kPersistent) ring_end_row(*this, ring_copy);
    }
    rows.finish();
    // No exit barrier: with the sync protocol the last stage's second cluster barrier
    // is it; with the mbarrier protocol every byte pushed into this CTA and every bulk
    // copy it issued has been waited for.
  }
};

// The row kernel of form F, vector width VEC, for workload W.
// args: the data pointers, then the runtime params' values.
template <class W, Form F, int VEC, class... T>
CREDIT_DEVICE void row_kernel(long long M, int N, int P, int ring, unsigned* row_claims, T... args) {
  using K = RowKernel<W, typename FormOf<W, F, VEC>::type>;
  static_assert(sizeof...(T) == 0 || sizeof...(T) == Operands<W>::kNumPointers + Contract<W>::kNumParams,
                "the kernel's arguments: every data pointer, then every runtime param");
  Operands<W> ops{};
  int i = 0;
  (ops.set(i++, args), ...);
  typename K::Registers regs;
  K k(ops, regs, M, N, P, ring, row_claims);
  k.run();
}

}  // namespace device
}  // namespace credit

// One extern "C" kernel per line of a generated file. OPS names the workload's pointer
// parameters: OPS##_PARAMS (declarations) and OPS##_ARGS (names).
#define CREDIT_FORM_(W, FORM, VEC) credit::device::FormOf<W, credit::Form::FORM, VEC>
#define CREDIT_BOUNDS_(W, FORM, VEC) \
  __launch_bounds__((CREDIT_FORM_(W, FORM, VEC)::kThreads), (CREDIT_FORM_(W, FORM, VEC)::kCtas))
// One CTA per row: (operands, M, N).
#define CREDIT_ROW_KERNEL(NAME, OPS, W, FORM, VEC)                                                          \
  extern "C" __global__ void CREDIT_BOUNDS_(W, FORM, VEC) NAME(OPS##_PARAMS, long long M, int N) {         \
    static_assert(!CREDIT_FORM_(W, FORM, VEC)::kCluster, "CREDIT_ROW_KERNEL: a form of one CTA per row"); \
    credit::device::row_kernel<W, credit::Form::FORM, VEC>(M, N, 1, 0, nullptr, OPS##_ARGS);                                        \
  }
// A cluster of P CTAs per row: (operands, M, N, P).
#define CREDIT_CLUSTER_KERNEL(NAME, OPS, W, FORM, VEC)                                                         \
  extern "C" __global__ void CREDIT_BOUNDS_(W, FORM, VEC) NAME(OPS##_PARAMS, long long M, int N, int P) {     \
    static_assert(CREDIT_FORM_(W, FORM, VEC)::kCluster && CREDIT_FORM_(W, FORM, VEC)::kS ==                   \
                      credit::device::Rows::One && CREDIT_FORM_(W, FORM, VEC)::kR != credit::device::Residency::None, \
                  "CREDIT_CLUSTER_KERNEL: a cluster form of one row per cluster");                             \
    credit::device::row_kernel<W, credit::Form::FORM, VEC>(M, N, P, 0, nullptr, OPS##_ARGS);                                           \
  }
// The persistent forms (float4): (operands, M, N, P, ring units, the row-claim counter or nullptr).
#define CREDIT_PERSISTENT_KERNEL(NAME, OPS, W, FORM)                                                          \
  extern "C" __global__ void CREDIT_BOUNDS_(W, FORM, 4)                                                       \
      NAME(OPS##_PARAMS, long long M, int N, int P, int ring, unsigned* row_claims) {                        \
    static_assert(CREDIT_FORM_(W, FORM, 4)::kS != credit::device::Rows::One, "CREDIT_PERSISTENT_KERNEL");     \
    credit::device::row_kernel<W, credit::Form::FORM, 4>(M, N, P, ring, row_claims, OPS##_ARGS);                                         \
  }
// The control kernels: (M, N, P); the cluster kernel's grid, SMEM and barriers, no memory work.
#define CREDIT_CONTROL_KERNEL(NAME, W, FORM)                                                                 \
  extern "C" __global__ void CREDIT_BOUNDS_(W, FORM, 1) NAME(long long M, int N, int P) {                    \
    static_assert(CREDIT_FORM_(W, FORM, 1)::kR == credit::device::Residency::None, "CREDIT_CONTROL_KERNEL"); \
    credit::device::row_kernel<W, credit::Form::FORM, 1>(M, N, P, 0, nullptr); \
  }

#endif  // CREDIT_DEVICE_ROW_KERNEL_CUH
