// credit/device/pass.cuh -- the element loops of one pass over the CTA's slice.
//
// Thread t handles elements VEC * (t + THREADS * k), k = 0, 1, ... of the slice. A
// batch first issues every load of its kUnroll positions (independent loads in
// flight per thread and input), then consumes them in order: the workload's g (a
// stage) or h, one element at a time, in the same order in every form, so every
// form accumulates in the same order. Register and ring forms walk the slice in
// kRegIters compile-time sweeps (every index into a register array a constant);
// the others in a plain loop, chunk by chunk where the pass waits for bulk copies.
// Every access is guarded by the slice's end; there is no early return, so every
// thread reaches every barrier.
#ifndef CREDIT_DEVICE_PASS_CUH
#define CREDIT_DEVICE_PASS_CUH

#include "credit/device/reduce.cuh"
#include "credit/device/residency.cuh"
#include "credit/device/ring.cuh"

namespace credit {
namespace device {

// One element of pass p, as the workload's pass() sees it (workload.cuh). A stage
// with an online statistic runs the batch twice (batch()): kPivots, where only the
// pivots count (their max into `base`), then with `base` the rebased max. Moments
// terms wait in `mom` until their batch position is done (detail::elements()).
template <class K, int p, class Acc, bool kPivots = false>
struct Element {
  using W = typename K::W;
  using C = Contract<W>;
  unsigned (&v)[K::NI][K::kUnroll][K::VEC];  // raw words (memory.cuh), decoded by in()
  Acc& acc;
  float (&t)[K::NKA][K::VEC];
  float (&of)[K::NO][K::VEC];
  int8_t (&oi)[K::NO][K::VEC];
  const typename K::Registers& regs;
  int it, u, vi;
  float col;  // the element's column in the row, as f32 (exact below 2^24 columns)
  Acc& base;  // online statistics: the batch's pivot max (kPivots), else the max the sums are relative to
  float (&mom)[sizeof(Acc) / sizeof(float)][K::VEC];  // moments: the position's terms, by statistic and vi

  // The source's `i`.
  CREDIT_DEVICE float index() const { return col; }

  template <int i>
  CREDIT_DEVICE float in() const {
    static_assert(C::reads(p, i), "the pass reads this input (kReads)");
    if constexpr (residency::in_kept_registers<K>(p, i)) return regs.kept[C::keptPos(i)][it][u][vi];
    else if constexpr (residency::in_h_registers<K>(i)) return regs.h[i][it][u][vi];
    else return decode<typename Storage<K::W::kInputs[i].elem>::type>(v[i][u], vi);
  }
  template <int j>
  CREDIT_DEVICE void add(float g) const {
    static_assert(p < C::kH && j < W::kQ[p < C::kH ? p : 0], "a statistic of this stage");
    static_assert(!isSumExp(W::kReduce[C::qOffset(p) + j]), "an online statistic takes add_sumexp");
    static_assert(!isMoments(W::kReduce[C::qOffset(p) + j]), "moments take add_moments");
    if constexpr (!kPivots) acc[j] = combine<W::kReduce[C::qOffset(p) + j]>(acc[j], g);
  }
  // Term g into the moments at j (kReduce: MomentsCount at j, MomentsSum, MomentsM2),
  // once per element.
  template <int j>
  CREDIT_DEVICE void add_moments(float g) const {
    static_assert(p < C::kH && j + 2 < W::kQ[p < C::kH ? p : 0], "a statistic of this stage");
    static_assert(W::kReduce[C::qOffset(p) + j] == Reduce::MomentsCount,
                  "moments (MomentsCount, then MomentsSum and MomentsM2)");
    if constexpr (!kPivots) mom[j][vi] = g;
  }
  // Pivot p and weights w_1..w_k into the online statistic at j (kReduce: SumExpMax
  // at j, then exactly k SumExpSum).
  template <int j, class... Wt>
  CREDIT_DEVICE void add_sumexp(float pivot, Wt... w) const {
    constexpr int k = static_cast<int>(sizeof...(Wt));
    static_assert(p < C::kH && j + k < W::kQ[p < C::kH ? p : 0], "a statistic of this stage");
    static_assert(W::kReduce[C::qOffset(p) + j] == Reduce::SumExpMax && C::sumexpSums(p, j) == k,
                  "an online statistic (SumExpMax) with one weight per sum (SumExpSum)");
    const float ws[] = {static_cast<float>(w)...};
    if constexpr (kPivots) base[j] = fmaxf(base[j], pivot);
    else sumexp_add_rebased<j, W::kFastMath>(Indices<k>{}, acc, base[j], pivot, ws);
  }
  template <int j, class V>
  CREDIT_DEVICE void out(V x) const {
    static_assert(p == C::kH && C::isRowOutput(j), "h sets the row outputs");
    if constexpr (kPivots) {
    } else if constexpr (W::kOutputs[j].elem == Elem::I8) {
      static_assert(IsSame<V, int8_t>::value, "an i8 output takes the converted value (f32_to_i8)");
      oi[j][vi] = x;
    } else {  // f32, bf16, f16: held as f32; bf16 and f16 round at the store
      of[j][vi] = x;
    }
  }
  template <int i>
  CREDIT_DEVICE void keep(float x) const {
    static_assert(C::keptPos(i) >= 0 && W::kMaterialize[C::keptPos(i) >= 0 ? C::keptPos(i) : 0] == p,
                  "the pass that materializes T over this kept input (kMaterialize)");
    if constexpr (!kPivots) t[C::keptPos(i)][vi] = x;
  }
  // Whether in<i>() already is T(x): read after the materializing pass from the kept copy.
  template <int i>
  CREDIT_DEVICE static constexpr bool held() {
    constexpr int kp = C::keptPos(i);
    return kp >= 0 && W::kMaterialize[kp >= 0 ? kp : 0] >= 0 && W::kMaterialize[kp >= 0 ? kp : 0] < p &&
           (K::keep(kp) || K::kRegs);
  }
};

// Column u of the row, for a stage's sums that one column decides (W::pick): at(u)
// holds where u is an integral column in this CTA's slice, as i == u holds for that
// element alone (its column as f32, exact below 2^24 columns); in<i>() then reads
// input i's element there from global memory.
template <class K, int p, class Acc>
struct PickedElement {
  using W = typename K::W;
  using C = Contract<W>;
  const K& k;
  Acc& acc;
  unsigned c;  // the column within the slice
  float col;

