// Launch.h without a GPU: what a workload's constants tell the launchers (the
// geometry of every form, as the previous generated files stated it), each form's
// SMEM and Eq. 3 bound, the variant table, and the refusals that need no device.
#include "credit/runtime/Launch.h"

#include "LayernormWorkload.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace credit;
using credit::device::Elem;
using credit::device::Kind;
using credit::device::Operand;
using credit::device::Reduce;

namespace {

// The constants of the layernorm and softmax_logits_bwd fixtures.
using test::Layernorm;
struct Softmax {
  static constexpr int kStages = 3;
  static constexpr int kQ[kStages] = {1, 1, 1};
  static constexpr Reduce kReduce[] = {Reduce::Max, Reduce::Sum, Reduce::Sum};
  static constexpr Operand kInputs[] = {{Kind::Row, Elem::F32}, {Kind::Row, Elem::F32}};
  static constexpr Operand kOutputs[] = {{Kind::Row, Elem::F32}};
  static constexpr unsigned kReads[kStages + 1] = {0b01, 0b01, 0b11, 0b11};
  static constexpr int kNumKept = 2;
  static constexpr int kKept[kNumKept] = {0, 1};
  static constexpr int kSmemSlot[kNumKept] = {0, 1};
  static constexpr int kMaterialize[kNumKept] = {1, -1};
  static constexpr int kPartialDrop = 1;
  static constexpr bool kPartialDropReadLate = true;
  static constexpr unsigned kHoisted = 0;
  static constexpr unsigned kPrefetchL2 = 0;
  static constexpr int kThreads = 256, kWideThreads = 512;
  static constexpr bool kFastMath = false;
};

// softmax_logits_bwd with its max and first sum fused into one online statistic:
// the stages its reread kernels run (RereadWorkload of a generated file).
struct SoftmaxOnline : Softmax {
  static constexpr int kStages = 2;
  static constexpr int kQ[kStages] = {2, 1};
  static constexpr Reduce kReduce[] = {Reduce::SumExpMax, Reduce::SumExpSum, Reduce::Sum};
  static constexpr unsigned kReads[kStages + 1] = {0b01, 0b11, 0b11};
  static constexpr int kMaterialize[kNumKept] = {-1, -1};
};

// 16-bit storage: x bf16 (kept, SMEM array 0), dy f32 (kept, array 1, the partial
// form's dropped input), gamma f16 broadcast; y bf16, rstd f32 per row.
struct Mixed16 {
  static constexpr int kStages = 2;
  static constexpr int kQ[kStages] = {1, 1};
  static constexpr Reduce kReduce[] = {Reduce::Sum, Reduce::Sum};
  static constexpr Operand kInputs[] = {
      {Kind::Row, Elem::BF16}, {Kind::Row, Elem::F32}, {Kind::Broadcast, Elem::F16}};
  static constexpr Operand kOutputs[] = {{Kind::Row, Elem::BF16}, {Kind::PerRow, Elem::F32}};
  static constexpr unsigned kReads[kStages + 1] = {0b001, 0b011, 0b111};
  static constexpr int kNumKept = 2;
  static constexpr int kKept[kNumKept] = {0, 1};
  static constexpr int kSmemSlot[kNumKept] = {0, 1};
  static constexpr int kMaterialize[kNumKept] = {-1, -1};
  static constexpr int kPartialDrop = 1;
  static constexpr bool kPartialDropReadLate = true;
  static constexpr unsigned kHoisted = 0b100;
  static constexpr unsigned kPrefetchL2 = 0;
  static constexpr int kThreads = 256, kWideThreads = 512;
  static constexpr bool kFastMath = false;
};
// The same inputs with the SMEM arrays the other way round: dy (f32) first.
struct Mixed16Swapped : Mixed16 {
  static constexpr int kSmemSlot[kNumKept] = {1, 0};
  static constexpr int kPartialDrop = -1;
};
// Every per-element operand 16-bit or a byte (the files of VEC = 8): x bf16 kept,
// mask bool, y bf16.
struct Narrow16 {
  static constexpr int kStages = 1;
  static constexpr int kQ[kStages] = {1};
  static constexpr Reduce kReduce[] = {Reduce::Sum};
  static constexpr Operand kInputs[] = {{Kind::Row, Elem::BF16}, {Kind::Row, Elem::Bool}};
  static constexpr Operand kOutputs[] = {{Kind::Row, Elem::BF16}};
  static constexpr unsigned kReads[kStages + 1] = {0b01, 0b11};
  static constexpr int kNumKept = 1;
  static constexpr int kKept[kNumKept] = {0};
  static constexpr int kSmemSlot[kNumKept] = {0};
  static constexpr int kMaterialize[kNumKept] = {-1};
  static constexpr int kPartialDrop = -1;
  static constexpr bool kPartialDropReadLate = false;
  static constexpr unsigned kHoisted = 0;
  static constexpr unsigned kPrefetchL2 = 0;
  static constexpr int kThreads = 256, kWideThreads = 512;
  static constexpr bool kFastMath = true;
};

// Stand-ins for kernels: only their addresses are compared here.
void fakeA() {}
void fakeB() {}
void fakeC() {}

bool sameGeometry(WorkloadGeometry a, WorkloadGeometry b) {
  return a.keepBytesPerElem == b.keepBytesPerElem && a.numStages == b.numStages && a.qMax == b.qMax &&
         a.qSum == b.qSum && a.threads == b.threads && a.hOnlyArrays == b.hOnlyArrays;
}

const host::Kernel kKernels[] = {
    {Form::ClusterSync, 4, host::kernel(fakeA)},
    {Form::ClusterSync, 1, host::kernel(fakeB)},
    {Form::Staged, 4, host::kernel(fakeC)},
    {Form::ControlSync, 1, host::kernel(fakeC)},
};

}  // namespace

