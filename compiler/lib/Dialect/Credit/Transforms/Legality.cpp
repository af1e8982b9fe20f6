//===- Legality.cpp - credit-legality -------------------------------------===//
//
// Eq. 3 of the paper: staging is legal for cluster size P only if
//   b_keep * slice(N, P) + S_scratch(P) <= S_max
// where slice(N, P) = ceil(N / P) rounded up to the vector width and S_max is
// the target's opt-in dynamic shared memory per CTA. The layout behind
// S_scratch is runtime/include/credit/runtime/Layout.h, the same header the
// generated kernels embed, so the report and the kernels cannot disagree.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITLEGALITY
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

::credit::WorkloadGeometry mlir::credit::computeGeometry(KernelOp kernel, int threads) {
  Traffic t = computeTraffic(kernel);
  ::credit::WorkloadGeometry g{};
  g.keepBytesPerElem = static_cast<int>(t.keep);
  g.numStages = static_cast<int>(t.L);
  g.qMax = 0;
  g.qSum = 0;
  for (int q : t.q) {
    g.qMax = std::max(g.qMax, q);
    g.qSum += q;
  }
  g.threads = threads;
  // Inputs only h reads: one pass reads them, and it is not a stage.
  llvm::MapVector<Operation *, llvm::SmallVector<Operation *, 2>> readers;
  for (const PassAccess &p : computePassAccess(kernel)) {
    for (InputOp in : p.rowInputs)
      readers[in].push_back(p.op);
    for (InputOp in : p.broadcastInputs)
      readers[in].push_back(p.op);
  }
  g.hOnlyArrays = 0;
  for (auto &[in, passes] : readers)
    if (passes.size() == 1 && !llvm::isa<StageOp>(passes.front()))
      ++g.hOnlyArrays;
  return g;
}

llvm::SmallVector<LegalityEntry>
mlir::credit::computeLegality(KernelOp kernel, const ::credit::TargetInfo &target, int64_t N,
                              int threads) {
  ::credit::WorkloadGeometry g = computeGeometry(kernel, threads);
  llvm::SmallVector<LegalityEntry> rows;
  for (int P : {1, 2, 4, 8, 16}) {
    if (P > target.maxNonPortableCluster)
      break;
    LegalityEntry e{};
    e.P = P;
    e.portable = P <= target.maxPortableCluster;
    e.scratchSync = ::credit::scratchBytes(g, P, ::credit::Protocol::Sync);
    e.scratchMbarrier = ::credit::scratchBytes(g, P, ::credit::Protocol::Mbarrier);
    e.maxN = ::credit::maxLegalN(g, P, ::credit::Protocol::Sync, target.smemOptinBytes);
    if (N > 0) {
      e.smemAtN = ::credit::smemBytes(g, N, P, ::credit::Protocol::Sync);
      e.legalAtN = e.smemAtN <= target.smemOptinBytes;
    }
    rows.push_back(e);
  }
  return rows;
}

FailureOr<LegalityTable> mlir::credit::readLegality(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>("credit.legality");
  auto fail = [&](llvm::StringRef what) {
    return kernel.emitError("credit.legality: ") << what << " (run credit-legality first)";
  };
  if (!d)
    return fail("missing");
  auto target = d.getAs<StringAttr>("target");
  auto threads = d.getAs<IntegerAttr>("threads");
  auto table = d.getAs<ArrayAttr>("table");
  if (!target || !threads || !table)
    return fail("target, threads or table is missing");
  LegalityTable l;
  l.target = ::credit::findTarget(target.str().c_str());
  if (!l.target.arch)
    return fail("unknown target '" + target.str() + "'");
  l.threads = static_cast<int>(threads.getInt());
  if (auto n = d.getAs<IntegerAttr>("N"))
    l.N = n.getInt();
  for (Attribute a : table) {
    auto row = llvm::dyn_cast<DictionaryAttr>(a);
    auto P = row ? row.getAs<IntegerAttr>("P") : IntegerAttr();
    auto portable = row ? row.getAs<BoolAttr>("portable") : BoolAttr();
    auto sync = row ? row.getAs<IntegerAttr>("scratch_sync") : IntegerAttr();
    auto mbar = row ? row.getAs<IntegerAttr>("scratch_mbarrier") : IntegerAttr();
    auto maxN = row ? row.getAs<IntegerAttr>("max_N") : IntegerAttr();
    if (!P || !portable || !sync || !mbar || !maxN)
      return fail("a table row is malformed");
    LegalityEntry e{};
    e.P = static_cast<int>(P.getInt());
    e.portable = portable.getValue();
    e.scratchSync = sync.getInt();
    e.scratchMbarrier = mbar.getInt();
    e.maxN = maxN.getInt();
    if (l.N > 0) {
      auto smem = row.getAs<IntegerAttr>("smem");
      auto legal = row.getAs<BoolAttr>("legal");
      if (!smem || !legal)
        return fail("a table row lacks smem / legal at N");
      e.smemAtN = smem.getInt();
      e.legalAtN = legal.getValue();
    }
    l.rows.push_back(e);
  }
  return l;
}

namespace {
struct CreditLegalityPass : public mlir::credit::impl::CreditLegalityBase<CreditLegalityPass> {
  using CreditLegalityBase::CreditLegalityBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    ::credit::TargetInfo info = ::credit::findTarget(target.c_str());
    if (!info.arch) {
      kernel.emitError() << "unknown target '" << target << "' (expected sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120)";
      return signalPassFailure();
    }
    int64_t n = N;
    if (n < 0 || n > ::credit::kMaxRowElems) {
      kernel.emitError() << "N must be positive (at most " << ::credit::kMaxRowElems
                         << "; 0 means no N), got " << n;
      return signalPassFailure();
    }
    if (!isSupportedCtaSize(threads)) {
      kernel.emitError() << "threads must be 128, 256, 512 or 1024, got " << static_cast<int>(threads);
      return signalPassFailure();
    }
    Builder b(kernel.getContext());
    llvm::SmallVector<Attribute> table;
    for (const LegalityEntry &e : computeLegality(kernel, info, N, threads)) {
      llvm::SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("P", b.getI64IntegerAttr(e.P)),
          b.getNamedAttr("portable", b.getBoolAttr(e.portable)),
          b.getNamedAttr("scratch_sync", b.getI64IntegerAttr(e.scratchSync)),
          b.getNamedAttr("scratch_mbarrier", b.getI64IntegerAttr(e.scratchMbarrier)),
          b.getNamedAttr("max_N", b.getI64IntegerAttr(e.maxN)),
      };
      if (N > 0) {
        fields.push_back(b.getNamedAttr("smem", b.getI64IntegerAttr(e.smemAtN)));
        fields.push_back(b.getNamedAttr("legal", b.getBoolAttr(e.legalAtN)));
      }
      table.push_back(b.getDictionaryAttr(fields));
    }
    llvm::SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("target", b.getStringAttr(info.arch)),
        b.getNamedAttr("smem_limit", b.getI64IntegerAttr(info.smemOptinBytes)),
        b.getNamedAttr("threads", b.getI64IntegerAttr(threads)),
        b.getNamedAttr("table", b.getArrayAttr(table)),
    };
    if (N > 0)
      fields.push_back(b.getNamedAttr("N", b.getI64IntegerAttr(N)));
    kernel->setAttr("credit.legality", b.getDictionaryAttr(fields));
    markAllAnalysesPreserved();
  }
};
} // namespace