  CREDIT_DEVICE bool at(float u) {
    const float lo = static_cast<float>(k.begin);
    if (!(u >= lo && u < lo + static_cast<float>(k.len)) || u != truncf(u)) return false;
    c = static_cast<unsigned>(u - lo);
    col = u;
    return true;
  }
  CREDIT_DEVICE float index() const { return col; }
  template <int i>
  CREDIT_DEVICE float in() const {
    using T = typename Storage<W::kInputs[i].elem>::type;
    static_assert(W::kInputs[i].kind != Kind::PerRow, "a row or broadcast input");
    unsigned w[1];
    ld_global_words(w, k.template in_ptr<i>() + c);
    return decode<T>(w, 0);
  }
  template <int j>
  CREDIT_DEVICE void add(float g) const {
    static_assert(p < C::kH && j < W::kQ[p < C::kH ? p : 0], "a statistic of this stage");
    static_assert(W::kReduce[C::qOffset(p) + j] == Reduce::Sum, "one column decides a sum");
    acc[j] += g;
  }
};

namespace detail {
template <int j, class K, class OF, class OI>
CREDIT_DEVICE void store_output(K& k, const OF& of, const OI& oi, unsigned off) {
  if constexpr (Contract<typename K::W>::isRowOutput(j)) {
    if constexpr (K::W::kOutputs[j].elem == Elem::I8) st_global(k.template out_ptr<j>() + off, oi[j]);
    else st_global(k.template out_ptr<j>() + off, of[j]);
  }
}
template <class K, class OF, class OI, int... J>
CREDIT_DEVICE void store_outputs(IntSeq<J...>, K& k, const OF& of, const OI& oi, unsigned off) {
  (store_output<J>(k, of, oi, off), ...);
}
// The online statistics of stage p, after their batch's pivots: m raised to the
// batch max, the sums rescaled (reduce.cuh, sumexp_rebase).
template <int p, class W, int J, int Q>
CREDIT_DEVICE void rebase_at(float (&acc)[Q], float (&base)[Q]) {
  using C = Contract<W>;
  if constexpr (W::kReduce[C::qOffset(p) + J] == Reduce::SumExpMax)
    sumexp_rebase<J, Q, C::sumexpSums(p, J)>(acc, base, base[J]);
}
template <int p, class W, int Q, int... J>
CREDIT_DEVICE void rebase(IntSeq<J...>, float (&acc)[Q], float (&base)[Q]) {
  (rebase_at<p, W, J>(acc, base), ...);
}
// The moments of stage p: while a thread sweeps its elements, slots J..J+2 hold
// (n, s, M2) of its terms so far (from the identity), and each batch position's terms
// merge in after it (moments.cuh).
template <int p, class W, int J, int Q, int VEC>
CREDIT_DEVICE void add_run_at(float (&acc)[Q], const float (&mom)[Q][VEC]) {
  if constexpr (W::kReduce[Contract<W>::qOffset(p) + J] == Reduce::MomentsCount)
    moments::merge_run(acc[J], acc[J + 1], acc[J + 2], mom[J]);
}
template <int p, class W, int Q, int VEC, int... J>
CREDIT_DEVICE void add_runs(IntSeq<J...>, float (&acc)[Q], const float (&mom)[Q][VEC]) {
  (add_run_at<p, W, J>(acc, mom), ...);
}
// The workload's pass over the VEC elements of batch position u at `off`. Every
// position holds VEC elements of the slice (the vector kernels run where N % VEC
// == 0, and slices and chunks are whole positions), so the moments merge all VEC
// terms, position by position: the same order in every form.
template <int p, bool kPivots, class K, class Acc, class V, class T, class OF, class OI>
CREDIT_DEVICE void elements(K& k, const typename K::W::Row& row, Acc& acc, V& v, T& t, OF& of, OI& oi, int it,
                            int u, unsigned off, Acc& base) {
  constexpr int Q = sizeof(Acc) / sizeof(float);
  float mom[Q][K::VEC];
#pragma unroll
  for (int vi = 0; vi < K::VEC; ++vi) {
    // One conversion per batch position: the VEC columns differ by vi, exactly in f32.
    const float col = static_cast<float>(static_cast<unsigned>(k.begin) + off) + static_cast<float>(vi);
    Element<K, p, Acc, kPivots> e{v, acc, t, of, oi, k.regs, it, u, vi, col, base, mom};
    K::W::pass(Pass<p>{}, e, row);
  }
  if constexpr (!kPivots && Contract<typename K::W>::hasMoments(p))
    add_runs<p, typename K::W>(Indices<Q>{}, acc, mom);
}
template <class K, int... KP>
CREDIT_DEVICE void pieces(IntSeq<KP...>, const K& k, unsigned char* (&at)[K::NKA], bool piece1) {
  ((at[KP] = piece1 ? k.kept_smem_p1[KP] : k.kept_smem[KP]), ...);
}
}  // namespace detail

// The batch at `base` (sweep `it`; `piece1`, `pbase`: the ring piece it lies in).
template <int p, class K, class Acc>
CREDIT_DEVICE void batch(K& k, const typename K::W::Row& row, Acc& acc, unsigned base, int it, unsigned cend,
                         bool piece1, unsigned pbase) {
  constexpr int U = K::kUnroll, VEC = K::VEC;
  unsigned char* at[K::NKA];
  detail::pieces(Indices<K::NK>{}, k, at, piece1);
  // Zeroed: a batch past the slice's end loads only its first positions, and an
  // unloaded (undefined) element lets the compiler give it the register of another
  // pass's element, which then stays live from pass to pass (more registers, fewer
  // CTAs per SM wherever SMEM does not bound them: short slices).
  unsigned v[K::NI][U][VEC] = {};
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const unsigned off = base + u * VEC * K::kThreads;
    if (off >= cend) break;
    residency::load_all<p>(Indices<K::NI>{}, k, v, u, off, at, pbase);
  }
  // An online statistic: the batch's pivots first (one rescale per batch, not per
  // element); the second sweep below adds the sums relative to the new max.
  Acc rebased;
  if constexpr (Contract<typename K::W>::hasSumExp(p)) {
    constexpr int Q = sizeof(Acc) / sizeof(float);
#pragma unroll
    for (int j = 0; j < Q; ++j) rebased[j] = __int_as_float(0xff800000);  // -INFINITY
    float t[K::NKA][VEC];
    float of[K::NO][VEC];
    int8_t oi[K::NO][VEC];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned off = base + u * VEC * K::kThreads;
      if (off >= cend) break;
      detail::elements<p, true>(k, row, acc, v, t, of, oi, it, u, off, rebased);
    }
    detail::rebase<p, typename K::W>(Indices<Q>{}, acc, rebased);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const unsigned off = base + u * VEC * K::kThreads;
    if (off >= cend) break;
    residency::retain_all<p>(Indices<K::NI>{}, k, v, it, u, off, at, pbase);
    float t[K::NKA][VEC];
    float of[K::NO][VEC];
    int8_t oi[K::NO][VEC];
    detail::elements<p, false>(k, row, acc, v, t, of, oi, it, u, off, rebased);
    residency::materialize_all<p>(Indices<K::NK>{}, k, t, it, u, off, at, pbase);
    if constexpr (p == Contract<typename K::W>::kH) detail::store_outputs(Indices<K::NO>{}, k, of, oi, off);
  }
}

