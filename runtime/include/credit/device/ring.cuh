// credit/device/ring.cuh -- the persistent form's ring of bulk copies (Ring.h has its
// layout and arithmetic).
//
// The CTA's kept-slice copies are numbered j = 0, 1, ...: with C copies a row, copy j
// is piece j % PIECES of kept input (j % C) / PIECES (first-read order) of its row
// j / C, into unit j % units, completing phase (j / units) % 2 of that unit's
// mbarrier. Thread 0 issues the first `units` copies before the row loop and, once a
// row has finished with its units, the copies `units` ahead, which reuse exactly
// them. With two pieces, h frees the first pieces' units once every thread is past
// them, half an h before the row's end. Every thread tracks its row's first copy as a
// unit and a lap parity, advanced by one addition a row (no 64-bit division).
#ifndef CREDIT_DEVICE_RING_CUH
#define CREDIT_DEVICE_RING_CUH

#include "credit/device/ptx.cuh"
#include "credit/runtime/Ring.h"

namespace credit {
namespace device {

struct RingCursor {
  int u0 = 0;         // the unit of the row's first copy
  unsigned lap = 0;   // its lap parity
  CREDIT_DEVICE int unit(int q, int units) const { return ringUnitAt(u0, q, units); }
  CREDIT_DEVICE uint32_t parity(int q, int units) const {
    return static_cast<uint32_t>(ringParityAt(lap, u0, q, units));
  }
  CREDIT_DEVICE void advance(int copiesPerRow, int units) { ringAdvance(u0, lap, copiesPerRow, units); }
};

namespace detail {
// The copy of kept input A (first-read order) whose ring index is `array`.
template <class K, int... A>
CREDIT_DEVICE void ring_copy_of(IntSeq<A...>, const K& k, int array, uint32_t dst, long long r, unsigned pbeg,
                                unsigned bytes, uint32_t bar) {
  ((array == A ? ptx::bulk_load(dst, k.template row_input<K::W::kKept[A]>() + r * k.N + k.begin + pbeg, bytes, bar)
               : void()),
   ...);
}
}  // namespace detail

// Issues copy j (thread 0). An empty piece completes its phase at once.
template <class K>
CREDIT_DEVICE void ring_load(const K& k, long long j) {
  const long long r = k.rows.index(ringRow(j, K::kRingCopies));
  const int unit = ringUnit(j, k.ring);
  const uint32_t bar = ptx::smem_addr(k.load_bars + unit);
  const uint32_t dst = ptx::smem_addr(k.smem + k.layout.keepOffset + unit * k.layout.keepBytes);
  const unsigned pfirst = ringPiece(j, K::PIECES) * k.piece_elems;
  const unsigned pbeg = pfirst < k.len ? pfirst : k.len;
  const unsigned pend = pbeg + k.piece_elems < k.len ? pbeg + k.piece_elems : k.len;
  ptx::mbar_arrive_expect_tx(bar, (pend - pbeg) * 4);
  if (pend > pbeg)
    detail::ring_copy_of(Indices<K::NK>{}, k, ringArray(j, K::NK, K::PIECES), dst, r, pbeg, (pend - pbeg) * 4, bar);
}

// The first rows' copies, before the row loop (thread 0).
template <class K>
CREDIT_DEVICE void ring_start(const K& k) {
  for (long long j = 0; j < k.ring && k.rows.exists(ringRow(j, K::kRingCopies)); ++j) ring_load(k, j);
}

// Once row copies [j0, j0 + C) are read: copy j + units into the unit of each copy j
// among them of piece `freed` (-1: every piece), for rows that exist (thread 0).
template <class K>
CREDIT_DEVICE void ring_refill(const K& k, long long j0, int freed) {
  for (int q = 0; q < K::kRingCopies; ++q) {
    const long long j = j0 + k.ring + q;
    if (!k.rows.exists(ringRow(j, K::kRingCopies))) break;
    if (freed < 0 || ringPiece(q, K::PIECES) == freed) ring_load(k, j);
  }
}

// h, at the second piece's first sweep: every thread has read the row's first pieces,
// whose units take the copies `units` ahead. Every thread calls it.
template <class K>
CREDIT_DEVICE void ring_release_first_pieces(const K& k, long long ring_copy) {
  __syncthreads();
  if (k.tid == 0) {
    ptx::fence_proxy_async_smem();  // the generic-proxy reads before the copies' writes
    ring_refill(k, ring_copy, 0);
  }
}

// The row's end: every thread has read its units (h is the last pass); refill them
// (the second pieces' only where h released the first) and move to the next row.
template <class K>
CREDIT_DEVICE void ring_end_row(K& k, long long ring_copy) {
  __syncthreads();
  if (k.tid == 0 && k.rows.exists(ringRow(ring_copy + k.ring, K::kRingCopies))) {
    ptx::fence_proxy_async_smem();  // the reads above (generic proxy) before the copies' writes (async proxy)
    ring_refill(k, ring_copy, k.release_in_h ? 1 : -1);
  }
  k.cursor.advance(K::kRingCopies, k.ring);
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_RING_CUH
