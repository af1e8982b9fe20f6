// Baseline.h: the signature parsing behind T_B measurement (the timing itself
// needs a GPU: tests/gpu and credit-calibrate --time-baseline on the H200).
#include "credit/runtime/Baseline.h"

#include <catch2/catch.hpp>

using credit::KernelArg;

TEST_CASE("parseKernelSignature reads the generated signature strings", "[runtime][baseline]") {
  std::vector<KernelArg> args;
  std::string err;
  REQUIRE(credit::parseKernelSignature("x:in:row:f32;q:out:row:i8;scale:out:scalar:f32", args, err));
  REQUIRE(args.size() == 3);
  CHECK(args[0].name == "x");
  CHECK(args[0].input);
  CHECK(args[0].kind == KernelArg::Row);
  CHECK(args[0].elemBytes == 4);
  CHECK(args[1].elemBytes == 1);
  CHECK_FALSE(args[1].input);
  CHECK(args[2].kind == KernelArg::Scalar);
  REQUIRE(credit::parseKernelSignature("x:in:row:f32;gamma:in:broadcast:f32;y:out:row:f32", args, err));
  CHECK(args[1].kind == KernelArg::Broadcast);

  REQUIRE(credit::parseKernelSignature(
      "x:in:row:bf16;gamma:in:broadcast:f16;beta:in:broadcast:f32;y:out:row:bf16;rstd:out:scalar:f32", args, err));
  REQUIRE(args.size() == 5);
  CHECK(args[0].type == KernelArg::BF16);
  CHECK(args[0].elemBytes == 2);
  CHECK(args[1].type == KernelArg::F16);
  CHECK(args[1].kind == KernelArg::Broadcast);
  CHECK(args[1].elemBytes == 2);
  CHECK(args[2].type == KernelArg::F32);
  CHECK(args[2].elemBytes == 4);
  CHECK(args[3].type == KernelArg::BF16);
  CHECK_FALSE(args[3].input);
  CHECK(args[3].elemBytes == 2);
  CHECK(args[4].kind == KernelArg::Scalar);
  CHECK(args[4].elemBytes == 4);
  REQUIRE(credit::parseKernelSignature("x:in:row:f32;q:out:row:i8", args, err));
  CHECK(args[1].type == KernelArg::I8);

  for (const char* bad : {"", "x:in:row", "x:inout:row:f32", "x:in:column:f32", "x:in:row:f64",
                          ":in:row:f32", "x:in:row:f32:extra", "x:in:row:bfloat16", "x:in:row:half",
                          "x:in:row:int64", "x:in:row:u16"}) {
    INFO(bad);
    CHECK_FALSE(credit::parseKernelSignature(bad, args, err));
    CHECK_FALSE(err.empty());
  }
}

TEST_CASE("parseKernelSignature reads class indices and masks", "[runtime][baseline]") {
  std::vector<KernelArg> args;
  std::string err;
  // cross_entropy_fwd_bf16, cross_entropy_bwd_bf16, masked_softmax_bf16.
  REQUIRE(credit::parseKernelSignature("x:in:row:bf16;t:in:scalar:i64;loss:out:scalar:f32;lse:out:scalar:f32",
                                       args, err));
  REQUIRE(args.size() == 4);
  CHECK(args[1].type == KernelArg::I64);
  CHECK(args[1].kind == KernelArg::Scalar);
  CHECK(args[1].input);
  CHECK(args[1].elemBytes == 8);
  REQUIRE(credit::parseKernelSignature("x:in:row:bf16;t:in:scalar:i32;g:in:scalar:f32;dx:out:row:bf16", args, err));
  CHECK(args[1].type == KernelArg::I32);
  CHECK(args[1].elemBytes == 4);
  CHECK(args[2].type == KernelArg::F32);
  REQUIRE(credit::parseKernelSignature("x:in:row:bf16;keep:in:row:bool;y:out:row:bf16", args, err));
  CHECK(args[1].type == KernelArg::Bool);
  CHECK(args[1].kind == KernelArg::Row);
  CHECK(args[1].elemBytes == 1);
  REQUIRE(credit::parseKernelSignature(
      "x:in:row:f32;m:in:broadcast:u8;s:in:row:i8;b:in:broadcast:bool;y:out:row:f32", args, err));
  REQUIRE(args.size() == 5);
  CHECK(args[1].type == KernelArg::U8);
  CHECK(args[1].kind == KernelArg::Broadcast);
  CHECK(args[1].elemBytes == 1);
  CHECK(args[2].type == KernelArg::I8);
  CHECK(args[2].input);
  CHECK(args[2].elemBytes == 1);
  CHECK(args[3].type == KernelArg::Bool);
  CHECK(args[3].kind == KernelArg::Broadcast);

  // What the language rejects: per-element class indices, per-row masks and 16-bit or
  // byte per-row values, integer and mask outputs, broadcast outputs.
  for (const char* bad : {"t:in:row:i64", "t:in:broadcast:i32", "keep:in:scalar:bool", "m:in:scalar:u8",
                          "s:in:scalar:i8", "r:in:scalar:bf16", "r:in:scalar:f16", "t:out:scalar:i64",
                          "t:out:scalar:i32", "keep:out:row:bool", "m:out:row:u8", "q:out:scalar:i8",
                          "r:out:scalar:bf16", "y:out:broadcast:f32", "x:in:row:f32;t:in:row:i64"}) {
    INFO(bad);
    err.clear();
    CHECK_FALSE(credit::parseKernelSignature(bad, args, err));
    CHECK(err.find("malformed signature entry") != std::string::npos);
  }
}