TEST_CASE("Contract: the arithmetic a library derives from a workload's constants", "[launch]") {
  using L = device::Contract<Layernorm>;
  STATIC_REQUIRE(L::kNumInputs == 3);
  STATIC_REQUIRE(L::qSum() == 2);
  STATIC_REQUIRE(L::qMax() == 1);
  STATIC_REQUIRE(L::onlyH() == 0b110u);
  STATIC_REQUIRE(L::firstRead(0) == 0);
  STATIC_REQUIRE(L::firstRead(1) == 2);
  STATIC_REQUIRE(!L::anyKeptReadLate());
  STATIC_REQUIRE(L::firstReadsKept(0) && !L::firstReadsKept(1));
  using S = device::Contract<Softmax>;
  STATIC_REQUIRE(S::qOffset(2) == 2);
  STATIC_REQUIRE(S::keptPos(1) == 1);
  STATIC_REQUIRE(S::anyKeptReadLate());
  STATIC_REQUIRE(S::firstReadsKept(2));
  STATIC_REQUIRE(S::rowOutputs() == 1u);
}

TEST_CASE("describe: the geometry of every form, as generated files stated it", "[launch]") {
  const host::Workload ln = host::describe<Layernorm>(kKernels, nullptr, findTarget("sm_90"));
  CHECK(sameGeometry(ln.geometry, WorkloadGeometry{4, 2, 1, 2, 256, 2}));
  CHECK(sameGeometry(ln.wideGeometry, WorkloadGeometry{4, 2, 1, 2, 512, 2}));
  CHECK(sameGeometry(ln.partialGeometry, WorkloadGeometry{4, 2, 1, 2, 256, 2}));
  CHECK_FALSE(ln.hasPartial);
  CHECK_FALSE(ln.keptReadLate);
  CHECK(ln.hoisted == 2);
  CHECK(ln.numArgs == 4);
  CHECK(ln.argKind[1] == host::kArgBroadcast);
  CHECK(ln.argBytes[3] == 4);
  const host::Workload sm = host::describe<Softmax>(kKernels, nullptr, findTarget("sm_90"));
  CHECK(sameGeometry(sm.geometry, WorkloadGeometry{8, 3, 1, 3, 256, 0}));
  CHECK(sameGeometry(sm.wideGeometry, WorkloadGeometry{8, 3, 1, 3, 512, 0}));
  CHECK(sameGeometry(sm.partialGeometry, WorkloadGeometry{4, 3, 1, 3, 256, 0}));
  CHECK(sm.hasPartial);
  CHECK(sm.partialDropReadLate);
  CHECK(sm.keptReadLate);
  CHECK(sm.hoisted == 0);
}

