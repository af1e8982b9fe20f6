// The test cases every fixture workload runs (Harness.h): each form of the device
// library against the float64 reference, the forms of one CTA size giving the same
// bits, the rows claimed at run time, and the launch API. Instantiate with
// CREDIT_LIBRARY_GPU_TESTS(spec) after the fixture and its reference.
//
// Environment: CREDIT_GPU_TEST_MAX_P caps the cluster size (compute-sanitizer's
// synccheck and clusters of 16); CREDIT_GPU_TEST_SEED fixes the inputs' seed.
#ifndef CREDIT_TESTS_GPU_LIBRARY_LIBRARY_TESTS_H
#define CREDIT_TESTS_GPU_LIBRARY_LIBRARY_TESTS_H

#include "library/Harness.h"

namespace credit_test {

using credit::Form;
using credit::host::launchForm;

inline int maxP() {
  const char* s = std::getenv("CREDIT_GPU_TEST_MAX_P");
  return s ? std::atoi(s) : 16;
}

inline bool isClusterForm(Form f) {
  return !(f == Form::Staged || f == Form::StagedRegs || f == Form::StagedRegsWide || f == Form::StagedWide ||
           f == Form::StagedRegsWideWide || f == Form::StagedRegsDeepWide || f == Form::Reread);
}
inline bool isControlForm(Form f) { return f == Form::ControlSync || f == Form::ControlMbarrier; }
inline bool isClaimsForm(Form f) { return f == Form::PersistentClaims || f == Form::PersistentHalvesClaims; }
inline bool isWideForm(Form f) {
  return f == Form::ClusterWideSync || f == Form::ClusterWideMbarrier || f == Form::StagedWide ||
         f == Form::StagedRegsWideWide || f == Form::StagedRegsDeepWide || f == Form::Persistent ||
         f == Form::PersistentHalves || f == Form::PersistentClaims || f == Form::PersistentHalvesClaims;
}

// The workload's forms, each once (the kernel table lists one kernel per vector width).
inline std::vector<Form> formsOf(const credit::host::Workload& w) {
  std::vector<Form> forms;
  for (int i = 0; i < w.numKernels; ++i)
    if (std::find(forms.begin(), forms.end(), w.kernels[i].form) == forms.end()) forms.push_back(w.kernels[i].form);
  return forms;
}

// A zeroed two-word row-claim counter.
class Counter {
 public:
  Counter() {
    REQUIRE(cudaMalloc(&p, 2 * sizeof(unsigned)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, 2 * sizeof(unsigned)) == cudaSuccess);
  }
  ~Counter() { cudaFree(p); }
  bool zero() const {
    unsigned h[2] = {1, 1};
    REQUIRE(cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    return h[0] == 0 && h[1] == 0;
  }
  unsigned* p = nullptr;
};

// Whether the workload has a kernel of form f for the problem's accesses: float4 where
// every row pointer is aligned and N % 4 == 0, else scalar (the persistent forms have
// float4 kernels only).
inline bool generated(const Problem& p, Form f) {
  return credit::host::findKernel(p.w, f, credit::host::vectorOk(p.w, p.data(), p.N)) != nullptr;
}

// Launches form f at P on the problem (poisoned first); true if it ran, false if the
// workload has no kernel of f for these accesses, the form does not compute this shape
// (NotLegal) or the device refuses the cluster.
inline bool launch(Problem& p, Form f, int P, unsigned* counter = nullptr) {
  if (!generated(p, f)) return false;
  p.poison();
  const int status = launchForm(p.w, f, p.data(), p.M, p.N, P, nullptr, counter);
  if (status == static_cast<int>(credit::LaunchStatus::NotLegal) ||
      status == static_cast<int>(credit::LaunchStatus::ClusterTooLarge))
    return false;
  INFO("form " << static_cast<int>(f) << " P=" << P << ": status " << status << " "
               << credit::host::statusString(status));
  REQUIRE(status == credit::kStatusOk);
  return true;
}

struct Shape {
  long long M, N;
  bool misaligned;
};

// Every form at every cluster size and shape where it computes the row.
inline void everyForm(const Spec& spec) {
  CREDIT_REQUIRE_GPU();
  const std::vector<Shape> shapes = {{1, 1, false},     {3, 5, false},      {2, 64, false},      {5, 1000, false},
                                     {4, 4096, false},  {3, 4099, false},   {8, 8192, false},    {2, 12289, false},
                                     {3, 20004, false}, {16, 16384, false}, {3, 32768, false},   {2, 65536, false},
                                     {2, 262144, false}, {4, 4096, true},   {3, 16384, true},    {300, 32768, false},
                                     {400, 30004, false}};
  int launches = 0;
  for (const Shape& s : shapes) {
    Problem p(spec, s.M, s.N, s.misaligned);
    for (Form f : formsOf(spec.w)) {
      for (int P = 1; P <= (isClusterForm(f) ? maxP() : 1); P *= 2) {
        INFO(p.label() << (s.misaligned ? " misaligned" : "") << " form " << static_cast<int>(f) << " P=" << P);
        Counter counter;
        if (!launch(p, f, P, isClaimsForm(f) ? counter.p : nullptr)) continue;
        ++launches;
        if (isControlForm(f)) {
          REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
          continue;
        }
        CHECK(p.check());
        if (isClaimsForm(f)) CHECK(counter.zero());
      }
    }
  }
  CHECK(launches > 0);
  WARN(spec.name << ": " << launches << " launches against the reference");
}

// A row of special values: input `input`'s row is value(column, N, u), u uniform in
// [-1, 1); each output within tolerances[o] (negative or absent: tolerance()).
struct RowPattern {
  const char* name;
  int input;
  float (*value)(long long c, long long N, float u);
  std::vector<double> tolerances;
};

// Every form at every cluster size on one row of each pattern, N = 1 to 262144 (N = 1
// and 31 leave most CTAs of a cluster without elements), against the reference.
inline void specialRows(const Spec& spec, const std::vector<RowPattern>& patterns) {
  CREDIT_REQUIRE_GPU();
  int launches = 0;
  for (long long N : {1LL, 31LL, 4096LL, 4099LL, 65536LL, 262144LL}) {
    for (const RowPattern& pat : patterns) {
      Problem p(spec, 1, N);
      std::mt19937_64 rng(p.seed);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      p.setRow(pat.input, 0, [&](long long c) { return pat.value(c, N, u(rng)); });
      for (Form f : formsOf(spec.w)) {
        if (isControlForm(f)) continue;
        for (int P = 1; P <= (isClusterForm(f) ? maxP() : 1); P *= 2) {
          INFO(p.label() << " row: " << pat.name << " form " << static_cast<int>(f) << " P=" << P);
          Counter counter;
          if (!launch(p, f, P, isClaimsForm(f) ? counter.p : nullptr)) continue;
          ++launches;
          CHECK(p.check(pat.tolerances));
        }
      }
    }
  }
  CHECK(launches > 0);
  WARN(spec.name << ": " << launches << " launches on special rows against the reference");
}

// Outputs of two forms of a workload with an online statistic: the same NaNs, and
// every output within a relative L2 difference of 1e-6 (the reference check allows
// 1e-5): a batch rescales the sums once (pass.cuh), and a pass that waits for bulk
// copies ends its batches at the copies' chunks, so the forms' rescales, and the sums'
// last bits, differ.
inline void sameRescaledSums(Problem& p, const std::vector<std::vector<char>>& out,
                             const std::vector<std::vector<char>>& first) {
  for (size_t o = 0; o < out.size(); ++o) {
    const int i = p.spec.numInputs + static_cast<int>(o);
    const Difference d = difference(p.decode(i, out[o]), p.decode(i, first[o]));
    const double rel = d.den > 0 ? std::sqrt(d.num / d.den) : std::sqrt(d.num);
    INFO("output " << i << ": relative L2 difference " << rel << ", NaN mismatches " << d.nanMismatch);
    CHECK(d.nanMismatch == 0);
    CHECK(rel <= 1e-6);
  }
}

// Outputs of two forms byte for byte; a mismatch names the output, how many bytes
// differ and the first (not the whole outputs: megabytes in a log).
inline void sameBytes(const std::vector<std::vector<char>>& out, const std::vector<std::vector<char>>& first) {
  REQUIRE(out.size() == first.size());
  for (size_t o = 0; o < out.size(); ++o) {
    REQUIRE(out[o].size() == first[o].size());
    size_t differ = 0, at = 0;
    for (size_t b = 0; b < out[o].size(); ++b)
      if (out[o][b] != first[o][b] && differ++ == 0) at = b;
    INFO("output " << o << ": " << differ << " of " << out[o].size() << " bytes differ, the first at byte " << at);
    CHECK(differ == 0);
  }
}

// The forms of one CTA size run the same element order and the same exchange
// association at a given P: they give the same bits (sync and mbarrier, SMEM,
// registers, partial retention, ring, claimed rows; at P = 1 the staged and reread
// forms too), but for an online statistic's rescales (sameRescaledSums).
inline void sameBits(const Spec& spec) {
  CREDIT_REQUIRE_GPU();
  const std::vector<Shape> shapes = {{3, 4096, false}, {2, 16384, false}, {4, 32768, false},
                                     {2, 65536, false}, {3, 4099, false},  {64, 32768, false}};
  int compared = 0;
  for (const Shape& s : shapes) {
    Problem p(spec, s.M, s.N, s.misaligned);
    for (int P = 1; P <= maxP(); P *= 2) {
      for (bool wide : {false, true}) {
        std::vector<std::vector<char>> first;
        int firstForm = -1;
        for (Form f : formsOf(spec.w)) {
          if (isControlForm(f) || isWideForm(f) != wide || (!isClusterForm(f) && P != 1)) continue;
          Counter counter;
          if (!launch(p, f, P, isClaimsForm(f) ? counter.p : nullptr)) continue;
          auto out = p.outputs();
          INFO(p.label() << " P=" << P << ": form " << static_cast<int>(f) << " against form " << firstForm);
          if (firstForm < 0) {
            first = std::move(out);
            firstForm = static_cast<int>(f);
          } else {
            if (spec.onlineStatistic)
              sameRescaledSums(p, out, first);
            else
              sameBytes(out, first);
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared > 0);
  WARN(spec.name << ": " << compared << " forms compared bit for bit");
}

// Rows claimed at run time: the claims' kernels give the static rows' bits and leave
// the counter zero, launch after launch; the launch API's lease orders launches on two
// streams without a host synchronisation.
inline void claimedRows(const Spec& spec) {
  CREDIT_REQUIRE_GPU();
  if (!credit::host::hasForm(spec.w, Form::PersistentClaims)) return;
  Problem p(spec, 300, 32768);
  for (int P = 2; P <= std::min(8, maxP()); P *= 2) {
    for (Form pair : {Form::Persistent, Form::PersistentHalves}) {
      INFO(p.label() << " P=" << P << " form " << static_cast<int>(pair));
      if (!launch(p, pair, P)) continue;
      const auto reference = p.outputs();
      Counter counter;
      for (int rep = 0; rep < 3; ++rep) {
        REQUIRE(launch(p, pair == Form::Persistent ? Form::PersistentClaims : Form::PersistentHalvesClaims, P,
                       counter.p));
        CHECK(p.outputs() == reference);
        CHECK(counter.zero());
      }
    }
    cudaStream_t streams[2];
    for (cudaStream_t& s : streams) REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    p.poison();
    for (int rep = 0; rep < 6; ++rep)
      REQUIRE(credit::host::launchGeneric(p.w, "cluster_persistent", p.data(), p.M, p.N, P, 1, streams[rep % 2]) ==
              credit::kStatusOk);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    INFO(p.label() << " P=" << P << " cluster_persistent on two streams");
    CHECK(p.check());
    for (cudaStream_t s : streams) cudaStreamDestroy(s);
  }
}

// The launch API: every variant name at the shapes and cluster sizes it takes, and the
// refusals that launch nothing.
inline void launchApi(const Spec& spec) {
  CREDIT_REQUIRE_GPU();
  const char* variants[] = {"cluster", "cluster_regs", "cluster_full", "cluster_partial", "cluster_rowwise",
                            "cluster_persistent", "cluster_persistent_static", "staged", "staged_smem", "reread"};
  for (long long N : {1000LL, 4096LL, 8192LL, 16384LL, 32768LL, 65536LL}) {
    Problem p(spec, 64, N);
    for (const char* v : variants)
      for (int protocol : {0, 1})
        for (int P = 1; P <= maxP(); P *= 2) {
          const bool staged = std::strncmp(v, "cluster", 7) != 0;
          if ((staged && (P != 1 || protocol != 0)) || N > credit::host::maxLegalN(p.w, v, P, protocol)) continue;
          p.poison();
          const int status = credit::host::launchGeneric(p.w, v, p.data(), p.M, p.N, P, protocol, nullptr);
          INFO(p.label() << " " << v << " P=" << P << " protocol " << protocol << ": " << status << " "
                         << credit::host::statusString(status));
          if (status == static_cast<int>(credit::LaunchStatus::ClusterTooLarge)) continue;
          REQUIRE(status == credit::kStatusOk);
          CHECK(p.check());
        }
    // The control kernels take the cluster kernel's SMEM, hence its Eq. 3 bound: they run
    // at the smallest cluster of two or more CTAs where N is legal and are refused
    // (NotLegal, nothing launched) at a smaller one.
    for (int protocol : {0, 1}) {
      int P = 2;
      while (P <= maxP() && N > credit::host::maxLegalN(p.w, "control", P, protocol)) {
        INFO(p.label() << " control P=" << P << " protocol " << protocol);
        CHECK(credit::host::launchControl(p.w, p.M, p.N, P, protocol, nullptr) ==
              static_cast<int>(credit::LaunchStatus::NotLegal));
        P *= 2;
      }
      if (P > maxP()) continue;
      const int status = credit::host::launchControl(p.w, p.M, p.N, P, protocol, nullptr);
      INFO(p.label() << " control P=" << P << " protocol " << protocol << ": " << status << " "
                     << credit::host::statusString(status));
      if (status == static_cast<int>(credit::LaunchStatus::ClusterTooLarge)) continue;
      CHECK(status == credit::kStatusOk);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
  Problem p(spec, 4, 4096);
  const credit::host::Workload& w = p.w;
  CHECK(credit::host::launchGeneric(w, "cluster", nullptr, 4, 4096, 2, 0, nullptr) ==
        static_cast<int>(credit::LaunchStatus::NullPointer));
  CHECK(credit::host::launchGeneric(w, "cluster", p.data(), 4, 4096, 2, 2, nullptr) == credit::kStatusBadProtocol);
  CHECK(credit::host::launchGeneric(w, "no_such_variant", p.data(), 4, 4096, 2, 0, nullptr) ==
        credit::kStatusBadVariant);
  CHECK(credit::host::launchGeneric(w, "staged", p.data(), 4, 4096, 2, 0, nullptr) ==
        static_cast<int>(credit::LaunchStatus::BadClusterSize));
  CHECK(credit::host::launchGeneric(w, "cluster", p.data(), 4, 4096, 3, 0, nullptr) ==
        static_cast<int>(credit::LaunchStatus::BadClusterSize));
  const long long beyond = credit::host::maxLegalN(w, "cluster", 1, 0) + 4;
  CHECK(credit::host::launchCluster(w, p.data(), 1, beyond, 1, 0, nullptr) ==
        static_cast<int>(credit::LaunchStatus::NotLegal));
  CHECK(credit::host::launchGeneric(w, "cluster", p.data(), 0, 4096, 2, 0, nullptr) == credit::kStatusOk);
}

}  // namespace credit_test

#define CREDIT_LIBRARY_GPU_TESTS(NAME, SPEC)                                                       \
  TEST_CASE(NAME ": every form against the float64 reference", "[gpu][forms]") {                  \
    credit_test::everyForm(SPEC);                                                                  \
  }                                                                                                \
  TEST_CASE(NAME ": the forms of one CTA size give the same bits", "[gpu][exchange]") {            \
    credit_test::sameBits(SPEC);                                                                   \
  }                                                                                                \
  TEST_CASE(NAME ": rows claimed at run time", "[gpu][claims]") { credit_test::claimedRows(SPEC); } \
  TEST_CASE(NAME ": the launch API", "[gpu][api]") { credit_test::launchApi(SPEC); }

#endif  // CREDIT_TESTS_GPU_LIBRARY_LIBRARY_TESTS_H