// The sweeps of pass p over [cbeg, cend): compile-time sweeps in the register and ring
// forms, a plain loop elsewhere.
template <int p, bool kLands, class K, class Acc>
CREDIT_DEVICE void sweeps(K& k, const typename K::W::Row& row, Acc& acc, unsigned cbeg, unsigned cend) {
  using C = Contract<typename K::W>;
  if constexpr (K::kSweeps) {
#pragma unroll
    for (int it = 0; it < K::kRegIters; ++it) {
      const unsigned base = K::VEC * k.tid + it * (K::kUnroll * K::VEC * K::kThreads);
      if constexpr (p == C::kH && K::kPersistent && K::PIECES > 1) {
        // h is the row's last reader: the first pieces' units take the next copies
        // once every thread is past them. Before the exit test: with a second piece
        // no thread has left the loop.
        if (it == K::kPiece1Sweep && k.release_in_h) ring_release_first_pieces(k, k.ring_copy);
      }
      if (base >= k.len) break;
      const bool piece1 = K::kPersistent && it >= K::kPiece1Sweep;  // a constant (unrolled `it`)
      const unsigned pbase = piece1 ? k.piece_elems : 0u;
      if constexpr (K::kPersistent && kLands) residency::wait_pieces<p>(Indices<K::NI>{}, k, it);
      batch<p>(k, row, acc, base, it, cend, piece1, pbase);
    }
  } else {
    for (unsigned base = cbeg + K::VEC * k.tid; base < cend; base += K::kUnroll * K::VEC * K::kThreads)
      batch<p>(k, row, acc, base, 0, cend, false, 0u);
  }
}

