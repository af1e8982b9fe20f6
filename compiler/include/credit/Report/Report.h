//===- Report.h - The static profitability report ----------------*- C++ -*-===//
//
// The figures `creditc --report` prints, gathered from the attributes the
// analysis passes leave on `credit.kernel`. The struct is plain data so the
// printers (text table, JSON) are testable without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_REPORT_REPORT_H
#define CREDIT_REPORT_REPORT_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace credit {

struct PassReads {
  std::string pass; // "stage 1", ..., "h"
  std::vector<std::string> rowInputs;
  std::vector<std::string> broadcastInputs;
  std::vector<std::string> scalarInputs;
  /// The first stage's pass only: per-element outputs it writes because they
  /// need no statistic (the workload then reads its row once).
  std::vector<std::string> writes;
};

struct LegalityRow {
  int P = 1;
  bool portable = true;
  long long scratchBytes = 0; // S_scratch for this P (sync protocol)
  long long scratchBytesMbarrier = 0;
  long long maxN = 0;        // largest N that fits (Eq. 3), 0 if none
  long long smemBytesAtN = -1; // at the requested N, -1 when no N given
  std::optional<bool> legalAtN; // at the requested N
};

/// The schedule of an accepted kernel (credit-schedule, #credit.schedule).
struct ScheduleSummary {
  int threads = 0, wideThreads = 0;     // narrow CTA size; the wide-CTA twins' (0: none)
  int vectorWidth = 4;                  // elements per access run of the vector kernels
  std::vector<std::string> forms;       // every kernel form generated, in order
  std::vector<std::string> kept;        // kept inputs, first-read order
  std::vector<std::string> smemOrder;   // kept inputs, SMEM array order
  struct Materialized {
    std::string input;
    std::string pass;                   // the pass storing T(input): "stage 2", ..., "h"
  };
  std::vector<Materialized> materialized;
  std::string partialDropped;           // "" without a partial-retention form
  bool partialDroppedReadLate = false;  // first read after the first pass
  bool keptReadLate = false;            // some kept input is first read after the first pass
  std::vector<std::string> onlyH;       // inputs only h reads
  std::vector<std::string> hoisted;     // ... the broadcast ones
  std::vector<std::string> prefetchL2;  // ... the row ones the persistent form prefetches into L2
};

/// What credit-merge-stages changed (credit.stage_opt): the figures of the
/// stages as written and, with source locations, the statistics that moved
/// and the max / sum-of-exp pairs fused into one online statistic, the sums
/// fused with their centred sum of squares into moments.
struct StageOptSummary {
  int L = 0;
  std::vector<int> q;
  long long baseline = 0, cluster = 0, keep = 0, reread = 0;
  std::vector<std::string> keptInputs;
  double ceiling = 1.0;
  int Ksync = 0, Kmbarrier = 0;
  struct Move {
    std::string statistic;
    int from = 0, to = 0; // stages, 1-based
    std::string location;
  };
  std::vector<Move> moved;
  struct Fusion {
    /// "online": a max (`max`) and sums of exponentials relative to it
    /// (`sums`); "moments": a sum (`max`: the anchor) and the centred sum of
    /// squares around its mean (`sums`, one).
    std::string kind = "online";
    std::string max;               // the max's statistic (moments: the sum's)
    std::vector<std::string> sums; // the statistics of the fused sums
    int stage = 0;                 // where the fused statistic runs
    std::string location;          // the max (moments: the sum)
    std::vector<std::string> sumLocations;
  };
  std::vector<Fusion> fused;
};

/// The stages the reread kernel runs where they differ from the other kernels'
/// (creditc --fuse-online=reread, the default): an online statistic in place of
/// a max stage and a sum-of-exp stage, one pass over the row fewer.
struct RereadKernelSummary {
  int L = 0;
  std::vector<int> q;
  long long baseline = 0, reread = 0; // bytes per element the reread kernel moves, re-reads
  double ceiling = 1.0;               // its baseline / cluster
  std::vector<StageOptSummary::Fusion> fused;
};

/// An input or output with its storage type (the arithmetic is f32).
struct OperandSummary {
  std::string name;
  bool output = false;
  std::string kind; // "row", "broadcast", "scalar" (one value per row)
  std::string type; // "f32", "bf16", "f16", "i8"
};

struct Report {
  std::string kernel;
  std::string file;
  bool accepted = false;
  std::string category; // accepted, elementwise, one-pass, scan, stencil, selection
  std::string reason;
  std::string location; // file:line:col
  std::vector<OperandSummary> operands; // inputs, then outputs, in signature order

  int L = 0;
  std::vector<int> q;
  std::vector<std::string> statNames; // per stage, comma-joined
  std::vector<PassReads> passes;

  // Bytes per element of the row (row-varying inputs and per-element outputs).
  long long baseline = 0, cluster = 0, keep = 0, reread = 0;
  std::vector<std::string> keptInputs;
  // Fixed traffic, identical in every schedule (D_fixed).
  long long fixedBroadcastPerElement = 0; // broadcast vectors, per element, summed over passes
  long long fixedPerRow = 0;              // per-row scalar inputs and outputs, bytes per row
  double ceiling = 1.0;                   // baseline / cluster

  int Ksync = 0, Kmbarrier = 0;

  std::string target;
  long long smemLimit = 0;
  int threads = 256; // threads per CTA the scratch was computed for
  std::optional<long long> N;
  std::vector<LegalityRow> legality;

  std::optional<ScheduleSummary> schedule; // accepted kernels only
  /// Present when the stages that run differ from the stages as written.
  std::optional<StageOptSummary> stageOpt;
  /// Present when the reread kernel runs other stages than the kernels above.
  std::optional<RereadKernelSummary> rereadKernel;
  /// Where --fuse-moments is off and would remove a stage: the L it would give
  /// and the (sum, centred sum of squares) statistics it would fuse.
  struct MomentsAvailable {
    int L = 0;
    std::vector<std::pair<std::string, std::string>> pairs;
  };
  std::optional<MomentsAvailable> momentsAvailable;
};

/// Reads the analysis attributes of a `credit.kernel` op (after the analysis
/// pipeline ran). `file` is the .credit path shown in the header.
Report buildReport(mlir::Operation *kernelOp);
/// The report of `kernelOp` with the reread kernel's own stages, those of
/// `rereadKernelOp` (the same kernel with online statistics; null: none).
Report buildReport(mlir::Operation *kernelOp, mlir::Operation *rereadKernelOp);

void printReportText(const Report &r, llvm::raw_ostream &os);
llvm::json::Value reportToJSON(const Report &r);

} // namespace credit

#endif // CREDIT_REPORT_REPORT_H