TEST_CASE("16-bit storage: b_keep, SMEM slots, element sizes, VEC = 4", "[launch]") {
  using C = device::Contract<Mixed16>;
  STATIC_REQUIRE(device::elemBytes(Elem::BF16) == 2);
  STATIC_REQUIRE(device::elemBytes(Elem::F16) == 2);
  STATIC_REQUIRE(device::elemBytes(Elem::F32) == 4);
  STATIC_REQUIRE(device::elemBytes(Elem::I8) == 1);
  STATIC_REQUIRE(C::keepBytesPerElem() == 6);
  STATIC_REQUIRE(!C::keptAllF32());
  // Slot offsets in bytes per slice element: dy's array starts 2 * slice bytes in.
  STATIC_REQUIRE(C::slotOffsetBytes(0) == 0);
  STATIC_REQUIRE(C::slotOffsetBytes(1) == 2);
  using S = device::Contract<Mixed16Swapped>;
  STATIC_REQUIRE(S::slotOffsetBytes(0) == 0);
  STATIC_REQUIRE(S::slotOffsetBytes(1) == 4);
  STATIC_REQUIRE(device::Contract<Layernorm>::keptAllF32());
  // Bulk copies: one mbarrier set per 4 bytes of element; the array at a multiple of 4 leads its set.
  STATIC_REQUIRE(C::keptMinBytes() == 2 && S::keptMinBytes() == 2);
  STATIC_REQUIRE(device::Contract<Layernorm>::keptMinBytes() == 4);
  STATIC_REQUIRE(C::loadSet(0) == 0 && C::leadsLoadSet(0));
  STATIC_REQUIRE(C::loadSet(1) == 0 && !C::leadsLoadSet(1));  // dy at 2 bytes: shares bf16 x's set
  STATIC_REQUIRE(S::loadSet(1) == 0 && S::leadsLoadSet(1));   // dy first
  STATIC_REQUIRE(S::loadSet(0) == 1 && S::leadsLoadSet(0));   // x at 4 bytes: the second set

  const host::Workload w = host::describe<Mixed16>(kKernels, nullptr, findTarget("sm_90"));
  CHECK(sameGeometry(w.geometry, WorkloadGeometry{6, 2, 1, 2, 256, 1}));
  CHECK(sameGeometry(w.wideGeometry, WorkloadGeometry{6, 2, 1, 2, 512, 1}));
  CHECK(sameGeometry(w.partialGeometry, WorkloadGeometry{2, 2, 1, 2, 256, 1}));  // dy dropped
  CHECK(w.numArgs == 5);
  const int bytes[] = {2, 4, 2, 2, 4};
  for (int a = 0; a < 5; ++a) {
    INFO("argument " << a);
    CHECK(w.argBytes[a] == bytes[a]);
  }
  CHECK(w.argKind[2] == host::kArgBroadcast);
  CHECK(w.argKind[4] == host::kArgPerRow);
  // Eq. 3 follows the element size: the bf16 row takes half the SMEM of an f32 one.
  CHECK(smemBytes(w.partialGeometry, 65536, 1, Protocol::Sync) - scratchBytes(w.partialGeometry, 1, Protocol::Sync) ==
        65536 * 2);

  // VEC = 4 where every per-element pointer is aligned to four of its elements (8 bytes
  // for bf16 and f16); the per-row output is not accessed four at a time.
  alignas(16) static unsigned char buf[1024];
  const void* aligned[] = {buf + 8, buf + 16, buf + 24, buf + 40, buf + 4};
  CHECK(host::vectorOk(w, aligned, 4096));
  CHECK_FALSE(host::vectorOk(w, aligned, 4098));
  const void* f32Off[] = {buf + 8, buf + 24, buf + 24, buf + 40, buf + 4};  // dy 8-byte aligned only
  CHECK_FALSE(host::vectorOk(w, f32Off, 4096));
  const void* bf16Off[] = {buf + 4, buf + 16, buf + 24, buf + 40, buf + 4};  // x 4-byte aligned only
  CHECK_FALSE(host::vectorOk(w, bf16Off, 4096));
  const void* f16Off[] = {buf + 8, buf + 16, buf + 26, buf + 40, buf + 4};  // gamma 2-byte aligned only
  CHECK_FALSE(host::vectorOk(w, f16Off, 4096));
}

