// Unit tests of the CUDA emitter's printing infrastructure: the name supply's
// mangling scheme, float literals, and the expression printer's common
// subexpressions (a chain of lets stays linear).
#include "ExprPrinter.h"
#include "NameSupply.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

using namespace credit::cuda;

TEST_CASE("source names are kept where plain, else mangled deterministically", "[codegen][expr]") {
  NameSupply root;
  root.claim("Row");
  CHECK(root.fresh("x") == "x");
  CHECK(root.fresh("x") == "x_");
  CHECK(root.fresh("x") == "x_2");
  CHECK(root.fresh("rstd") == "rstd");
  // Keywords, macro-shaped names, lower-case macros, library prefixes.
  CHECK(root.fresh("float") == "float_");
  CHECK(root.fresh("and") == "and_");
  CHECK(root.fresh("INFINITY") == "INFINITY_");
  CHECK(root.fresh("NAN") == "NAN_");
  CHECK(root.fresh("INT_MAX") == "INT_MAX_");
  CHECK(root.fresh("M_PI") == "M_PI_");
  CHECK(root.fresh("M") == "M_");
  CHECK(root.fresh("linux") == "linux_");
  CHECK(root.fresh("errno") == "errno_");
  CHECK(root.fresh("stdout") == "stdout_");
  CHECK(root.fresh("complex") == "complex_");
  CHECK(root.fresh("credit_scale") == "credit_scale_");
  CHECK(root.fresh("cudaStream") == "cudaStream_");
  CHECK(root.fresh("__x") == "x_3");
  CHECK(root.fresh("_Upper") == "Upper_");
  CHECK(root.fresh("y_") == "y_");
  CHECK(root.fresh("Row") == "Row_");
  // Nested scopes see their ancestors' names.
  NameSupply inner(&root);
  CHECK(inner.fresh("rstd") == "rstd_");
  CHECK(inner.fresh("t0") == "t0");
  CHECK(!root.isTaken("t0"));
  CHECK(root.fresh("t0") == "t0");
  CHECK(inner.derived("x", "smem") == "x_smem");
  CHECK(inner.derived("float_", "smem") == "float_smem");
}

TEST_CASE("float literals round-trip and stay constant expressions", "[codegen][expr]") {
  CHECK(cudaFloatLiteral(1e-5f) == "1e-05f");
  CHECK(cudaFloatLiteral(127.0f) == "127.0f");
  CHECK(cudaFloatLiteral(-0.5f) == "-0.5f");
  CHECK(cudaFloatLiteral(0.1f) == "0.1f");
  CHECK(cudaFloatLiteral(-0.0f) == "-0.0f");
  CHECK(cudaFloatLiteral(INFINITY) == "::cuda::std::numeric_limits<float>::infinity()");
  CHECK(cudaFloatLiteral(-INFINITY) == "-::cuda::std::numeric_limits<float>::infinity()");
  CHECK(cudaFloatLiteral(NAN) == "::cuda::std::numeric_limits<float>::quiet_NaN()");
  for (float f : {1e-5f, 0.1f, 3.14159274f, 1e-9f, 1.17549435e-38f, 3.40282347e+38f, 16777215.0f,
                  1.00000012f, 123456.789f, 1e-45f}) {
    std::string s = shortestFloat(f);
    CHECK(std::strtof(s.c_str(), nullptr) == f);
    std::string lit = cudaFloatLiteral(f);
    lit.pop_back(); // the f suffix
    CHECK(std::strtof(lit.c_str(), nullptr) == f);
  }
}

namespace {
/// A function-like block with one f32 argument, built op by op.
struct Block {
  mlir::MLIRContext ctx;
  mlir::OpBuilder b{&ctx};
  mlir::Block block;
  mlir::Value arg;
  Block() {
    ctx.loadDialect<mlir::arith::ArithDialect, mlir::math::MathDialect>();
    arg = block.addArgument(b.getF32Type(), b.getUnknownLoc());
    b.setInsertionPointToEnd(&block);
  }
  mlir::Location loc() { return b.getUnknownLoc(); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::MulFOp>(loc(), x, y); }
  mlir::Value sub(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::SubFOp>(loc(), x, y); }
  mlir::Value exp(mlir::Value x) { return b.create<mlir::math::ExpOp>(loc(), x); }
  mlir::Value cst(float f) {
    return b.create<mlir::arith::ConstantOp>(loc(), b.getF32FloatAttr(f));
  }
};
} // namespace

TEST_CASE("values used more than once are named once; a let chain stays linear", "[codegen][expr]") {
  Block k;
  mlir::Value v = k.arg;
  for (int i = 0; i < 20; ++i)
    v = k.mul(v, v); // v^(2^20) as a chain of squares
  NameSupply names;
  ExprPrinter p(ExprStyle::Cuda, names);
  p.bind(k.arg, "x");
  p.scan(ExprPrinter::opsOf(k.block));
  std::string out;
  llvm::raw_string_ostream os(out);
  p.declare(ExprPrinter::opsOf(k.block), os, nullptr);
  std::string last = p.ref(v);
  INFO(out);
  CHECK(p.ok());
  // Every square but the last is a temporary; the last is inlined into its use.
  CHECK(out.rfind("const float t0 = x * x;\n", 0) == 0);
  CHECK(out.find("const float t18 = t17 * t17;\n") != std::string::npos);
  CHECK(last == "t18 * t18");
  CHECK(out.size() < 20 * 40);
}

TEST_CASE("identical ops are one value; association is the IR's", "[codegen][expr]") {
  Block k;
  mlir::Value m = k.cst(2.0f);
  mlir::Value a = k.sub(k.arg, m);
  mlir::Value b = k.sub(k.arg, m); // the same value as a
  mlir::Value c = k.mul(a, b);     // (x - 2) * (x - 2)
  mlir::Value d = k.sub(k.arg, k.sub(c, k.arg)); // x - (c - x)
  mlir::Value e = k.exp(d);
  NameSupply names;
  names.claim("x");
  ExprPrinter p(ExprStyle::Cuda, names);
  p.bind(k.arg, "x");
  p.scan(ExprPrinter::opsOf(k.block));
  std::string out;
  llvm::raw_string_ostream os(out);
  p.declare(ExprPrinter::opsOf(k.block), os, nullptr);
  CHECK(out == "const float t0 = x - 2.0f;\n");
  CHECK(p.ref(e) == "expf(x - (t0 * t0 - x))");
  // The functions the expressions call are never hidden by a local.
  CHECK(names.fresh("expf") == "expf_");

  NameSupply fastNames;
  ExprPrinter fast(ExprStyle::CudaFast, fastNames);
  fast.bind(k.arg, "x");
  fast.scan(ExprPrinter::opsOf(k.block));
  std::string fastOut;
  llvm::raw_string_ostream fos(fastOut);
  fast.declare(ExprPrinter::opsOf(k.block), fos, nullptr);
  CHECK(fast.ref(e) == "fast_exp(x - (t0 * t0 - x))");
  CHECK(fastNames.fresh("fast_exp") == "fast_exp_");
}