TEST_CASE("parseKernelSignature reads runtime params", "[runtime][baseline]") {
  std::vector<KernelArg> args;
  std::string err;
  REQUIRE(credit::parseKernelSignature("x:in:row:bf16;y:out:row:bf16;temperature:in:param:f32", args, err));
  REQUIRE(args.size() == 3);
  CHECK(args[2].kind == KernelArg::Param);
  CHECK(args[2].input);
  CHECK(args[2].type == KernelArg::F32);
  // A runtime param is one f32 input.
  for (const char* bad : {"t:out:param:f32", "t:in:param:bf16", "t:in:param:i64"}) {
    INFO(bad);
    err.clear();
    CHECK_FALSE(credit::parseKernelSignature(bad, args, err));
    CHECK(err.find("a runtime param is an f32 input") != std::string::npos);
  }
}

TEST_CASE("findKernelSignature finds the literal of credit_<K>_signature()", "[runtime][baseline]") {
  const std::string src =
      "int x;\nconst char* credit_layernorm_signature() { return \"x:in:row:f32;y:out:row:f32\"; }\n";
  std::string sig;
  REQUIRE(credit::findKernelSignature(src, "layernorm", sig));
  CHECK(sig == "x:in:row:f32;y:out:row:f32");
  CHECK_FALSE(credit::findKernelSignature(src, "softmax", sig));
  CHECK_FALSE(credit::findKernelSignature("const char* credit_k_signature() { return \"unterminated", "k", sig));
}

TEST_CASE("timeBaselineKernel refuses bad requests before touching a GPU", "[runtime][baseline]") {
  credit::Runtime rt;  // not created
  credit::BaselineRequest q;
  q.kernel = "k";
  q.geometry = {4, 2, 1, 2, 256};
  q.M = 0;
  q.N = 1024;
  CHECK(credit::timeBaselineKernel(rt, q).status.code == credit::Status::kInvalidArgument);
  q.M = 4;
  q.source = "no signature here";
  CHECK(credit::timeBaselineKernel(rt, q).status.code == credit::Status::kInvalidArgument);
  // T_slice: only for a staged request; none where the device's SMEM sizes
  // are unknown (no one-CTA-per-SM form), so nothing is launched.
  q.staged = false;
  CHECK(credit::timeSliceKernels(rt, q).status.code == credit::Status::kInvalidArgument);
  q.staged = true;
  q.N = 32768;
  credit::Expected<std::vector<credit::SliceTiming>> none = credit::timeSliceKernels(rt, q);
  CHECK(none.ok());
  CHECK(none.value.empty());
}