TEST_CASE("VEC = 8: the file's vector width sets the kernel and the alignment rule", "[launch][vec]") {
  const host::Kernel kernels[] = {{Form::ClusterSync, 8, host::kernel(fakeA)},
                                  {Form::ClusterSync, 1, host::kernel(fakeB)},
                                  {Form::ControlSync, 1, host::kernel(fakeC)}};
  const host::Workload w = host::describe<Narrow16>(kernels, nullptr, findTarget("sm_90"));
  CHECK(host::vectorWidth(w) == 8);
  CHECK(host::vectorWidth(host::describe<Layernorm>(kKernels, nullptr, findTarget("sm_90"))) == 4);
  CHECK(host::findKernel(w, Form::ClusterSync, true) == host::kernel(fakeA));
  CHECK(host::findKernel(w, Form::ClusterSync, false) == host::kernel(fakeB));
  CHECK(host::findKernel(w, Form::ControlSync, false) == host::kernel(fakeC));
  // Runs of eight: 16 bytes of bf16, 8 of the mask; N % 8 == 0.
  alignas(16) static unsigned char buf[1024];
  const void* aligned[] = {buf + 16, buf + 8, buf + 32};
  CHECK(host::vectorOk(w, aligned, 4096));
  CHECK_FALSE(host::vectorOk(w, aligned, 4100));  // N % 4 == 0 is not enough
  const void* x8[] = {buf + 8, buf + 8, buf + 32};  // x 8-byte aligned: the VEC = 4 rule only
  CHECK_FALSE(host::vectorOk(w, x8, 4096));
  const void* mask4[] = {buf + 16, buf + 4, buf + 32};
  CHECK_FALSE(host::vectorOk(w, mask4, 4096));
  // Slices start at multiples of 8 elements, so every CTA's runs stay 16-byte aligned.
  for (long long N : {8LL, 4096LL, 4104LL, 65544LL})
    for (int P : {2, 4, 8, 16}) {
      INFO("N " << N << " P " << P);
      CHECK(sliceElems(N, P) % 8 == 0);
    }
}

TEST_CASE("describe: the reread kernels' own stages", "[launch]") {
  const host::Kernel kernels[] = {{Form::ClusterSync, 4, host::kernel(fakeA)},
                                  {Form::Reread, 4, host::kernel(fakeB)}};
  // One workload: the reread kernels run its stages.
  const host::Workload same = host::describe<Softmax>(kernels, nullptr, findTarget("sm_90"));
  CHECK(sameGeometry(same.rereadGeometry, same.geometry));
  // Their own: L = 2 with q = [2, 1], and the scratch of two partials in stage 1.
  const host::Workload w = host::describe<Softmax, SoftmaxOnline>(kernels, nullptr, findTarget("sm_90"));
  CHECK(sameGeometry(w.geometry, WorkloadGeometry{8, 3, 1, 3, 256, 0}));
  CHECK(sameGeometry(w.rereadGeometry, WorkloadGeometry{8, 2, 2, 3, 256, 0}));
  const host::LaunchSpec r = host::specOf(w, Form::Reread, true, 65536, 1);
  CHECK(r.kernel == host::kernel(fakeB));
  CHECK_FALSE(r.checkLegal);
  CHECK(sameGeometry(r.geometry, w.rereadGeometry));
  CHECK(r.smemBytes == scratchBytes(w.rereadGeometry, 1, Protocol::Sync));
  // The other forms keep the kept-row stages.
  CHECK(sameGeometry(host::specOf(w, Form::ClusterSync, true, 65536, 2).geometry, w.geometry));
}

