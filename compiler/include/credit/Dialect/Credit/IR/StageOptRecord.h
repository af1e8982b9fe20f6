//===- StageOptRecord.h - credit.stage_opt, written and read back -*- C++ -*-===//
//
// What credit-merge-stages changed, as the kernel attributes
// `credit.stage_opt` (the figures as written, the statistics that moved, the
// fusions) and `credit.moments_available` (what fuse-moments would fuse where
// it is off). The pass writes them; the classification and the report read
// them. The attributes stay dictionaries, so that `--emit=mlir` shows them as
// plain key/value pairs; this file is their one schema.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DIALECT_CREDIT_IR_STAGEOPTRECORD_H
#define CREDIT_DIALECT_CREDIT_IR_STAGEOPTRECORD_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::credit {

struct StageOptRecord {
  /// The kernel's figures before the stages were rebuilt (bytes per element).
  struct AsWritten {
    int64_t L = 0;
    std::vector<int64_t> q;
    int64_t baseline = 0, cluster = 0, reread = 0, keep = 0;
    std::vector<std::string> kept;
    double ceiling = 1.0;
    int64_t Ksync = 0, Kmbarrier = 0;
  };
  struct Move {
    std::string statistic;
    int64_t from = 0, to = 0; // stages, 1-based
    LocationAttr location;
  };
  /// Online: a max (`anchor`) and the sums of exponentials relative to it;
  /// moments: a sum (`anchor`) and the centred sum of squares around its mean
  /// (one entry in `sums`).
  struct Fusion {
    enum class Kind { Online, Moments } kind = Kind::Online;
    std::string anchor;
    std::vector<std::string> sums;
    int64_t stage = 0; // where the fused statistic runs, 1-based
    LocationAttr location;
    std::vector<LocationAttr> sumLocations;
  };
  AsWritten asWritten;
  std::vector<Move> moved;
  std::vector<Fusion> fused;
};

/// Where fuse-moments is off: the stages it would leave and the (sum, centred
/// sum of squares) pairs it would fuse.
struct MomentsAvailable {
  int64_t L = 0;
  std::vector<std::pair<std::string, std::string>> pairs;
};

void writeStageOpt(KernelOp kernel, const StageOptRecord &record);
/// The record, or nullopt where the kernel has none (merge-stages did not run) or
/// it has no `as_written` dictionary. Otherwise lenient: a missing figure reads
/// as 0, a missing name as empty, an entry of an unknown kind is skipped.
std::optional<StageOptRecord> readStageOpt(KernelOp kernel);

void writeMomentsAvailable(KernelOp kernel, const MomentsAvailable &available);
std::optional<MomentsAvailable> readMomentsAvailable(KernelOp kernel);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_IR_STAGEOPTRECORD_H
