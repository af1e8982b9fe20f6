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
/// array keeps its offset. The other arrays go by element size, largest first
/// (first-read order among equals): each then starts aligned to its widest
/// access (a slice is a multiple of 4 elements).
void mlir::credit::choosePartialRetention(KernelSchedule &s, llvm::ArrayRef<unsigned> keptBytes) {
  s.partialDrop = -1;
  s.partialDropReadLate = false;
  s.smemSlot.assign(s.kept.size(), 0);
  auto assignSlots = [&]() {
    llvm::SmallVector<unsigned> order;
    for (unsigned i = 0; i < s.kept.size(); ++i)
      if (static_cast<int>(i) != s.partialDrop)
        order.push_back(i);
    llvm::stable_sort(order, [&](unsigned a, unsigned b) { return keptBytes[a] > keptBytes[b]; });
    if (s.partialDrop >= 0)
      order.push_back(static_cast<unsigned>(s.partialDrop));
    for (auto [slot, i] : llvm::enumerate(order))
      s.smemSlot[i] = static_cast<unsigned>(slot);
  };
  if (s.kept.size() < 2)
    return assignSlots();

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

  assignSlots();

  // First read after another kept input's first read: its slice would sit
  // idle in SMEM until then (credit::usePartialRetention runs it at any P).
  const int droppedFirst = s.readersOf(s.kept[s.partialDrop]).front();
  s.partialDropReadLate = llvm::any_of(
      s.kept, [&](unsigned k) { return s.readersOf(k).front() < droppedFirst; });
}