TEST_CASE("baselineKernelFor names the kernel the staged and reread launchers run", "[runtime][baseline]") {
  const credit::WorkloadGeometry g{8, 2, 3, 4, 256};  // two kept inputs, 256 threads
  const long long perSm = 233472, optin = 232448;    // H100 / H200
  const std::size_t scratch = static_cast<std::size_t>(credit::scratchBytes(g, 1, credit::Protocol::Sync));
  auto f = [&](long long N, bool staged) { return credit::baselineKernelFor("k", g, N, staged, perSm, optin); };
  CHECK(f(4096, true).function == "credit_k_staged_regs_v4");  // regsMaxN(256) = 4096
  CHECK(f(4099, true).function == "credit_k_staged_regs_wide_v1");
  CHECK(f(8192, true).function == "credit_k_staged_regs_wide_v4");  // regsWideMaxN(256) = 8192
  CHECK(f(8192, true).smemBytes == scratch);
  CHECK(f(8192, true).threads == 256);
  // 8196 x 8 B: 65.6 KB, three CTAs per SM: the SMEM kernel.
  CHECK(f(8196, true).function == "credit_k_staged_v4");
  CHECK(f(8196, true).smemBytes ==
        static_cast<std::size_t>(credit::smemBytes(g, 8196, 1, credit::Protocol::Sync)));
  // 16384 x 8 B = 128 KB: one CTA per SM, so the 512-thread twin, whose
  // registers hold 16384 elements.
  CHECK(f(16384, true).function == "credit_k_staged_regs_wide_v4_cta512");
  CHECK(f(16384, true).threads == 512);
  // 24576 x 8 B: the twin's SMEM form.
  const credit::WorkloadGeometry g512{8, 2, 3, 4, 512};
  CHECK(f(24576, true).function == "credit_k_staged_v4_cta512");
  CHECK(f(24576, true).smemBytes ==
        static_cast<std::size_t>(credit::smemBytes(g512, 24576, 1, credit::Protocol::Sync)));
  // No device figures: no twin.
  CHECK(credit::baselineKernelFor("k", g, 16384, true, 0, optin).function == "credit_k_staged_v4");
  CHECK(f(4096, false).function == "credit_k_reread_v4");
  CHECK(f(65537, false).function == "credit_k_reread_v1");
  CHECK(f(65537, false).smemBytes == scratch);
  // A file of 16-bit operands: runs of 8 where N % 8 == 0, else the scalar kernels.
  auto f8 = [&](long long N, bool staged) {
    return credit::baselineKernelFor("k", g, N, staged, perSm, optin, true, 8).function;
  };
  CHECK(f8(4096, true) == "credit_k_staged_regs_v8");
  CHECK(f8(8196, true) == "credit_k_staged_v1");  // N % 4 == 0 but not N % 8
  CHECK(f8(65536, false) == "credit_k_reread_v8");
  // 512-thread files: no twin (1024 threads spill), registers up to 16384.
  CHECK(credit::baselineKernelFor("k", g512, 16384, true, perSm, optin).function == "credit_k_staged_regs_wide_v4");
  CHECK(credit::baselineKernelFor("k", g512, 20000, true, perSm, optin).function == "credit_k_staged_v4");
  // One kept input: 32768 x 4 B = 128 KB, one CTA per SM, so the twin, whose
  // registers hold 64 elements per thread of one input (the deep form).
  // With two inputs only h reads as well (layernorm): 64 KB at 16384, three CTAs
  // per SM, no twin. Without them (quant_int8) the row is light: the twin's
  // register kernel (isLightRegisterRow), 512 threads, scratch only.
  const credit::WorkloadGeometry g1{4, 2, 1, 2, 256, 2};
  const credit::WorkloadGeometry g1w{4, 2, 1, 2, 512, 2};
  auto f1 = [&](long long N) { return credit::baselineKernelFor("k", g1, N, true, perSm, optin); };
  CHECK(f1(16384).function == "credit_k_staged_v4");
  const credit::WorkloadGeometry light{4, 1, 1, 1, 256, 0};
  const credit::WorkloadGeometry lightWide{4, 1, 1, 1, 512, 0};
  auto fl = [&](long long N) { return credit::baselineKernelFor("k", light, N, true, perSm, optin); };
  CHECK(fl(16384).function == "credit_k_staged_regs_wide_v4_cta512");
  CHECK(fl(16384).threads == 512);
  CHECK(fl(16384).smemBytes == static_cast<std::size_t>(credit::scratchBytes(lightWide, 1, credit::Protocol::Sync)));
  CHECK(fl(14336).function == "credit_k_staged_regs_wide_v4_cta512");  // SMEM form: three CTAs per SM
  CHECK(fl(12288).function == "credit_k_staged_v4");  // four CTAs per SM: as many threads as the twin's two
  CHECK(fl(10000).function == "credit_k_staged_v4");  // five
  CHECK(fl(8192).function == "credit_k_staged_regs_wide_v4");      // 256 threads hold it
  CHECK(fl(16388).function == "credit_k_staged_v4");               // past 32 per thread of 512
  CHECK(credit::baselineKernelFor("k", light, 16384, true, perSm, optin, false).function ==
        "credit_k_staged_v4");  // "staged_smem"
  CHECK(f1(32768).function == "credit_k_staged_regs_deep_v4_cta512");
  CHECK(f1(32768).threads == 512);
  CHECK(f1(32768).smemBytes == static_cast<std::size_t>(credit::scratchBytes(g1w, 1, credit::Protocol::Sync)));
  CHECK(f1(32767).function == "credit_k_staged_regs_deep_v1_cta512");
  // Two 16-bit kept inputs (b_keep 4): the vector deep kernel holds their words, the
  // scalar one would need a register per element and input: the file has none, and
  // a scalar launch takes the SMEM twin.
  auto f2 = [&](long long N) {
    return credit::baselineKernelFor("k", g1, N, true, perSm, optin, true, 8, 2).function;
  };
  CHECK(f2(32768) == "credit_k_staged_regs_deep_v8_cta512");
  CHECK(f2(32767) == "credit_k_staged_v1_cta512");
  CHECK(credit::hasScalarDeepRegisterForm(1));
  CHECK_FALSE(credit::hasScalarDeepRegisterForm(2));
  CHECK(f1(24576).function == "credit_k_staged_v4");  // 96 KB: two CTAs per SM, no twin
  CHECK(f1(32772).function == "credit_k_staged_v4_cta512");  // beyond regsDeepMaxN(512)
}

