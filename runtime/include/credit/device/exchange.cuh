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

// The group statistic of G partials at slots[*][J] that kind Open opens (an online
// statistic, moments), in the same association as the sums: for P = 2, 4, 8, 16 spread
// over the lanes (its combine is commutative bit for bit, reduce.cuh), else left to
// right.
template <Reduce Open, int J, int G, int kP>
CREDIT_DEVICE void group_slots_lanes(const float* slots, int Q, float (&a)[G]) {
  static_assert(kP >= 2 && kP <= 32 && (kP & (kP - 1)) == 0, "a power of two, at most a warp");
  const float* own = slots + static_cast<int>(threadIdx.x & (kP - 1)) * Q + J;
#pragma unroll
  for (int i = 0; i < G; ++i) a[i] = own[i];
#pragma unroll
  for (int o = 1; o < kP; o *= 2) {
    float b[G];
#pragma unroll
    for (int i = 0; i < G; ++i) b[i] = __shfl_xor_sync(0xffffffffu, a[i], o);
    group_combine<Open>(a, b);
  }
}

template <Reduce Open, int J, int G>
CREDIT_DEVICE void group_slots(const float* slots, int Q, int P, float (&a)[G]) {
  switch (P) {
    case 2: return group_slots_lanes<Open, J, G, 2>(slots, Q, a);
    case 4: return group_slots_lanes<Open, J, G, 4>(slots, Q, a);
    case 8: return group_slots_lanes<Open, J, G, 8>(slots, Q, a);
    case 16: return group_slots_lanes<Open, J, G, 16>(slots, Q, a);
    default: break;
  }
#pragma unroll
  for (int i = 0; i < G; ++i) a[i] = slots[J + i];
  for (int c = 1; c < P; ++c) {
    float b[G];
#pragma unroll
    for (int i = 0; i < G; ++i) b[i] = slots[c * Q + J + i];
    group_combine<Open>(a, b);
  }
}

// Statistic j of a stage of kinds K... from its slots into r[j]: one kind, or the
// group statistic it opens (the rest of the group is written with it).
template <int j, Reduce... K>
CREDIT_DEVICE void combine_slots_at(float (&r)[sizeof...(K)], const float* slots, int P) {
  using G = Kinds<K...>;
  if constexpr (G::opensGroup(j)) {
    float a[G::groupSize(j)];
    group_slots<G::kind[j], j>(slots, G::Q, P, a);
#pragma unroll
    for (int i = 0; i < G::groupSize(j); ++i) r[j + i] = a[i];
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
