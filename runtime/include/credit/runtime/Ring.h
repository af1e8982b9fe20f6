// credit/runtime/Ring.h -- the persistent form's ring of bulk copies: its SMEM
// layout, its shape and the arithmetic that numbers its copies.
//
// The persistent form's grid holds the resident clusters only; cluster c takes rows
// c, c + G, c + 2G, ... (or rows claimed at run time, row_claims.cuh). Each CTA
// streams its kept inputs' slices through a ring of `units` SMEM buffers, so the
// next rows load while it reduces and writes this one. The ring is counted in
// copies: each kept slice is copied in `pieces` parts (1 or 2), and with
// C = A * pieces copies a row (A kept arrays, first-read order) the CTA's j-th copy
// is piece j % pieces of kept array (j % C) / pieces of its row j / C, into unit
// j % units, completing phase (j / units) % 2 of that unit's mbarrier. `units` need
// not be a multiple of C. Constexpr and CREDIT_HD, as SmemLayout.h.
#ifndef CREDIT_RUNTIME_RING_H
#define CREDIT_RUNTIME_RING_H

#include "credit/runtime/SmemLayout.h"

namespace credit {

inline constexpr int kPersistentMaxPieces = 2;
// Claimed rows a CTA holds: a row's exchange brings the row used ceil(units / C) <=
// kPersistentMaxRows rows later; its queue entry is written again kRowClaimQueue rows later.
inline constexpr int kRowClaimQueue = 4;
inline constexpr int kRowClaimWords = 2 + kRowClaimQueue + 1;  // two incoming slots, the queue, the handoff
// A piece is whole sweeps of the widest batch the form is built with (an unroll of
// at most 4), so that every sweep of the pass loops lies in one piece.
inline constexpr int kPersistentMaxUnroll = 4;
CREDIT_HD constexpr long long persistentPieceElems(WorkloadGeometry g, long long N, int P, int pieces) {
  const long long slice = sliceElems(N, P);
  return pieces <= 1 ? slice : roundUp(ceilDiv(slice, pieces), (long long)kVecElems * kPersistentMaxUnroll * g.threads);
}

// The mbarrier scratch with two slot sets and 2L exchange mbarriers (by row parity),
// the row claims' words, one load mbarrier per unit, then the units, each one piece
// rounded up to kSliceAlign (`keepBytes` is one unit).
CREDIT_HD constexpr SmemLayout smemLayoutPersistent(WorkloadGeometry g, long long N, int P, int units,
                                                    int pieces = 1) {
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

// Copy j's row, kept array, piece, unit and phase. Thread 0 issues copies
// 0 .. units - 1 first and, when row k ends, copies k*C + units .. k*C + units + C - 1,
// which reuse exactly row k's units; with units >= C every copy is issued before
// its row waits for it.
CREDIT_HD constexpr long long ringRow(long long j, int copiesPerRow) { return j / copiesPerRow; }
CREDIT_HD constexpr int ringArray(long long j, int arrays, int pieces = 1) {
  return static_cast<int>(j % (static_cast<long long>(arrays) * pieces)) / pieces;
}
CREDIT_HD constexpr int ringPiece(long long j, int pieces) { return static_cast<int>(j % pieces); }
CREDIT_HD constexpr int ringUnit(long long j, int units) { return static_cast<int>(j % units); }
CREDIT_HD constexpr unsigned ringParity(long long j, int units) { return static_cast<unsigned>((j / units) & 1); }
// The same per row without a 64-bit division: row k's first copy sits in unit
// u0 = (k*C) % units of lap parity ((k*C) / units) & 1; its copy q < units is in unit
// ringUnitAt and waits on phase ringParityAt; ringAdvance moves (u0, lap) to the next
// row (C < units: one wrap at most).
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

// The ring's shape: `units` units of one piece each, every kept slice in `pieces`
// pieces; units == 0 where the form does not fit.
struct PersistentRing {
  int units;
  int pieces;
};
// Rows' worth of copies in flight at most: a deeper ring no longer shortens the
// wait for a row's copies.
inline constexpr int kPersistentMaxRows = 3;
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
// As many units as fit the opt-in limit, up to kPersistentMaxRows rows' worth; none
// where fewer than C + 1 fit (no copy of a later row could be in flight). Of whole
// slices and halves, the one holding more rows' worth (units / C); whole slices on a
// tie, and only whole slices where `halves` is false (a kept input first read after
// the first pass already overlaps its copy with the passes before it).
CREDIT_HD constexpr PersistentRing persistentRing(WorkloadGeometry g, long long N, int P, long long smemOptin,
                                                  bool halves = true) {
  PersistentRing best{0, 1};
  for (int pieces = 1; pieces <= (halves ? kPersistentMaxPieces : 1); ++pieces) {
    const int u = persistentUnitsOfPieces(g, N, P, pieces, smemOptin);
    if (u > 0 && (best.units == 0 || (long long)u * best.pieces > (long long)best.units * pieces)) best = {u, pieces};
  }
  return best;
}
CREDIT_HD constexpr int persistentUnits(WorkloadGeometry g, long long N, int P, long long smemOptin) {
  return persistentRing(g, N, P, smemOptin).units;
}

}  // namespace credit

#endif  // CREDIT_RUNTIME_RING_H