TEST_CASE("clusterLoadBalancing: every cluster form but the partial-retention one", "[runtime][layout]") {
  // The generated launchers pass it per form (lit CodeGen/launcher.test, partial-retention.test).
  CHECK(credit::clusterLoadBalancing(false));
  CHECK_FALSE(credit::clusterLoadBalancing(true));
  static_assert(credit::clusterLoadBalancing(false), "usable in constant expressions (device code)");
}

TEST_CASE("useWideCta: twice the threads where one CTA fills an SM's shared memory", "[runtime][layout]") {
  const long long perSm = 233472, optin = 232448;
  CHECK(credit::ctasPerSmBySmem(64 * 1024, perSm) == 3);
  CHECK(credit::ctasPerSmBySmem(128 * 1024, perSm) == 1);
  CHECK_FALSE(credit::useWideCta(512, 64 * 1024, 64 * 1024 + 32, perSm, optin));
  CHECK(credit::useWideCta(512, 128 * 1024, 128 * 1024 + 32, perSm, optin));
  CHECK_FALSE(credit::useWideCta(0, 128 * 1024, 128 * 1024 + 32, perSm, optin));  // no twin
  CHECK_FALSE(credit::useWideCta(512, optin, optin + 32, perSm, optin));  // the twin is not legal
  CHECK_FALSE(credit::useWideCta(512, 128 * 1024, 128 * 1024, 0, optin));  // unknown device
}

TEST_CASE("usePartialRetention: one kept input fewer where the full form fills an SM", "[runtime][layout]") {
  const long long perSm = 233472, optin = 232448;
  // Two kept inputs (keep 8, partial keep 4) on the H200, mbarrier. The full
  // form runs one CTA per SM at slices of 16384 elements (128 KiB), the
  // partial one three (64 KiB).
  const credit::WorkloadGeometry full{8, 3, 1, 3, 256}, partial{4, 3, 1, 3, 256};
  using credit::Protocol;
  const auto use = [&](long long N, int P, bool late) {
    return credit::usePartialRetention(credit::smemBytes(full, N, P, Protocol::Mbarrier),
                                       credit::smemBytes(partial, N, P, Protocol::Mbarrier), P, late, perSm,
                                       optin);
  };
  // softmax_logits_bwd: dy is first read by stage 3 -- every such P.
  CHECK(use(262144, 16, true));
  CHECK(use(131072, 8, true));
  CHECK(use(65536, 4, true));
  CHECK(use(32768, 2, true));
  // pearson_bwd and the like: the dropped input is read by the first pass -- P = 16 only.
  CHECK(use(262144, 16, false));
  CHECK_FALSE(use(131072, 8, false));
  CHECK_FALSE(use(32768, 2, false));
  // Not where the full form already runs several CTAs per SM, nor where it is not legal.
  CHECK_FALSE(use(131072, 16, true));
  CHECK_FALSE(use(65536, 8, true));
  CHECK_FALSE(use(262144, 8, true));
  CHECK_FALSE(credit::usePartialRetention(128 * 1024, 128 * 1024, 16, true, perSm, optin));  // no partial form
  CHECK_FALSE(credit::usePartialRetention(128 * 1024, 120 * 1024, 16, true, perSm, optin));  // still one CTA per SM
  CHECK(credit::usePartialRetention(128 * 1024, 100 * 1024, 16, true, perSm, optin));         // two
  CHECK_FALSE(credit::usePartialRetention(128 * 1024, 64 * 1024, 16, true, 0, optin));        // unknown device
}

