// credit/device/exchange.cuh -- the exchange of a stage's CTA partials between the
// P CTAs of a cluster, so that every CTA ends with the same statistics.
//
// CTA c of a cluster owns a slot set slots[P][Q] in its SMEM; after the stage's block
// reduction it writes its Q partials into slots[c][*] of every CTA (itself included),
// then each CTA combines its own slots in an association fixed by P alone, so all
// CTAs compute bit-identical statistics, whichever protocol carried the partials.
//   sync:      st.shared::cluster, then two cluster barriers per stage (the first
//              makes the partials visible, the second keeps a slot set alive and
//              unchanged until every CTA has read it); one slot set for all stages.
//   mbarrier:  st.async completing transaction bytes on the receiver's mbarrier of
//              the stage; each stage has its own slot set and mbarrier, never reused
//              (two sets by row parity in the persistent form), so no second barrier
//              and no exit barrier: a CTA exits only after every byte pushed into it
//              has landed.
//   none:      one CTA per row; the CTA partial is the statistic.
// Both protocols open with a split cluster barrier at kernel entry (rule 0 of DSMEM,
// ptx.cuh) whose wait comes before the first push and overlaps the first pass.
#ifndef CREDIT_DEVICE_EXCHANGE_CUH
#define CREDIT_DEVICE_EXCHANGE_CUH

#include "credit/device/ptx.cuh"
#include "credit/device/reduce.cuh"

namespace credit {
namespace device {

enum class Exchange : int { None, Sync, Mbarrier };

// Thread t < P writes this CTA's Q partials into slots[rank][*] of CTA t.
template <int Q>
CREDIT_DEVICE void push_sync(const float* cta_partial, float* slots, int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < P) {
    const uint32_t me = ptx::cluster_ctarank();
    const uint32_t remote = ptx::mapa(ptx::smem_addr(slots + me * Q), (uint32_t)t);
#pragma unroll
    for (int j = 0; j < Q; ++j) ptx::st_cluster_f32(remote + 4u * (uint32_t)j, cta_partial[j]);
  }
}

// The same with st.async, each store completing 4 bytes on the mbarrier at `bar`'s
// offset in CTA t. At P == 1 (no st.async without a peer) thread 0 stores locally and
// completes the Q * 4 bytes itself; the caller then needs a __syncthreads.
template <int Q>
CREDIT_DEVICE void push_async(const float* cta_partial, float* slots, uint64_t* bar, int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (P == 1) {
    if (t == 0) {
#pragma unroll
      for (int j = 0; j < Q; ++j) slots[j] = cta_partial[j];
      ptx::mbar_complete_tx_local(ptx::smem_addr(bar), 4u * Q);
    }
    return;
  }
  if (t < P) {
    const uint32_t me = ptx::cluster_ctarank();
    const uint32_t remote = ptx::mapa(ptx::smem_addr(slots + me * Q), (uint32_t)t);
    const uint32_t remote_bar = ptx::mapa(ptx::smem_addr(bar), (uint32_t)t);
#pragma unroll
    for (int j = 0; j < Q; ++j) ptx::st_async_f32(remote + 4u * (uint32_t)j, cta_partial[j], remote_bar);
  }
}

// ---------------------------------------------------------------------------
// Combining the slots: statistic j = slots[0][j] (+) ... (+) slots[P-1][j]. Every
// thread of every CTA runs it right after the exchange while the CTA waits for the
// result, so its depth is paid once per stage and row. For P = 2, 4, 8, 16 a
// balanced tree ((0,1), (2,3), ..., then pairs of pairs), log2(P) deep; for any other
// P left to right. All 32 lanes of every warp call it.
// ---------------------------------------------------------------------------
template <Reduce K, int kP>
CREDIT_DEVICE float combine_slots_tree(const float* slots, int j, int Q) {
  static_assert(kP >= 2 && (kP & (kP - 1)) == 0, "a power of two");
  float v[kP];
#pragma unroll
  for (int c = 0; c < kP; ++c) v[c] = slots[c * Q + j];
#pragma unroll
  for (int s = 1; s < kP; s *= 2) {
#pragma unroll
    for (int c = 0; c + s < kP; c += 2 * s) v[c] = combine<K>(v[c], v[c + s]);
  }
  return v[0];
}

// The same sum spread over the lanes: lane t loads slot t % P and adds its xor
// partner's value log2(P) times. Partners add the same two operands and IEEE addition
// is commutative bit for bit, so every lane ends with the tree's bits: one load and
// log2(P) shuffles and adds a lane instead of P loads and P - 1 adds. Sums only:
// fmaxf(+0, -0) may depend on the operands' order.
template <int kP>
CREDIT_DEVICE float sum_slots_lanes(const float* slots, int j, int Q) {
  static_assert(kP >= 2 && kP <= 32 && (kP & (kP - 1)) == 0, "a power of two, at most a warp");
  float v = slots[static_cast<int>(threadIdx.x & (kP - 1)) * Q + j];
#pragma unroll
  for (int s = 1; s < kP; s *= 2) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}

template <Reduce K>
CREDIT_DEVICE float combine_slots(const float* slots, int j, int Q, int P) {
  if (K == Reduce::Sum) {
    switch (P) {
      case 2: return sum_slots_lanes<2>(slots, j, Q);
      case 4: return sum_slots_lanes<4>(slots, j, Q);
      case 8: return sum_slots_lanes<8>(slots, j, Q);
      case 16: return sum_slots_lanes<16>(slots, j, Q);
      default: break;
    }
  } else {
    switch (P) {
      case 2: return combine_slots_tree<K, 2>(slots, j, Q);
      case 4: return combine_slots_tree<K, 4>(slots, j, Q);
      case 8: return combine_slots_tree<K, 8>(slots, j, Q);
      case 16: return combine_slots_tree<K, 16>(slots, j, Q);
      default: break;
    }
  }
  float acc = slots[j];
  for (int c = 1; c < P; ++c) acc = combine<K>(acc, slots[c * Q + j]);
  return acc;
}

// The online statistic's group at slots[*][J] (m) and slots[*][J + 1 + i] (s_i), in
// the same association: for P = 2, 4, 8, 16 spread over the lanes as the sums are
// (its combine is commutative bit for bit, reduce.cuh), else left to right.
template <int J, int K, int kP>
CREDIT_DEVICE void sumexp_slots_lanes(const float* slots, int Q, float& m, float (&s)[K]) {
  static_assert(kP >= 2 && kP <= 32 && (kP & (kP - 1)) == 0, "a power of two, at most a warp");
  const float* own = slots + static_cast<int>(threadIdx.x & (kP - 1)) * Q + J;
  m = own[0];
#pragma unroll
  for (int i = 0; i < K; ++i) s[i] = own[1 + i];
#pragma unroll
  for (int o = 1; o < kP; o *= 2) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
    float s2[K];
#pragma unroll
    for (int i = 0; i < K; ++i) s2[i] = __shfl_xor_sync(0xffffffffu, s[i], o);
    sumexp_combine(m, s, m2, s2);
  }
}

