//===- ReferenceEmitter.cpp - credit IR → float64 C++ reference -----------===//
//
// One SSA temporary per op, evaluated in double; every stage is one loop over
// the row computing all of its reductions, like the kernels' stage passes.
//
//===----------------------------------------------------------------------===//
#include "credit/Target/Cpp/ReferenceEmitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace credit;
namespace cr = mlir::credit;

namespace {

class ReferenceEmitter {
public:
  ReferenceEmitter(cr::KernelOp k, llvm::raw_ostream &os, llvm::StringRef prefix)
      : kernel(k), os(os),
        prefix(prefix.empty() ? "credit_" + k.getSymName().str() : prefix.str()) {}
  mlir::LogicalResult run(llvm::StringRef sourceName);

private:
  std::string fresh() { return "v" + std::to_string(counter++); }
  std::string name(mlir::Value v) {
    auto it = names.find(v);
    assert(it != names.end() && "value used before it was emitted");
    return it->second;
  }
  /// Emits one arith/math/credit element op; false if unsupported.
  mlir::LogicalResult emitOp(mlir::Operation &op, unsigned indent);
  mlir::LogicalResult emitBlockBody(mlir::Block &block, unsigned indent);

  cr::KernelOp kernel;
  llvm::raw_ostream &os;
  std::string prefix; // of the extern "C" functions
  llvm::DenseMap<mlir::Value, std::string> names;
  unsigned counter = 0;
};

/// A double literal that reads back as `v`; INFINITY and NAN (<cmath>) for
/// the non-finite values.
std::string literal(double v) {
  if (std::isnan(v))
    return "NAN";
  if (std::isinf(v))
    return v > 0 ? "INFINITY" : "-INFINITY";
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.17g", v);
  return s;
}

mlir::LogicalResult ReferenceEmitter::emitOp(mlir::Operation &op, unsigned indent) {
  auto operand = [&](unsigned i) { return name(op.getOperand(i)); };
  std::string expr;
  bool ok = true;
  llvm::TypeSwitch<mlir::Operation *>(&op)
      .Case<mlir::arith::ConstantOp>([&](auto c) {
        if (auto f = llvm::dyn_cast<mlir::FloatAttr>(c.getValue()))
          expr = literal(f.getValueAsDouble());
        else if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue()); i && i.getType().isInteger(1))
          expr = i.getValue().isOne() ? "true" : "false";
        else if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue()))
          expr = std::to_string(i.getInt());
        else
          ok = false;
      })
      .Case<mlir::arith::AddFOp>([&](auto) { expr = operand(0) + " + " + operand(1); })
      .Case<mlir::arith::SubFOp>([&](auto) { expr = operand(0) + " - " + operand(1); })
      .Case<mlir::arith::MulFOp>([&](auto) { expr = operand(0) + " * " + operand(1); })
      .Case<mlir::arith::DivFOp>([&](auto) { expr = operand(0) + " / " + operand(1); })
      .Case<mlir::arith::NegFOp>([&](auto) { expr = "-" + operand(0); })
      .Case<mlir::arith::MaxNumFOp>([&](auto) { expr = "std::fmax(" + operand(0) + ", " + operand(1) + ")"; })
      .Case<mlir::arith::MinNumFOp>([&](auto) { expr = "std::fmin(" + operand(0) + ", " + operand(1) + ")"; })
      .Case<mlir::math::AbsFOp>([&](auto) { expr = "std::fabs(" + operand(0) + ")"; })
      .Case<mlir::math::ExpOp>([&](auto) { expr = "std::exp(" + operand(0) + ")"; })
      .Case<mlir::math::LogOp>([&](auto) { expr = "std::log(" + operand(0) + ")"; })
      .Case<mlir::math::SqrtOp>([&](auto) { expr = "std::sqrt(" + operand(0) + ")"; })
      .Case<mlir::math::RsqrtOp>([&](auto) { expr = "1.0 / std::sqrt(" + operand(0) + ")"; })
      .Case<mlir::math::TanhOp>([&](auto) { expr = "std::tanh(" + operand(0) + ")"; })
      .Case<mlir::math::RoundOp>([&](auto) { expr = "std::round(" + operand(0) + ")"; })
      .Case<mlir::arith::FPToSIOp>([&](auto) { expr = "credit_ref_to_i8(" + operand(0) + ")"; })
      .Case<mlir::arith::SIToFPOp>([&](auto) { expr = "double(" + operand(0) + ")"; })
      .Case<mlir::arith::UIToFPOp>([&](auto) { expr = "double(" + operand(0) + ")"; })
      .Case<cr::IndexOp>([&](auto) { expr = "double(i)"; }) // the element loops' column
      .Case<mlir::arith::CmpFOp>([&](mlir::arith::CmpFOp c) {
        using P = mlir::arith::CmpFPredicate;
        const std::string a = operand(0), b = operand(1);
        switch (c.getPredicate()) {
        case P::OLT: expr = a + " < " + b; break;
        case P::OLE: expr = a + " <= " + b; break;
        case P::OGT: expr = a + " > " + b; break;
        case P::OGE: expr = a + " >= " + b; break;
        case P::OEQ: expr = a + " == " + b; break;
        case P::UNE: expr = a + " != " + b; break;
        case P::UGE: expr = "!(" + a + " < " + b + ")"; break;
        case P::UGT: expr = "!(" + a + " <= " + b + ")"; break;
        case P::ULE: expr = "!(" + a + " > " + b + ")"; break;
        case P::ULT: expr = "!(" + a + " >= " + b + ")"; break;
        case P::ONE: expr = "(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
        case P::UEQ: expr = "!(" + a + " < " + b + " || " + a + " > " + b + ")"; break;
        case P::ORD: expr = "(" + a + " == " + a + " && " + b + " == " + b + ")"; break;
        case P::UNO: expr = "(" + a + " != " + a + " || " + b + " != " + b + ")"; break;
        case P::AlwaysTrue: expr = "true"; break;
        case P::AlwaysFalse: expr = "false"; break;
        }
      })
      .Case<mlir::arith::SelectOp>([&](auto) { expr = operand(0) + " ? " + operand(1) + " : " + operand(2); })
      .Case<mlir::arith::AndIOp>([&](auto) { expr = operand(0) + " && " + operand(1); })
      .Case<mlir::arith::OrIOp>([&](auto) { expr = operand(0) + " || " + operand(1); })
      .Case<mlir::arith::XOrIOp>([&](auto) { expr = operand(0) + " != " + operand(1); })
      .Default([&](mlir::Operation *) { ok = false; });
  if (!ok)
    return op.emitError("the reference emitter does not support '")
           << op.getName() << "' (rejected workloads have no reference)";
  std::string v = fresh();
  mlir::Type t = op.getResult(0).getType();
  os.indent(indent) << "const " << (t.isInteger(8) ? "int " : t.isInteger(1) ? "bool " : "double ") << v
                    << " = " << expr << ";\n";
  names[op.getResult(0)] = v;
  return mlir::success();
}