TEST_CASE("prefetchInputsOfH: inputs only h reads at entry within the data-register budget", "[runtime][layout]") {
  const int narrow = credit::kRegsElemsPerThread, wide = credit::kRegsWideElemsPerThread;
  // layernorm (x kept; gamma, beta only in h) and lars (w, g kept; v only in h).
  CHECK(credit::prefetchInputsOfH(1, 2, narrow, false));  // 48 data registers, 256 threads
  CHECK(credit::prefetchInputsOfH(2, 1, narrow, false));
  CHECK(credit::prefetchInputsOfH(1, 2, wide, true));     // 96 in the one-CTA-per-SM twin
  CHECK(credit::prefetchInputsOfH(2, 1, wide, true));
  // The 256-thread wide form: 96 would cost a CTA per SM (layernorm 8192: 3 -> 2).
  CHECK_FALSE(credit::prefetchInputsOfH(1, 2, wide, false));
  CHECK_FALSE(credit::prefetchInputsOfH(1, 1, wide, false));
  // Over budget, or nothing to load.
  CHECK_FALSE(credit::prefetchInputsOfH(2, 2, narrow, false));
  CHECK_FALSE(credit::prefetchInputsOfH(3, 1, wide, true));
  CHECK_FALSE(credit::prefetchInputsOfH(1, 0, narrow, false));
  CHECK_FALSE(credit::prefetchInputsOfH(0, 2, narrow, false));  // no kept row: no entry loads
}