template <int J, int K>
CREDIT_DEVICE void sumexp_slots(const float* slots, int Q, int P, float& m, float (&s)[K]) {
  switch (P) {
    case 2: return sumexp_slots_lanes<J, K, 2>(slots, Q, m, s);
    case 4: return sumexp_slots_lanes<J, K, 4>(slots, Q, m, s);
    case 8: return sumexp_slots_lanes<J, K, 8>(slots, Q, m, s);
    case 16: return sumexp_slots_lanes<J, K, 16>(slots, Q, m, s);
    default: break;
  }
  m = slots[J];
#pragma unroll
  for (int i = 0; i < K; ++i) s[i] = slots[J + 1 + i];
  for (int c = 1; c < P; ++c) {
    float s2[K];
#pragma unroll
    for (int i = 0; i < K; ++i) s2[i] = slots[c * Q + J + 1 + i];
    sumexp_combine(m, s, slots[c * Q + J], s2);
  }
}

// The moments at slots[*][J .. J + 2] (n, s, M2), in the same association and for
// the same reason as the online statistic's group.
template <int J, int kP>
CREDIT_DEVICE void moments_slots_lanes(const float* slots, int Q, float& n, float& s, float& m) {
  static_assert(kP >= 2 && kP <= 32 && (kP & (kP - 1)) == 0, "a power of two, at most a warp");
  const float* own = slots + static_cast<int>(threadIdx.x & (kP - 1)) * Q + J;
  n = own[0];
  s = own[1];
  m = own[2];
#pragma unroll
  for (int o = 1; o < kP; o *= 2) {
    const float n2 = __shfl_xor_sync(0xffffffffu, n, o);
    const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
    const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
    moments_combine(n, s, m, n2, s2, m2);
  }
}

template <int J>
CREDIT_DEVICE void moments_slots(const float* slots, int Q, int P, float& n, float& s, float& m) {
  switch (P) {
    case 2: return moments_slots_lanes<J, 2>(slots, Q, n, s, m);
    case 4: return moments_slots_lanes<J, 4>(slots, Q, n, s, m);
    case 8: return moments_slots_lanes<J, 8>(slots, Q, n, s, m);
    case 16: return moments_slots_lanes<J, 16>(slots, Q, n, s, m);
    default: break;
  }
  n = slots[J];
  s = slots[J + 1];
  m = slots[J + 2];
  for (int c = 1; c < P; ++c) moments_combine(n, s, m, slots[c * Q + J], slots[c * Q + J + 1], slots[c * Q + J + 2]);
}

// Statistic j of a stage of kinds K... from its slots into r[j]: one kind, or the
// whole group a SumExpMax or MomentsCount opens (the rest of the group is written
// with it).
template <int j, Reduce... K>
CREDIT_DEVICE void combine_slots_at(float (&r)[sizeof...(K)], const float* slots, int P) {
  using G = Kinds<K...>;
  if constexpr (G::kind[j] == Reduce::SumExpMax) {
    float m, s[G::sums(j)];
    sumexp_slots<j>(slots, G::Q, P, m, s);
    sumexp_store<j>(r, m, s);
  } else if constexpr (G::kind[j] == Reduce::MomentsCount) {
    moments_slots<j>(slots, G::Q, P, r[j], r[j + 1], r[j + 2]);
  } else if constexpr (!G::inGroup(j)) {
    r[j] = combine_slots<G::kind[j]>(slots, j, G::Q, P);
  }
}

