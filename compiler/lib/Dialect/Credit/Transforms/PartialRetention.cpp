//===- PartialRetention.cpp - The kept input the partial form re-reads ----===//
//
// With two or more kept inputs the cluster kernels have a partial-retention
// form: every kept input but one in shared memory, the dropped one read from
// global memory again by every pass (served by L2 when the passes are close).
// Its smaller footprint lets more CTAs reside per SM where the full form fits
// only one.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Schedule.h"

using namespace mlir;
using namespace mlir::credit;

/// The dropped input is the one whose reads after the first are fewest (each
/// becomes a read from global memory), never one the retained slice holds as
/// T(x) (that saving would be lost) unless every kept input is; on a tie the
/// last in first-read order. Its SMEM array goes last, so that the partial
/// form's layout is the full form's without the last array: every other
/// array keeps its offset.
void mlir::credit::choosePartialRetention(KernelSchedule &s) {
  s.partialDrop = -1;
  s.partialDropReadLate = false;
  s.smemSlot.clear();
  for (unsigned i = 0; i < s.kept.size(); ++i)
    s.smemSlot.push_back(i);
  if (s.kept.size() < 2)
    return;

  auto isMaterialized = [&](unsigned input) { return s.materializationOf(input) != nullptr; };
  const bool allMaterialized = llvm::all_of(s.kept, isMaterialized);
  size_t droppedReaders = 0;
  for (auto [i, k] : llvm::enumerate(s.kept)) {
    if (!allMaterialized && isMaterialized(k))
      continue;
    const size_t readers = s.readersOf(k).size();
    if (s.partialDrop < 0 || readers <= droppedReaders) {
      s.partialDrop = static_cast<int>(i);
      droppedReaders = readers;
    }
  }

  unsigned slot = 0;
  for (unsigned i = 0; i < s.kept.size(); ++i)
    if (static_cast<int>(i) != s.partialDrop)
      s.smemSlot[i] = slot++;
  s.smemSlot[s.partialDrop] = slot;

  // First read after another kept input's first read: its slice would sit
  // idle in SMEM until then (credit::usePartialRetention runs it at any P).
  const int droppedFirst = s.readersOf(s.kept[s.partialDrop]).front();
  s.partialDropReadLate = llvm::any_of(
      s.kept, [&](unsigned k) { return s.readersOf(k).front() < droppedFirst; });
}
