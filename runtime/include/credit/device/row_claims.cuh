// credit/device/row_claims.cuh -- which rows a CTA (cluster) works on.
//
//   one       the grid has one CTA (cluster) per row: row blockIdx.x (/ P)
//   static    the persistent form: the grid holds the resident clusters; cluster c takes
//             rows c, c + G, c + 2G, ...
//   claimed   as static for each cluster's first claim_from rows, then rows claimed at
//             run time from a counter (an atomicAdd), so clusters that run faster take
//             more rows.
// A claim travels with stage 0's partials. Warp 1's lane 0 of rank 0 claims each row a
// row before it is sent (the claim's latency then overlaps a whole row) and hands it
// to the senders in SMEM; threads t < P of rank 0 send it, one 4-byte st.async each to
// CTA t, completing on the same stage-0 mbarrier (whose expect_tx counts 4 more bytes
// on those rows); thread 0 queues it after the wait. No new barrier: every CTA of the
// cluster sees the same indices, so they stop together at the first index >= M. The
// last cluster to finish leaves the counter zero for the next launch.
#ifndef CREDIT_DEVICE_ROW_CLAIMS_CUH
#define CREDIT_DEVICE_ROW_CLAIMS_CUH

#include "credit/device/ptx.cuh"
#include "credit/runtime/Ring.h"

namespace credit {
namespace device {

// Threads t < P of rank 0 each send `value` to `slot` of CTA t, completing 4 bytes on
// that CTA's `bar` (the stage-0 exchange mbarrier). P >= 2: a cluster launch.
CREDIT_DEVICE void send_row_claim(unsigned* slot, uint64_t* bar, unsigned value, int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < P)
    ptx::st_async_f32(ptx::mapa(ptx::smem_addr(slot), (uint32_t)t), __uint_as_float(value),
                      ptx::mapa(ptx::smem_addr(bar), (uint32_t)t));
}

template <bool kCluster, bool kPersistent, bool kClaims, int THREADS>
struct RowSchedule {
  static_assert(!kClaims || kPersistent, "rows are claimed by the persistent form only");
  // The thread of rank 0 that claims rows (warp 1's lane 0): thread 0 arrives on the
  // stage-0 mbarrier and issues the ring's copies, which must not wait for the atomic.
  static constexpr unsigned kClaimThread = 32;
  static_assert(!kClaims || THREADS > static_cast<int>(kClaimThread), "the claims' thread is in warp 1");
  static_assert((kRowClaimQueue & (kRowClaimQueue - 1)) == 0, "the queue's index is a mask");

  long long M, row_first, clusters, rows;
  unsigned* counter;
  bool claims;
  int claim_ahead;
  long long claim_from;
  unsigned* claim_slots;    // [2]: incoming claims by row parity
  unsigned* claim_queue;    // [kRowClaimQueue]: claimed row kk at kk % kRowClaimQueue
  unsigned* claim_handoff;  // [1]: the row stage 0 sends next
  unsigned claim_pending;
  unsigned tid;
  int rank;

  // `copies`: the ring's copies per row (C); `units`: its units.
  CREDIT_DEVICE void init(long long M_, int P, int rank_, unsigned tid_, unsigned* counter_, int units, int copies,
                          unsigned* claim_words) {
    M = M_;
    counter = counter_;
    tid = tid_;
    rank = rank_;
    row_first = kCluster ? static_cast<long long>(blockIdx.x / static_cast<unsigned>(P))
                         : static_cast<long long>(blockIdx.x);
    clusters = kPersistent ? static_cast<long long>(gridDim.x / static_cast<unsigned>(P)) : 1;
    rows = kPersistent ? (row_first < M ? (M - 1 - row_first) / clusters + 1 : 0) : 1;
    claims = kClaims && counter != nullptr;
    claim_ahead = kPersistent && copies > 0 ? (units + copies - 1) / copies : 0;
    // The first claimed row: the last CREDIT_ROW_CLAIM_SHARE percent of the rows every
    // cluster has, and never one of the first claim_ahead (issued before any claim).
    const long long claim_rows_min = kPersistent ? M / clusters : 0;
    const long long claim_from_share = claim_rows_min - (claim_rows_min * CREDIT_ROW_CLAIM_SHARE + 99) / 100;
    claim_from = claim_from_share > claim_ahead ? claim_from_share : claim_ahead;
    claim_slots = claim_words;
    claim_queue = claim_slots + 2;
    claim_handoff = claim_queue + kRowClaimQueue;
    claim_pending = 0;
  }

  // Whether row kk's stage 0 sends a claimed row (row kk + claim_ahead).
  CREDIT_DEVICE bool sent_at(long long kk) const { return claims && kk + claim_ahead >= claim_from; }
  // The cluster's kk-th row; M: none.
  CREDIT_DEVICE long long row_at(long long kk) const {
    const long long r = claims && kk >= claim_from
                            ? claim_from * clusters + claim_queue[kk & (kRowClaimQueue - 1)]
                            : row_first + kk * clusters;
    return r < M ? r : M;
  }
  // One row per CTA: a loop of one iteration, known as such at compile time.
  CREDIT_DEVICE bool exists(long long kk) const { return kClaims ? row_at(kk) < M : kk < (kPersistent ? rows : 1); }
  CREDIT_DEVICE long long index(long long kk) const {
    return kClaims ? row_at(kk) : row_first + kk * (kPersistent ? clusters : 1);
  }

  // Before the row loop: the first claim.
  CREDIT_DEVICE void start() {
    if (rank == 0 && tid == kClaimThread && sent_at(0)) claim_pending = atomicAdd(counter, 1u);
  }
  // At the start of row k: hand the row stage 0 sends (claimed a row ago) to the senders
  // (the __syncthreads before the exchange orders it) and claim the next one.
  CREDIT_DEVICE void begin_row(long long k) {
    if (rank == 0 && tid == kClaimThread) {
      if (sent_at(k)) *claim_handoff = claim_pending;
      if (sent_at(k + 1)) claim_pending = atomicAdd(counter, 1u);
    }
  }
  // Stage 0's exchange of row k: the send, and the queueing once the stage's bytes landed
  // (the entry is used from row k + claim_ahead on; its slot is free again at row k + 2).
  CREDIT_DEVICE void send(long long k, uint64_t* stage_bar, int P) {
    if (rank == 0 && sent_at(k)) send_row_claim(claim_slots + (k & 1), stage_bar, *claim_handoff, P);
  }
  CREDIT_DEVICE void received(long long k) {
    if (tid == 0 && sent_at(k)) claim_queue[(k + claim_ahead) & (kRowClaimQueue - 1)] = claim_slots[k & 1];
  }
  // After the last row: the last cluster done leaves the counter zero. Each cluster's
  // claims come before its count (the same thread; the fence orders them).
  CREDIT_DEVICE void finish() {
    if (claims && rank == 0 && tid == kClaimThread) {
      __threadfence();
      if (atomicAdd(counter + 1, 1u) == static_cast<unsigned>(clusters) - 1u) {
        atomicExch(counter, 0u);
        atomicExch(counter + 1, 0u);
      }
    }
  }
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_ROW_CLAIMS_CUH