TEST_CASE("specOf: each form's CTA size, SMEM and Eq. 3 bound", "[launch]") {
  const host::Workload w = host::describe<Softmax>(kKernels, nullptr, findTarget("sm_90"));
  const long long N = 65536;
  for (int P : {1, 2, 4, 8, 16}) {
    const host::LaunchSpec cs = host::specOf(w, Form::ClusterSync, true, N, P);
    CHECK(cs.kernel == host::kernel(fakeA));
    CHECK(cs.cluster);
    CHECK(cs.loadBalance);
    CHECK(cs.checkLegal);
    CHECK(cs.smemBytes == smemBytes(w.geometry, N, P, Protocol::Sync));
    CHECK(host::specOf(w, Form::ClusterSync, false, N, P).kernel == host::kernel(fakeB));
    const host::LaunchSpec mb = host::specOf(w, Form::ClusterMbarrier, true, N, P);
    CHECK(mb.kernel == nullptr);  // not in this table
    CHECK(mb.protocol == Protocol::Mbarrier);
    CHECK(mb.smemBytes == smemBytes(w.geometry, N, P, Protocol::Mbarrier));
    const host::LaunchSpec regs = host::specOf(w, Form::ClusterRegsMbarrier, true, N, P);
    CHECK_FALSE(regs.checkLegal);
    CHECK(regs.smemBytes == scratchBytes(w.geometry, P, Protocol::Mbarrier));
    const host::LaunchSpec partial = host::specOf(w, Form::ClusterPartialSync, true, N, P);
    CHECK_FALSE(partial.loadBalance);
    CHECK(partial.smemBytes == smemBytes(w.partialGeometry, N, P, Protocol::Sync));
    CHECK(partial.geometry.keepBytesPerElem == w.geometry.keepBytesPerElem);  // the full form's Eq. 3
    const host::LaunchSpec wide = host::specOf(w, Form::ClusterWideMbarrier, true, N, P);
    CHECK(wide.geometry.threads == 512);
    CHECK(wide.smemBytes == smemBytes(w.wideGeometry, N, P, Protocol::Mbarrier));
    const host::LaunchSpec control = host::specOf(w, Form::ControlSync, true, N, P);
    CHECK(control.kernel == host::kernel(fakeC));
    CHECK_FALSE(control.data);
    CHECK_FALSE(control.loadBalance);
    CHECK(control.smemBytes == smemBytes(w.geometry, N, P, Protocol::Sync));
  }
  const host::LaunchSpec persistent = host::specOf(w, Form::PersistentHalves, true, N, 4);
  CHECK(persistent.persistent);
  CHECK(persistent.protocol == Protocol::Mbarrier);
  CHECK(persistent.geometry.threads == 512);
  CHECK(host::specOf(w, Form::Staged, true, N, 1).smemBytes == smemBytes(w.geometry, N, 1, Protocol::Sync));
  CHECK(host::specOf(w, Form::StagedRegsWideWide, true, N, 1).smemBytes ==
        scratchBytes(w.wideGeometry, 1, Protocol::Sync));
  CHECK(host::specOf(w, Form::Reread, true, N, 1).smemBytes == scratchBytes(w.geometry, 1, Protocol::Sync));
}

