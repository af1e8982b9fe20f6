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

  for (const char* bad : {"", "x:in:row", "x:inout:row:f32", "x:in:column:f32", "x:in:row:f64",
                          ":in:row:f32", "x:in:row:f32:extra"}) {
    INFO(bad);
    CHECK_FALSE(credit::parseKernelSignature(bad, args, err));
    CHECK_FALSE(err.empty());
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
}