// The sums of stage p that one column decides: thread 0 reads their columns into
// picked[] before the sweep, whose time hides the loads, and add_picked then adds
// them to its partials, which the block reduction combines like any term. -0 is the
// sum's identity (x + -0 == x for every x, -0 included). Both do nothing in a stage
// without such sums.
template <int p, class K, class Acc>
CREDIT_DEVICE void pick_columns(const K& k, const typename K::W::Row& row, Acc& picked) {
  if constexpr (Contract<typename K::W>::picks(p)) {
    constexpr int Q = sizeof(Acc) / sizeof(float);
#pragma unroll
    for (int j = 0; j < Q; ++j) picked[j] = -0.0f;
    if (k.tid == 0) {
      PickedElement<K, p, Acc> e{k, picked, 0u, 0.0f};
      K::W::pick(Pass<p>{}, e, row);
    }
  }
}
template <int p, class W, int Q, int... J>
CREDIT_DEVICE void add_picked(IntSeq<J...>, float (&acc)[Q], const float (&picked)[Q]) {
  if constexpr (Contract<W>::picks(p))
    ((W::kReduce[Contract<W>::qOffset(p) + J] == Reduce::Sum ? (void)(acc[J] += picked[J]) : void()), ...);
}

// Pass p over the slice: a stage's terms into acc[], or h (acc unused), in sweeps. A
// pass that first reads kept inputs waits for their copies: chunk by chunk in the
// forms with chunked bulk copies, piece by piece in the ring.
template <int p, class K, class Acc>
CREDIT_DEVICE void run_pass(K& k, const typename K::W::Row& row, Acc& acc) {
  constexpr bool kLands = Contract<typename K::W>::firstReadsKept(p);
  if constexpr (kLands) {
    for (int c = 0; c < (K::kChunked ? kLoadChunks : 1); ++c) {
      const unsigned cbeg = K::kChunked ? (c * k.chunk < k.len ? c * k.chunk : k.len) : 0u;
      const unsigned cend = K::kChunked ? (cbeg + k.chunk < k.len ? cbeg + k.chunk : k.len) : k.len;
      if constexpr (K::kChunked) residency::wait_chunk<p>(Indices<K::NI>{}, k, c);
      sweeps<p, true>(k, row, acc, cbeg, cend);
    }
  } else {
    sweeps<p, false>(k, row, acc, 0u, k.len);
  }
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_PASS_CUH