// ---------------------------------------------------------------------------
// The protocols as policies of the row kernel. `Ctx` gives slots, bars, cta_partial,
// P and tid; `Rows` the persistent form's row claims, which travel with stage 0's
// partials (row_claims.cuh). Stage `l` holds Q statistics of kinds K..., its slots at
// float offset P * QOFF of the slot region (mbarrier protocol).
// ---------------------------------------------------------------------------
template <Exchange X, bool kTwoSets>
struct ExchangePolicy;

template <bool kTwoSets>
struct ExchangePolicy<Exchange::None, kTwoSets> {
  CREDIT_DEVICE static void setup(unsigned, uint64_t*, int) {}
  template <int l, int QOFF, int QSUM, int L, Reduce... K, int... J, class Ctx, class Rows>
  CREDIT_DEVICE static void stage(IntSeq<J...>, float (&r)[sizeof...(K)], const Ctx& c, long long, Rows&) {
    ((r[J] = c.cta_partial[J]), ...);  // one CTA per row: the CTA partial is the statistic
  }
};

template <bool kTwoSets>
struct ExchangePolicy<Exchange::Sync, kTwoSets> {
  static_assert(!kTwoSets, "the sync protocol exchanges one row at a time");
  // Rule 0: a relaxed arrival here, the wait before the first push.
  CREDIT_DEVICE static void setup(unsigned, uint64_t*, int) { ptx::cluster_arrive_relaxed(); }
  template <int l, int QOFF, int QSUM, int L, Reduce... K, int... J, class Ctx, class Rows>
  CREDIT_DEVICE static void stage(IntSeq<J...>, float (&r)[sizeof...(K)], const Ctx& c, long long, Rows&) {
    constexpr int Q = static_cast<int>(sizeof...(K));
    if (l == 0) ptx::cluster_wait();  // rule 0: every CTA of the cluster has started
    push_sync<Q>(c.cta_partial, c.slots, c.P);
    ptx::cluster_sync();  // every partial has landed in every CTA
    (combine_slots_at<J, K...>(r, c.slots, c.P), ...);
    ptx::cluster_sync();  // the slots read everywhere before the next stage writes them; no CTA exits early
  }
};

template <bool kTwoSets>
struct ExchangePolicy<Exchange::Mbarrier, kTwoSets> {
  // One mbarrier per stage (two sets by row parity), one arrival each: the CTA's own
  // expect_tx. The fence releases the inits to the cluster, the split barrier's wait
  // before the first push ensures every peer has started and initialised its own.
  CREDIT_DEVICE static void setup(unsigned tid, uint64_t* bars, int stages) {
    if (tid == 0) {
      for (int s = 0; s < (kTwoSets ? 2 : 1) * stages; ++s) ptx::mbar_init(ptx::smem_addr(bars + s), 1);
      ptx::fence_mbarrier_init_cluster();
    }
    ptx::cluster_arrive();
  }
  // Row k's set: k % 2 in the persistent form, waited with phase (k / 2) % 2. A CTA is
  // at most one row ahead of a peer (it finishes row k + 1 only with the peer's
  // row-(k + 1) partials, pushed after the peer read its row-k slots), so the set it
  // writes is free.
  template <int l, int QOFF, int QSUM, int L, Reduce... K, int... J, class Ctx, class Rows>
  CREDIT_DEVICE static void stage(IntSeq<J...>, float (&r)[sizeof...(K)], const Ctx& c, long long k, Rows& rows) {
    constexpr int Q = static_cast<int>(sizeof...(K));
    if (l == 0 && (!kTwoSets || k == 0)) ptx::cluster_wait();  // the set-up barrier's second half
    const int set = kTwoSets ? static_cast<int>(k & 1) : 0;
    float* const stage_slots = c.slots + c.P * (QOFF + set * QSUM);
    uint64_t* const stage_bar = c.bars + l + set * L;
    const bool claim = l == 0 && rows.sent_at(k);  // a row claim travels with stage 0's partials
    if (c.tid == 0) ptx::mbar_arrive_expect_tx(ptx::smem_addr(stage_bar), c.P * Q * 4 + (claim ? 4 : 0));
    push_async<Q>(c.cta_partial, stage_slots, stage_bar, c.P);
    if (l == 0) rows.send(k, stage_bar, c.P);
    if (c.P == 1) __syncthreads();  // thread 0 stored the slots locally
    ptx::mbar_wait(ptx::smem_addr(stage_bar), kTwoSets ? static_cast<uint32_t>((k >> 1) & 1) : 0u);
    if (l == 0) rows.received(k);
    (combine_slots_at<J, K...>(r, stage_slots, c.P), ...);
  }
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_EXCHANGE_CUH
