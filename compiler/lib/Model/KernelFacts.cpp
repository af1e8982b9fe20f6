//===- KernelFacts.cpp - The model's facts, read from the kernel ----------===//
//
// kernelFacts: the figures the analysis passes and credit-schedule recorded on
// `credit.kernel`, as the plain data the model evaluates. Nothing is
// recomputed here.
//
//===----------------------------------------------------------------------===//
#include "credit/Model/CostModel.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"

using namespace llvm;
using namespace credit::model;
namespace cr = mlir::credit;

Expected<KernelFacts> credit::model::kernelFacts(cr::KernelOp kernel) {
  auto fail = [&]() {
    return createStringError(inconvertibleErrorCode(),
                             "kernel '" + kernel.getSymName() + "' lacks the analyses' attributes");
  };
  KernelFacts f;
  f.name = kernel.getSymName().str();
  mlir::FailureOr<cr::Classification> c = cr::readClassification(kernel);
  if (failed(c))
    return fail();
  f.category = c->category;
  f.reason = c->reason;
  f.accepted = c->category == "accepted";
  // A rejected kernel has no figures, except a one-pass kernel scheduled for its
  // reread forms (the reread kernel's own stages).
  if (!f.accepted && !cr::hasSchedule(kernel))
    return f;

  mlir::FailureOr<cr::Traffic> t = cr::readTraffic(kernel);
  mlir::FailureOr<cr::Barriers> k = cr::readBarriers(kernel);
  mlir::FailureOr<cr::LegalityTable> legality = cr::readLegality(kernel);
  mlir::FailureOr<cr::KernelSchedule> s = cr::readSchedule(kernel);
  if (failed(t) || failed(k) || failed(legality) || failed(s))
    return fail();
  f.L = static_cast<int>(t->L);
  f.q.assign(t->q.begin(), t->q.end());
  f.baseline = t->baseline;
  f.cluster = t->cluster;
  f.reread = t->reread;
  f.keep = t->keep;
  f.outputBytes = t->outputBytes;
  f.fixedBroadcastPerElement = t->fixedBroadcastPerElement;
  f.fixedPerRow = t->fixedPerRow;
  f.Ksync = k->sync;
  f.Kmbarrier = k->mbarrier;
  f.geometry = s->geometry;
  f.target = legality->target;
  f.legalityN = legality->N;
  // Eq. 3 as credit-legality recorded it (sync protocol); the mbarrier
  // protocol's slightly larger scratch through the same Layout.h.
  for (const cr::LegalityEntry &e : legality->rows) {
    LegalityAtN l;
    l.P = e.P;
    l.smemSync = e.smemAtN;
    l.legalSync = e.legalAtN;
    l.smemMbarrier = ::credit::smemBytes(f.geometry, f.legalityN, e.P, ::credit::Protocol::Mbarrier);
    l.legalMbarrier = l.smemMbarrier <= f.target.smemOptinBytes;
    f.legality.push_back(l);
  }

  // The forms the cluster launcher chooses among at a shape (Model.h,
  // clusterFormAt), as the generated file describes them to the launchers.
  f.wideGeometry = s->wideGeometry;
  if (s->wideThreads == 0)
    f.wideGeometry.threads = 0;
  f.hasPartialForm = s->has(cr::Form::ClusterPartialSync);
  f.partialGeometry = s->partialGeometry;
  if (s->partialDrop >= 0) {
    llvm::SmallVector<cr::InputOp> inputs(kernel.getInputOps());
    f.partialDropped = inputs[s->partialDropInput()].getName().str();
    f.partialDroppedReadLate = s->partialDropReadLate;
  }
  f.hasPersistentForm = s->has(cr::Form::Persistent);
  f.persistentHoisted = static_cast<int>(s->hoisted.size());
  f.persistentKeptReadLate = s->keptReadLate;
  f.vectorWidth = s->vectorWidth;
  f.keptInputs = static_cast<int>(s->kept.size());
  return f;
}