TEST_CASE("maxLegalN and the variant table", "[launch]") {
  const host::Workload w = host::describe<Softmax>(kKernels, nullptr, findTarget("sm_90"));
  CHECK(host::maxLegalN(w, "cluster", 8, 1) == maxLegalN(w.geometry, 8, Protocol::Mbarrier, 232448));
  CHECK(host::maxLegalN(w, "staged", 1, 0) == maxLegalN(w.geometry, 1, Protocol::Sync, 232448));
  CHECK(host::maxLegalN(w, "reread", 1, 0) == 0);           // not generated: no reread kernel in this table
  CHECK(host::maxLegalN(w, "cluster_partial", 2, 0) == 0);  // no partial kernels in this table
  CHECK(host::maxLegalN(w, "cluster_regs", 2, 0) == 0);     // nor register-slice ones
  CHECK(host::maxLegalN(w, "nonsense", 2, 0) == 0);
  CHECK(host::maxLegalN(w, nullptr, 2, 0) == 0);
  CHECK(host::maxLegalN(w, "cluster", 0, 0) == 0);

  float x[16];
  const void* args[] = {x, x, x};
  CHECK(host::launchGeneric(w, nullptr, args, 4, 64, 2, 0, nullptr) == kStatusBadVariant);
  CHECK(host::launchGeneric(w, "nonsense", args, 4, 64, 2, 0, nullptr) == kStatusBadVariant);
  CHECK(host::launchGeneric(w, "reread", args, 4, 64, 1, 0, nullptr) == kStatusBadVariant);  // not generated
  CHECK(host::launchGeneric(w, "cluster", nullptr, 4, 64, 2, 0, nullptr) ==
        static_cast<int>(LaunchStatus::NullPointer));
  CHECK(host::launchGeneric(w, "cluster", args, 4, 64, 2, 7, nullptr) == kStatusBadProtocol);
  CHECK(host::launchGeneric(w, "staged", args, 4, 64, 2, 0, nullptr) ==
        static_cast<int>(LaunchStatus::BadClusterSize));
  CHECK(host::launchGeneric(w, "cluster", args, 0, 64, 2, 0, nullptr) == kStatusOk);  // M == 0: nothing to do
  CHECK(host::launchControl(w, 4, 64, 2, 3, nullptr) == kStatusBadProtocol);
}

TEST_CASE("maxLegalN of a target without clusters: 0 for every cluster variant", "[launch]") {
  // What a file generated for sm_80 holds: the staged and reread kernels alone.
  const host::Kernel baselines[] = {{Form::Staged, 4, host::kernel(fakeA)}, {Form::Reread, 4, host::kernel(fakeB)}};
  const host::Workload w = host::describe<Softmax>(baselines, nullptr, findTarget("sm_80"));
  for (const char* v : {"cluster", "cluster_regs", "cluster_full", "cluster_partial", "cluster_rowwise",
                        "cluster_persistent", "cluster_persistent_static", "control"}) {
    INFO(v);
    CHECK(host::maxLegalN(w, v, 2, 0) == 0);
    CHECK(host::maxLegalN(w, v, 2, 1) == 0);
  }
  CHECK(host::maxLegalN(w, "staged", 1, 0) > 0);
  CHECK(host::maxLegalN(w, "reread", 1, 0) == kMaxRowElems);
}

TEST_CASE("statusString", "[launch]") {
  CHECK(std::strcmp(host::statusString(kStatusOk), "ok") == 0);
  CHECK(std::strstr(host::statusString(static_cast<int>(LaunchStatus::NotLegal)), "Eq. 3") != nullptr);
  CHECK(std::strstr(host::statusString(kStatusBadProtocol), "protocol") != nullptr);
  CHECK(std::strstr(host::statusString(kStatusBadVariant), "variant") != nullptr);
  CHECK(std::strstr(host::statusString(kStatusNoPlan), "decision") != nullptr);
  CHECK(std::strstr(host::statusString(kStatusBadTiming), "T_B") != nullptr);
  CHECK(std::strcmp(host::statusString(-5), "unknown status") == 0);
}