TEST_CASE("stagedForm without registers: the SMEM kernel or its wide-CTA twin", "[runtime][layout]") {
  // The generic variant "staged_smem" (registersOk false).
  const credit::WorkloadGeometry g{8, 2, 3, 4, 256};
  const long long perSm = 233472, optin = 232448;
  using credit::StagedForm;
  CHECK(credit::stagedForm(g, 4096, false, perSm, optin) == StagedForm::Smem);
  CHECK(credit::stagedForm(g, 16384, false, perSm, optin) == StagedForm::WideCtaSmem);
  CHECK(credit::stagedForm(g, 16384, true, perSm, optin) == StagedForm::WideCtaRegisters);
  CHECK(credit::stagedForm(g, 16384, true, 0, 0) == StagedForm::Smem);  // device not asked yet
  CHECK(credit::stagedForm(g, 4096, true, 0, 0) == StagedForm::Registers);
  CHECK(credit::stagedForm(g, 24576, true, perSm, optin) == StagedForm::WideCtaSmem);  // two kept: no deep form
  const credit::WorkloadGeometry g1{4, 2, 1, 2, 256, 2};  // one kept input, two only h reads (layernorm)
  CHECK(credit::hasDeepRegisterForm(g1));
  CHECK_FALSE(credit::hasDeepRegisterForm(g));
  CHECK(credit::stagedForm(g1, 16384, true, perSm, optin) == StagedForm::Smem);
  CHECK(credit::stagedForm(g1, 24576, true, perSm, optin) == StagedForm::Smem);  // two CTAs per SM
  CHECK(credit::stagedForm(g1, 30000, true, perSm, optin) == StagedForm::WideCtaDeepRegisters);
  CHECK(credit::stagedForm(g1, 32768, true, perSm, optin) == StagedForm::WideCtaDeepRegisters);
  CHECK(credit::stagedForm(g1, 32768, false, perSm, optin) == StagedForm::WideCtaSmem);  // "staged_smem"
  CHECK(credit::stagedForm(g1, 32772, true, perSm, optin) == StagedForm::WideCtaSmem);
  CHECK(credit::stagedForm(g1, 32768, true, 0, 0) == StagedForm::Smem);  // device not asked yet
  // A light row (one kept input, nothing only h reads: quant_int8): the twin's
  // register kernel where the SMEM form fits several CTAs per SM, once the
  // device's sizes are known; not a one-CTA-per-SM form (two per SM by registers).
  const credit::WorkloadGeometry light{4, 1, 1, 1, 256, 0};
  CHECK(credit::isLightRegisterRow(light));
  CHECK_FALSE(credit::isLightRegisterRow(g1));
  CHECK_FALSE(credit::isLightRegisterRow({4, 1, 1, 1, 256, 1}));  // one input only h reads (64 registers)
  CHECK_FALSE(credit::isLightRegisterRow(g));                     // two kept inputs
  CHECK_FALSE(credit::isLightRegisterRow({0, 1, 1, 1, 256, 0}));  // nothing kept
  CHECK(credit::stagedForm(light, 16384, true, perSm, optin) == StagedForm::LightWideCtaRegisters);
  CHECK(credit::stagedForm(light, 14336, true, perSm, optin) == StagedForm::LightWideCtaRegisters);
  CHECK(credit::stagedForm(light, 12288, true, perSm, optin) == StagedForm::Smem);  // 1024 threads per SM either way
  CHECK(credit::stagedForm(light, 8193, true, perSm, optin) == StagedForm::Smem);
  CHECK(credit::useLightTwin(light, 16384, perSm));
  CHECK_FALSE(credit::useLightTwin(light, 12288, perSm));
  CHECK_FALSE(credit::useLightTwin(light, 16384, 0));                    // device not asked yet
  CHECK_FALSE(credit::useLightTwin(g1, 16384, perSm));                   // not a light row
  CHECK_FALSE(credit::useLightTwin({4, 1, 1, 1, 1024, 0}, 16384, perSm));  // no twin
  CHECK(credit::stagedForm(light, 8192, true, perSm, optin) == StagedForm::WideRegisters);
  CHECK(credit::stagedForm(light, 16385, true, perSm, optin) == StagedForm::Smem);
  CHECK(credit::stagedForm(light, 16384, false, perSm, optin) == StagedForm::Smem);  // "staged_smem"
  CHECK(credit::stagedForm(light, 16384, true, 0, 0) == StagedForm::Smem);           // device not asked yet
  CHECK(credit::stagedForm(light, 32768, true, perSm, optin) == StagedForm::WideCtaDeepRegisters);
  CHECK(credit::stagedForm({4, 1, 1, 1, 512, 0}, 16384, true, perSm, optin) == StagedForm::WideRegisters);
  // 99 KB per SM (sm_120): 16384 x 4 B fits one CTA, so the twin as WideCtaRegisters.
  CHECK(credit::stagedForm(light, 16384, true, 101376 + 1024, 101376) == StagedForm::WideCtaRegisters);
  CHECK_FALSE(credit::isOneCtaPerSmForm(StagedForm::LightWideCtaRegisters));
  CHECK_FALSE(credit::measuresSlice(light, 16384, 2, perSm, optin));
  const credit::WorkloadGeometry g1024{8, 2, 3, 4, 1024};  // no register forms, no twins
  CHECK(credit::stagedForm(g1024, 4096, true, perSm, optin) == StagedForm::Smem);
  CHECK(credit::wideCtaThreads(256) == 512);
  CHECK(credit::wideCtaThreads(512) == 0);
  CHECK(credit::hasRegisterForms(512));
  CHECK_FALSE(credit::hasRegisterForms(1024));
  // T_slice is measured where the staged kernel runs one CTA per SM and the
  // cluster of P is legal (one kept input, 256 threads; two kept: 16384).
  CHECK(credit::measuresSlice({4, 2, 1, 2, 256}, 32768, 2, perSm, optin));
  CHECK(credit::measuresSlice({4, 2, 1, 2, 256}, 32768, 16, perSm, optin));
  CHECK_FALSE(credit::measuresSlice({4, 2, 1, 2, 256}, 16384, 2, perSm, optin));  // three CTAs per SM
  CHECK_FALSE(credit::measuresSlice({4, 2, 1, 2, 256}, 32768, 2, 0, 0));          // device not known
  CHECK(credit::measuresSlice({8, 2, 3, 4, 256}, 16384, 4, perSm, optin));
  CHECK_FALSE(credit::measuresSlice({8, 2, 3, 4, 256}, 8192, 2, perSm, optin));
  CHECK_FALSE(credit::hasDeepRegisterForm({4, 2, 1, 2, 512}));  // no twin
  CHECK_FALSE(credit::hasDeepRegisterForm({0, 2, 1, 2, 256}));  // nothing kept
}