mlir::LogicalResult ReferenceEmitter::emitBlockBody(mlir::Block &block, unsigned indent) {
  for (mlir::Operation &op : block.without_terminator())
    if (failed(emitOp(op, indent)))
      return mlir::failure();
  return mlir::success();
}

mlir::LogicalResult ReferenceEmitter::run(llvm::StringRef sourceName) {
  std::string k = kernel.getSymName().str();
  // Signature: inputs, then outputs, then the runtime params, in declaration order.
  std::vector<std::string> params;
  llvm::DenseMap<mlir::Operation *, std::string> inputPtr;
  // Source names get a prefix: a .credit name may be a C++ keyword or `M`.
  for (cr::InputOp in : kernel.getInputOps()) {
    params.push_back("const float* in_" + in.getName().str());
    inputPtr[in] = "in_" + in.getName().str();
  }
  for (cr::OutputOp out : kernel.getOutputOps()) {
    mlir::Type t = out.getValue().getType();
    bool i8 = cr::isRowType(t) && llvm::cast<cr::RowType>(t).getElementType().isInteger(8);
    params.push_back(std::string(i8 ? "int8_t* out_" : "double* out_") + out.getName().str());
  }
  for (cr::ParamOp p : kernel.getParamOps())
    if (p.isRuntime())
      params.push_back("float param_" + p.getName().str());
  params.push_back("long long M");
  params.push_back("long long N");

  os << "// float64 reference of kernel '" << k << "', generated by creditc --emit=reference\n"
     << "// from " << sourceName << ". Inputs are the float32 values the GPU sees (bf16, f16\n"
     << "// and integer inputs converted: exactly, integers below 2^24); every operation is\n"
     << "// evaluated in double; outputs are not rounded to their storage type.\n"
     << "#include <cmath>\n#include <cstdint>\n\n"
     << "namespace {\n"
     << "// i8(v): truncation toward zero, saturated to [-128, 127], NaN -> 0 (docs/dsl.md).\n"
     << "inline int credit_ref_to_i8(double v) {\n"
     << "  if (std::isnan(v)) return 0;\n"
     << "  if (v <= -128.0) return -128;\n"
     << "  if (v >= 127.0) return 127;\n"
     << "  return static_cast<int>(std::trunc(v));\n"
     << "}\n"
     << "} // namespace\n\n"
     << "extern \"C\" void " << prefix << "_reference(";
  for (size_t i = 0; i < params.size(); ++i)
    os << (i ? ",\n    " : "") << params[i];
  os << ") {\n";
  os << "  for (long long row = 0; row < M; ++row) {\n";
  const unsigned ind = 4;

  // Value of operand `in` inside an element loop at index i.
  auto elementRef = [&](mlir::Value input) -> std::string {
    auto in = input.getDefiningOp<cr::InputOp>();
    if (!in)
      return name(input);
    const bool mask = in.getStorageType().isInteger(1); // a bool input: nonzero is true
    switch (in.getKind()) {
    case cr::InputKind::row:
      return mask ? "(" + inputPtr[in] + "[row * N + i] != 0)" : "double(" + inputPtr[in] + "[row * N + i])";
    case cr::InputKind::broadcast:
      return mask ? "(" + inputPtr[in] + "[i] != 0)" : "double(" + inputPtr[in] + "[i])";
    case cr::InputKind::scalar: return "double(" + inputPtr[in] + "[row])";
    }
    return "";
  };

  for (mlir::Operation &op : kernel.getBodyBlock()) {
    if (auto in = llvm::dyn_cast<cr::InputOp>(op)) {
      // A per-row input used by row-level math is read in place.
      if (in.getKind() == cr::InputKind::scalar)
        names[in.getResult()] = "double(" + inputPtr[in] + "[row])";
      continue;
    }
    if (auto p = llvm::dyn_cast<cr::ParamOp>(op)) {
      std::string v = fresh();
      if (p.isRuntime())
        os.indent(ind) << "const double " << v << " = double(param_" << p.getName() << ");  // runtime param\n";
      else
        os.indent(ind) << "const double " << v << " = " << literal(p.getValue()->convertToDouble())
                       << ";  // param " << p.getName() << "\n";
      names[p.getResult()] = v;
      continue;
    }
    if (auto rw = llvm::dyn_cast<cr::RowWidthOp>(op)) {
      std::string v = fresh();
      os.indent(ind) << "const double " << v << " = double(N);\n";
      names[rw.getResult()] = v;
      continue;
    }
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      os.indent(ind) << "// stage " << stage.getStageIndex() + 1 << "\n";
      auto reds = stage.getReductions();
      // Element arguments and the region's ops, evaluated at element i; with
      // `only`, just what that value is computed from.
      auto emitElement = [&](cr::ElementRegionOpInterface r,
                             mlir::Value only = nullptr) -> mlir::LogicalResult {
        mlir::Block &body = r.getBodyBlock();
        llvm::DenseSet<mlir::Value> needed;
        llvm::SmallVector<mlir::Value> work;
        if (only)
          work.push_back(only);
        while (!work.empty()) {
          mlir::Value v = work.pop_back_val();
          if (!needed.insert(v).second)
            continue;
          if (mlir::Operation *def = v.getDefiningOp())
            for (mlir::Value operand : def->getOperands())
              work.push_back(operand);
        }
        for (mlir::BlockArgument arg : body.getArguments()) {
          if (only && !needed.contains(arg))
            continue;
          std::string v = fresh();
          os.indent(ind + 2) << (arg.getType().isInteger(1) ? "const bool " : "const double ") << v
                             << " = " << elementRef(r.getInputForArg(arg))
                             << ";\n";
          names[arg] = v;
        }
        for (mlir::Operation &op : body.without_terminator())
          if (!only || (op.getNumResults() && needed.contains(op.getResult(0))))
            if (failed(emitOp(op, ind + 2)))
              return mlir::failure();
        return mlir::success();
      };
      // An online statistic (reduce_sumexp) is its two-pass definition:
      // m = max(p) in a loop of its own, then s_j = sum(w_j * exp(p - m)).
      for (cr::ElementRegionOpInterface red : reds) {
        auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(red.getOperation());
        if (!online)
          continue;
        std::string m = fresh();
        os.indent(ind) << "double " << m << " = -INFINITY;  // max of the pivot\n";
        os.indent(ind) << "for (long long i = 0; i < N; ++i) {\n";
        if (failed(emitElement(red, online.getPivot())))
          return mlir::failure();
        os.indent(ind + 2) << m << " = std::fmax(" << m << ", " << name(online.getPivot()) << ");\n";
        os.indent(ind) << "}\n";
        names[online.getMax()] = m;
      }
      // Moments (reduce_moments) are theirs: s = sum(e) in a loop of its own,
      // then m2 = sum((e - s / N)^2).
      llvm::DenseMap<mlir::Operation *, std::string> momentMeans;
      for (cr::ElementRegionOpInterface red : reds) {
        auto moments = llvm::dyn_cast<cr::ReduceMomentsOp>(red.getOperation());
        if (!moments)
          continue;
        std::string s = fresh(), mean = fresh(), n = fresh();
        os.indent(ind) << "double " << s << " = 0.0;  // sum of the term\n";
        os.indent(ind) << "for (long long i = 0; i < N; ++i) {\n";
        if (failed(emitElement(red, moments.getTerm())))
          return mlir::failure();
        os.indent(ind + 2) << s << " += " << name(moments.getTerm()) << ";\n";
        os.indent(ind) << "}\n";
        os.indent(ind) << "const double " << n << " = static_cast<double>(N);\n";
        os.indent(ind) << "const double " << mean << " = " << s << " / " << n << ";\n";
        names[moments.getSum()] = s;
        names[moments.getCount()] = n;
        momentMeans[moments] = mean;
      }
      std::vector<std::vector<std::string>> accs;
      for (cr::ElementRegionOpInterface red : reds) {
        std::vector<std::string> acc;
        if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(red.getOperation())) {
          for (mlir::Value s : online.getSums()) {
            acc.push_back(fresh());
            os.indent(ind) << "double " << acc.back() << " = 0.0;\n";
            names[s] = acc.back();
          }
          accs.push_back(acc);
          continue;
        }
        if (auto moments = llvm::dyn_cast<cr::ReduceMomentsOp>(red.getOperation())) {
          acc.push_back(fresh());
          os.indent(ind) << "double " << acc.back() << " = 0.0;  // centred sum of squares\n";
          names[moments.getM2()] = acc.back();
          accs.push_back(acc);
          continue;
        }
        auto r = llvm::dyn_cast<cr::ReduceOp>(red.getOperation());
        if (!r)
          return red->emitError("the reference emitter supports sum, max and min reductions only");
        const char *init = r.getKind() == cr::ReduceKind::sum   ? "0.0"
                           : r.getKind() == cr::ReduceKind::max ? "-INFINITY"
                                                                : "INFINITY";
        acc.push_back(fresh());
        os.indent(ind) << "double " << acc.back() << " = " << init << ";\n";
        accs.push_back(acc);
      }
      os.indent(ind) << "for (long long i = 0; i < N; ++i) {\n";
      for (auto [j, red] : llvm::enumerate(reds)) {
        if (failed(emitElement(red)))
          return mlir::failure();
        if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(red.getOperation())) {
          std::string e = fresh();
          os.indent(ind + 2) << "const double " << e << " = std::exp(" << name(online.getPivot())
                             << " - " << names[online.getMax()] << ");\n";
          for (unsigned k = 0; k < online.getNumSums(); ++k)
            os.indent(ind + 2) << accs[j][k] << " += " << name(online.getWeight(k)) << " * " << e
                               << ";\n";
          continue;
        }
        if (auto moments = llvm::dyn_cast<cr::ReduceMomentsOp>(red.getOperation())) {
          std::string d = fresh();
          os.indent(ind + 2) << "const double " << d << " = " << name(moments.getTerm()) << " - "
                             << momentMeans[moments] << ";\n";
          os.indent(ind + 2) << accs[j][0] << " += " << d << " * " << d << ";\n";
          continue;
        }
        auto r = llvm::cast<cr::ReduceOp>(red.getOperation());
        std::string g = name(r.getYieldedValues()[0]);
        const std::string &acc = accs[j][0];
        switch (r.getKind()) {
        case cr::ReduceKind::sum: os.indent(ind + 2) << acc << " += " << g << ";\n"; break;
        case cr::ReduceKind::max: os.indent(ind + 2) << acc << " = std::fmax(" << acc << ", " << g << ");\n"; break;
        case cr::ReduceKind::min: os.indent(ind + 2) << acc << " = std::fmin(" << acc << ", " << g << ");\n"; break;
        }
      }
      os.indent(ind) << "}\n";
      for (auto [j, red] : llvm::enumerate(reds))
        if (llvm::isa<cr::ReduceOp>(red.getOperation()))
          names[red->getResult(0)] = accs[j][0];
      // Row-level post-math of the stage.
      for (mlir::Operation &inner : stage.getBodyBlock().without_terminator())
        if (!llvm::isa<cr::ElementRegionOpInterface>(inner) && failed(emitOp(inner, ind)))
          return mlir::failure();
      for (auto [i, result] : llvm::enumerate(stage.getResults())) {
        std::string v = name(stage.getYieldOp().getOperand(i));
        os.indent(ind) << "// " << stage.getResultName(i) << " = " << v << "\n";
        names[result] = v;
      }
      continue;
    }
    if (auto apply = llvm::dyn_cast<cr::ApplyOp>(op)) {
      os.indent(ind) << "// h\n";
      os.indent(ind) << "for (long long i = 0; i < N; ++i) {\n";
      mlir::Block &body = apply.getBodyBlock();
      for (mlir::BlockArgument arg : body.getArguments()) {
        std::string v = fresh();
        os.indent(ind + 2) << (arg.getType().isInteger(1) ? "const bool " : "const double ") << v
                           << " = " << elementRef(apply.getInputForArg(arg))
                           << ";\n";
        names[arg] = v;
      }
      if (failed(emitBlockBody(body, ind + 2)))
        return mlir::failure();
      for (auto [i, result] : llvm::enumerate(apply.getResults())) {
        cr::OutputOp out;
        for (mlir::Operation *user : result.getUsers())
          out = llvm::dyn_cast<cr::OutputOp>(user);
        bool i8 = llvm::cast<cr::RowType>(result.getType()).getElementType().isInteger(8);
        os.indent(ind + 2) << "out_" << out.getName() << "[row * N + i] = "
                           << (i8 ? "static_cast<int8_t>(" : "") << name(apply.getYieldedValues()[i])
                           << (i8 ? ")" : "") << ";\n";
      }
      os.indent(ind) << "}\n";
      continue;
    }
    if (auto out = llvm::dyn_cast<cr::OutputOp>(op)) {
      if (!cr::isRowType(out.getValue().getType()))
        os.indent(ind) << "out_" << out.getName() << "[row] = " << name(out.getValue()) << ";\n";
      continue;
    }
    if (failed(emitOp(op, ind)))
      return mlir::failure();
  }
  os << "  }\n}\n\n";

  // Type-erased entry point for generic test harnesses: the same arguments as
  // an array, in the same order.
  os << "extern \"C\" void " << prefix
     << "_reference_generic(const void* const* args, long long M, long long N) {\n"
     << "  " << prefix << "_reference(";
  unsigned argIndex = 0;
  for (cr::InputOp in : kernel.getInputOps()) {
    (void)in;
    os << (argIndex ? ", " : "") << "static_cast<const float*>(args[" << argIndex << "])";
    ++argIndex;
  }
  for (cr::OutputOp out : kernel.getOutputOps()) {
    mlir::Type t = out.getValue().getType();
    bool i8 = cr::isRowType(t) && llvm::cast<cr::RowType>(t).getElementType().isInteger(8);
    os << (argIndex ? ", " : "") << "static_cast<" << (i8 ? "int8_t" : "double")
       << "*>(const_cast<void*>(args[" << argIndex << "]))";
    ++argIndex;
  }
  // A runtime param's entry points to its value.
  for (cr::ParamOp p : kernel.getParamOps())
    if (p.isRuntime())
      os << ", *static_cast<const float*>(args[" << argIndex++ << "])";
  os << ", M, N);\n}\n";
  return mlir::success();
}

} // namespace

mlir::LogicalResult credit::emitReference(cr::KernelOp kernel, llvm::StringRef sourceName,
                                          llvm::raw_ostream &os, llvm::StringRef prefix) {
  return ReferenceEmitter(kernel, os, prefix).run(sourceName);
}
