//===- CreditOps.td - the `credit` dialect ------------------*- tablegen -*-===//
//
// Dialect, types, enum attributes, the element-region op interface and the
// ops of the `credit` dialect. docs/design.md is the specification.
//
//===----------------------------------------------------------------------===//

#ifndef CREDIT_DIALECT_CREDIT_IR_CREDITOPS_TD
#define CREDIT_DIALECT_CREDIT_IR_CREDITOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Credit_Dialect : Dialect {
  let name = "credit";
  let cppNamespace = "::mlir::credit";
  let summary = "Row-wise reduction kernels (stages, reductions, apply)";
  let description = [{
    A `credit.kernel` holds one workload: inputs, params, stages of
    reductions/selections, at most one elementwise `credit.apply` and the
    outputs. See docs/design.md.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // `credit.schedule` and `credit.materialized` are checked against the
  // kernel they annotate (CreditAttrs.cpp).
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Credit_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Credit_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Credit_RowType : Credit_Type<"Row", "row"> {
  let summary = "a per-element operand of the row";
  let description = [{
    `!credit.row<E>`: a row-varying input, a broadcast vector or an
    elementwise result. `E`, the storage type, is `f32`, `bf16`, `f16`, `i8`,
    `ui8` (u8) or `i1` (bool, one byte; inputs only); element regions see a
    float, i8 or u8 element as f32 (loads convert, stores round to nearest
    even) and a bool one as i1.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), elementType);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Credit_AnyRow : Type<CPred<"::llvm::isa<::mlir::credit::RowType>($_self)">,
                         "credit row", "::mlir::credit::RowType">;
def Credit_RowF32 : Type<And<[Credit_AnyRow.predicate,
    CPred<"::llvm::cast<::mlir::credit::RowType>($_self).getElementType().isF32()">]>,
    "credit row of f32", "::mlir::credit::RowType">;
// An operand of reduce/select/apply: a row or a row-level f32.
def Credit_RowOrF32 : AnyTypeOf<[Credit_AnyRow, F32], "credit row or f32">;
def Credit_ElemType : AnyTypeOf<[F32, I8], "f32 or i8">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Credit_InputKind : I32EnumAttr<"InputKind", "kind of a kernel input", [
    I32EnumAttrCase<"row", 0>,
    I32EnumAttrCase<"broadcast", 1>,
    I32EnumAttrCase<"scalar", 2>]> {
  let cppNamespace = "::mlir::credit";
  let genSpecializedAttr = 0;
}
def Credit_ReduceKind : I32EnumAttr<"ReduceKind", "reduction operator", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::credit";
  let genSpecializedAttr = 0;
}
def Credit_SelectKind : I32EnumAttr<"SelectKind", "selection operator", [
    I32EnumAttrCase<"median", 0>,
    I32EnumAttrCase<"quantile", 1>,
    I32EnumAttrCase<"topk", 2>]> {
  let cppNamespace = "::mlir::credit";
  let genSpecializedAttr = 0;
}
def Credit_ScanKind : I32EnumAttr<"ScanKind", "scan operator", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::credit";
  let genSpecializedAttr = 0;
}

// The kernel forms a schedule may list (#credit.schedule, Schedule.h): one
// extern "C" kernel per form and vector width. The keyword is the snake_case
// of the case name. ClusterWide*, StagedWide, StagedRegsWideWide,
// StagedRegsDeepWide and the persistent forms run at the wide-CTA twin's
// threads (isWideCtaForm); StagedRegsWide is the narrow CTA's wide register row.
def Credit_Form : I32EnumAttr<"Form", "kernel form", [
    I32EnumAttrCase<"ClusterSync", 0, "cluster_sync">,
    I32EnumAttrCase<"ClusterMbarrier", 1, "cluster_mbarrier">,
    I32EnumAttrCase<"ClusterRegsSync", 2, "cluster_regs_sync">,
    I32EnumAttrCase<"ClusterRegsMbarrier", 3, "cluster_regs_mbarrier">,
    I32EnumAttrCase<"ClusterWideSync", 4, "cluster_wide_sync">,
    I32EnumAttrCase<"ClusterWideMbarrier", 5, "cluster_wide_mbarrier">,
    I32EnumAttrCase<"ClusterPartialSync", 6, "cluster_partial_sync">,
    I32EnumAttrCase<"ClusterPartialMbarrier", 7, "cluster_partial_mbarrier">,
    I32EnumAttrCase<"Persistent", 8, "persistent">,
    I32EnumAttrCase<"PersistentHalves", 9, "persistent_halves">,
    I32EnumAttrCase<"PersistentClaims", 10, "persistent_claims">,
    I32EnumAttrCase<"PersistentHalvesClaims", 11, "persistent_halves_claims">,
    I32EnumAttrCase<"Staged", 12, "staged">,
    I32EnumAttrCase<"StagedRegs", 13, "staged_regs">,
    I32EnumAttrCase<"StagedRegsWide", 14, "staged_regs_wide">,
    I32EnumAttrCase<"StagedWide", 15, "staged_wide">,
    I32EnumAttrCase<"StagedRegsWideWide", 16, "staged_regs_wide_wide">,
    I32EnumAttrCase<"StagedRegsDeepWide", 17, "staged_regs_deep_wide">,
    I32EnumAttrCase<"Reread", 18, "reread">,
    I32EnumAttrCase<"ControlSync", 19, "control_sync">,
    I32EnumAttrCase<"ControlMbarrier", 20, "control_mbarrier">]> {
  let cppNamespace = "::mlir::credit";
  let genSpecializedAttr = 0;
}

// InputKind prints as a bare keyword (`credit.input "x" row`), the others in
// angle brackets (`credit.reduce <sum>`).
def Credit_InputKindAttr
    : EnumAttr<Credit_Dialect, Credit_InputKind, "input_kind">;
def Credit_ReduceKindAttr
    : EnumAttr<Credit_Dialect, Credit_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "`<` $value `>`";
}
def Credit_SelectKindAttr
    : EnumAttr<Credit_Dialect, Credit_SelectKind, "select_kind"> {
  let assemblyFormat = "`<` $value `>`";
}
def Credit_ScanKindAttr
    : EnumAttr<Credit_Dialect, Credit_ScanKind, "scan_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

// #credit.schedule and #credit.geometry.
include "CreditAttrs.td"

//===----------------------------------------------------------------------===//
// Element-region op interface (reduce, select, apply)
//===----------------------------------------------------------------------===//

def Credit_ElementRegionOpInterface : OpInterface<"ElementRegionOpInterface"> {
  let cppNamespace = "::mlir::credit";
  let description = [{
    An op whose single-block, isolated region is evaluated once per element of
    the row: `credit.reduce`, `credit.select`, `credit.apply`. Operand i
    (`inputs`) enters the region as block argument i: a `!credit.row<E>`
    operand as its element (type E), an f32 operand as itself.
  }];
  let methods = [
    InterfaceMethod<"The operands (row and row-level values).",
      "::mlir::OperandRange", "getInputs">,
    InterfaceMethod<"The operands, mutable.",
      "::mlir::MutableOperandRange", "getInputsMutable">,
    InterfaceMethod<"The only block of the element region.",
      "::mlir::Block &", "getBodyBlock", (ins), [{}], [{
        return $_op->getRegion(0).front();
      }]>,
    InterfaceMethod<"Block argument standing for operand `i`.",
      "::mlir::BlockArgument", "getElementArgFor", (ins "unsigned":$i), [{}], [{
        return $_op->getRegion(0).front().getArgument(i);
      }]>,
    InterfaceMethod<"Operand that block argument `arg` stands for.",
      "::mlir::Value", "getInputForArg", (ins "::mlir::BlockArgument":$arg),
      [{}], [{
        return $_op->getOperand(arg.getArgNumber());
      }]>,
    InterfaceMethod<"Whether operand `i` is a row (!credit.row) operand.",
      "bool", "isRowInput", (ins "unsigned":$i), [{}], [{
        return ::llvm::isa<::mlir::credit::RowType>($_op->getOperand(i).getType());
      }]>,
    InterfaceMethod<"Values yielded by the element region.",
      "::mlir::OperandRange", "getYieldedValues", (ins), [{}], [{
        return $_op->getRegion(0).front().getTerminator()->getOperands();
      }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Credit_Op<string mnemonic, list<Trait> traits = []>
    : Op<Credit_Dialect, mnemonic, traits>;

def Credit_KernelOp : Credit_Op<"kernel", [
    Symbol, SingleBlock, NoTerminator, IsolatedFromAbove]> {
  let summary = "one workload";
  let description = [{
    `credit.kernel @name { ... }`: inputs, params, `row_width`, stages, at most
    one apply and the outputs, in program order, in one block. Analyses attach
    discardable `credit.*` attributes to it.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $bodyRegion";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name)>
  ];
  let extraClassDeclaration = [{
    /// The body block (created by the builder and the parser).
    ::mlir::Block &getBodyBlock() { return getBodyRegion().front(); }
    auto getInputOps() { return getBodyBlock().getOps<InputOp>(); }
    auto getParamOps() { return getBodyBlock().getOps<ParamOp>(); }
    auto getStageOps() { return getBodyBlock().getOps<StageOp>(); }
    auto getOutputOps() { return getBodyBlock().getOps<OutputOp>(); }
    /// The apply op, or null if the kernel has none.
    ApplyOp getApplyOp();
    /// Look up an input / param / output by name (null if none).
    InputOp lookupInput(::llvm::StringRef name);
    ParamOp lookupParam(::llvm::StringRef name);
    OutputOp lookupOutput(::llvm::StringRef name);
  }];
}

// Not Pure on purpose: an unused input is never erased by DCE/canonicalize
// (it stays part of the kernel's signature).
def Credit_InputOp : Credit_Op<"input", [
    HasParent<"KernelOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "kernel input";
  let description = [{
    `%x = credit.input "x" row : !credit.row<bf16>`; kinds `row`, `broadcast`
    (result `!credit.row<E>`, E = f32, bf16, f16, i8, ui8 (u8) or i1 (bool, one
    byte)) and `scalar` (result `f32`; `{storage = i32}` or `i64` where it is
    stored as an integer and converted at the load).
  }];
  let arguments = (ins StrAttr:$name, Credit_InputKindAttr:$kind,
                       OptionalAttr<TypeAttr>:$storage);
  let results = (outs Credit_RowOrF32:$result);
  let assemblyFormat =
      "$name custom<InputKindKeyword>($kind) attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [
    // Result type derived from the kind and the storage type (default f32).
    OpBuilder<(ins "::llvm::StringRef":$name, "InputKind":$kind,
                   CArg<"::mlir::Type", "{}">:$storage)>
  ];
  let extraClassDeclaration = [{
    bool isRow() { return getKind() == InputKind::row; }
    bool isBroadcast() { return getKind() == InputKind::broadcast; }
    bool isScalar() { return getKind() == InputKind::scalar; }
    /// How the input is stored: a row's element type, a scalar's storage
    /// attribute, else f32.
    ::mlir::Type getStorageType();
  }];
}

def Credit_ParamOp : Credit_Op<"param", [
    Pure, HasParent<"KernelOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "named scalar: a compile-time constant or a launch argument";
  let description = [{
    `%eps = credit.param "eps" = 1.0e-05 : f32` is a constant of the generated
    code; `%t = credit.param "t" : f32` (no value) a runtime scalar, one value
    for every row, that the launch API takes as an argument.
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<F32Attr>:$value);
  let results = (outs F32:$result);
  let assemblyFormat =
      "$name (`=` custom<ParamValue>($value)^)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "float":$value), [{
      build($_builder, $_state, $_builder.getF32Type(),
            $_builder.getStringAttr(name), $_builder.getF32FloatAttr(value));
    }]>,
    OpBuilder<(ins "::llvm::StringRef":$name), [{
      build($_builder, $_state, $_builder.getF32Type(),
            $_builder.getStringAttr(name), ::mlir::FloatAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// A launch argument rather than a constant.
    bool isRuntime() { return !getValueAttr(); }
  }];
}

def Credit_RowWidthOp : Credit_Op<"row_width", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "N, the row width, as f32";
  let description = [{ `%n = credit.row_width : f32` }];
  let results = (outs F32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getF32Type()); }]>
  ];
}

def Credit_StageOp : Credit_Op<"stage", [
    HasParent<"KernelOp">, SingleBlock, RecursiveMemoryEffects,
    RecursivelySpeculatable,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "one stage: reductions/selections and row-level post-math";
  let description = [{
    ```
    %mu, %sw = credit.stage ["mu", "sw"] {
      ...
      credit.yield %a, %b : f32, f32
    } : f32, f32
    ```
    Not isolated from above: the body may use earlier row-level values and
    passes row values to its reductions.
  }];
  let arguments = (ins StrArrayAttr:$names);
  let results = (outs Variadic<F32>:$results);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat =
      "$names attr-dict-with-keyword $bodyRegion (`:` type($results)^)?";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the body block (empty, no terminator): fill it and end it
    // with a credit.yield of `names.size()` f32 values.
    OpBuilder<(ins "::llvm::ArrayRef<::llvm::StringRef>":$names)>,
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ArrayAttr":$names)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBodyRegion().front(); }
    YieldOp getYieldOp();
    /// Name of result i.
    ::llvm::StringRef getResultName(unsigned i);
    /// Position of this stage among the stages of its kernel (0-based).
    unsigned getStageIndex();
    /// ReduceOps, ReduceSumExpOps, ReduceMomentsOps and SelectOps of the
    /// stage, in order.
    ::llvm::SmallVector<ElementRegionOpInterface> getReductions();
    /// q: the scalar statistics the stage's reductions produce (one per
    /// reduce / select, 1 + k per reduce_sumexp, 3 per reduce_moments), i.e.
    /// its partials.
    unsigned getNumStatistics();
  }];
}

// Shared pieces of reduce / select / apply.
class Credit_ElementRegionOp<string mnemonic, list<Trait> traits = []>
    : Credit_Op<mnemonic, !listconcat(traits, [
        IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects,
        RecursivelySpeculatable,
        Credit_ElementRegionOpInterface])> {
  let regions = (region SizedRegion<1>:$bodyRegion);
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  // getBodyBlock(), getElementArgFor(i), getInputForArg(arg), isRowInput(i)
  // and getYieldedValues() come from ElementRegionOpInterface's trait.
  code elementRegionDecls = [{
    YieldOp getYieldOp();
  }];
}

def Credit_ReduceOp : Credit_ElementRegionOp<"reduce", [HasParent<"StageOp">]> {
  let summary = "a statistic: reduction over the row of a per-element term";
  let description = [{
    ```
    %s = credit.reduce <sum> (%x, %m) : (!credit.row<f32>, f32) -> f32 {
    ^bb0(%xe: f32, %me: f32):
      %d = arith.subf %xe, %me : f32
      credit.yield %d : f32
    }
    ```
  }];
  let arguments = (ins Credit_ReduceKindAttr:$kind,
                       Variadic<Credit_RowOrF32>:$inputs);
  let results = (outs F32:$result);
  let assemblyFormat = [{
    $kind ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, $result)
    $bodyRegion
  }];
  let builders = [
    // Creates the body block with one element argument per input. If
    // `bodyBuilder` is given it is called with the block arguments and must
    // create the credit.yield; otherwise the block is left empty.
    OpBuilder<(ins "ReduceKind":$kind, "::mlir::ValueRange":$inputs,
      CArg<"::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
           "::mlir::ValueRange)>", "nullptr">:$bodyBuilder)>
  ];
  let extraClassDeclaration = elementRegionDecls;
}

def Credit_ReduceSumExpOp
    : Credit_ElementRegionOp<"reduce_sumexp", [HasParent<"StageOp">]> {
  let summary = "online statistic: the max of a pivot and sums of weighted "
                "exponentials relative to it, in one sweep";
  let description = [{
    ```
    %m, %s = credit.reduce_sumexp (%x, %dy) : (!credit.row<f32>, !credit.row<f32>) -> (f32, f32) {
    ^bb0(%xe: f32, %dye: f32):
      credit.yield %xe, %dye : f32, f32
    }
    ```
    The region yields the pivot p and k >= 1 weights w_1..w_k; the results
    are m = max_i p_i (the `max` reduction: identity -inf, a NaN pivot is
    ignored) and s_j = sum_i w_j,i * exp(p_i - m). Its value is exactly the
    two-pass definition (a `max` stage, then a stage of sums), special
    values included: when m is +-inf every s_j is NaN. It is computed in one
    sweep with the associative combine on (m, s_1..s_k):
    (m1, s1) + (m2, s2) = (M, s1 * exp(m1 - M) + s2 * exp(m2 - M)),
    M = max(m1, m2), where exp(mi - M) is taken as 1 when mi == M.
  }];
  let arguments = (ins Variadic<Credit_RowOrF32>:$inputs);
  let results = (outs Variadic<F32>:$results);
  let assemblyFormat = [{
    ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $bodyRegion
  }];
  let builders = [
    // `numSums` sums (k); creates the body block with one element argument
    // per input. If `bodyBuilder` is given it must create the credit.yield of
    // the pivot and the k weights.
    OpBuilder<(ins "unsigned":$numSums, "::mlir::ValueRange":$inputs,
      CArg<"::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
           "::mlir::ValueRange)>", "nullptr">:$bodyBuilder)>
  ];
  let extraClassDeclaration = elementRegionDecls # [{
    /// m, the max of the pivot.
    ::mlir::Value getMax() { return getResult(0); }
    /// s_1..s_k.
    ::mlir::ResultRange getSums() { return getResults().drop_front(); }
    unsigned getNumSums() { return getNumResults() - 1; }
    /// The pivot p and weight j inside the region.
    ::mlir::Value getPivot();
    ::mlir::Value getWeight(unsigned j);
  }];
}

def Credit_ReduceMomentsOp
    : Credit_ElementRegionOp<"reduce_moments", [HasParent<"StageOp">]> {
  let summary = "the count, sum and centred sum of squares of a per-element "
                "term, in one sweep";
  let description = [{
    ```
    %n, %s, %m2 = credit.reduce_moments (%x) : (!credit.row<f32>) -> (f32, f32, f32) {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    ```
    The region yields one term e; the results are n (the number of
    elements, as f32), s = sum_i e_i and m2 = sum_i (e_i - s / n)^2. Its
    value is that of the two-pass definition (a sum stage, then a stage
    summing the squares around s / n), not its bits: the partials
    (n, s, m2) combine with Chan et al.'s pairwise update,
    (n1, s1, m1) + (n2, s2, m2) = (n, s1 + s2, m1 + m2 + d^2 n1 n2 / n),
    n = n1 + n2, d = s2 / n2 - s1 / n1, which needs no second sweep and
    loses no precision to a large common offset (docs/dsl.md, "Stage
    optimization").
  }];
  let arguments = (ins Variadic<Credit_RowOrF32>:$inputs);
  let results = (outs F32:$count, F32:$sum, F32:$m2);
  let assemblyFormat = [{
    ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
    $bodyRegion
  }];
  let builders = [
    // Creates the body block with one element argument per input. If
    // `bodyBuilder` is given it must create the credit.yield of the term.
    OpBuilder<(ins "::mlir::ValueRange":$inputs,
      CArg<"::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
           "::mlir::ValueRange)>", "nullptr">:$bodyBuilder)>
  ];
  let extraClassDeclaration = elementRegionDecls # [{
    /// The term e inside the region.
    ::mlir::Value getTerm();
  }];
}

def Credit_SelectOp : Credit_ElementRegionOp<"select", [HasParent<"StageOp">]> {
  let summary = "a selection statistic (median, quantile, topk)";
  let description = [{
    ```
    %q = credit.select <quantile, 0.9> (%x) : (!credit.row<f32>) -> f32 {
    ^bb0(%xe: f32):
      credit.yield %xe : f32
    }
    ```
    The optional parameter (`<quantile, 0.9>`, `<topk, 3>`) is the q of
    `quantile`, the k of `topk`.
  }];
  let arguments = (ins Credit_SelectKindAttr:$kind,
                       OptionalAttr<F64Attr>:$param,
                       Variadic<Credit_RowOrF32>:$inputs);
  let results = (outs F32:$result);
  let assemblyFormat = [{
    custom<SelectKindAndParam>($kind, $param) ` ` `(` $inputs `)` attr-dict
    `:` functional-type($inputs, $result) $bodyRegion
  }];
  let builders = [
    OpBuilder<(ins "SelectKind":$kind, "::std::optional<double>":$param,
      "::mlir::ValueRange":$inputs,
      CArg<"::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
           "::mlir::ValueRange)>", "nullptr">:$bodyBuilder)>
  ];
  let extraClassDeclaration = elementRegionDecls;
}

def Credit_ApplyOp : Credit_ElementRegionOp<"apply", [HasParent<"KernelOp">]> {
  let summary = "the final elementwise computation";
  let description = [{
    ```
    %y, %z = credit.apply (%x, %w, %mu)
        : (!credit.row<f32>, !credit.row<f32>, f32)
        -> (!credit.row<f32>, !credit.row<i8>) {
    ^bb0(%xe: f32, %we: f32, %m: f32):
      ...
      credit.yield %a, %b : f32, i8
    }
    ```
  }];
  let arguments = (ins Variadic<Credit_RowOrF32>:$inputs);
  let results = (outs Variadic<Credit_AnyRow>:$results);
  let assemblyFormat = [{
    ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $bodyRegion
  }];
  let builders = [
    // Result types given (!credit.row<E>); creates the body block with the
    // element arguments and leaves it empty.
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>,
    // Result types inferred from the credit.yield that `bodyBuilder` must
    // create: one !credit.row<T> per yielded value of type T, or of the
    // storage type `storage[i]` where given (bf16 or f16 for a yielded f32).
    OpBuilder<(ins "::mlir::ValueRange":$inputs,
      "::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
      "::mlir::ValueRange)>":$bodyBuilder,
      CArg<"::llvm::ArrayRef<::mlir::Type>", "{}">:$storage)>
  ];
  let extraClassDeclaration = elementRegionDecls;
}

def Credit_OutputOp : Credit_Op<"output", [
    HasParent<"KernelOp">, MemoryEffects<[MemWrite]>]> {
  let summary = "binds an output";
  let description = [{
    `credit.output "y" %y : !credit.row<f32>` or
    `credit.output "scale" %s : f32`.
  }];
  let arguments = (ins StrAttr:$name, Credit_RowOrF32:$value);
  let assemblyFormat = "$name $value attr-dict `:` type($value)";
}

def Credit_YieldOp : Credit_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["StageOp", "ReduceOp", "ReduceSumExpOp", "ReduceMomentsOp", "SelectOp", "ApplyOp"]>]> {
  let summary = "terminator of stage / reduce / select / apply regions";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

def Credit_ScanOp : Credit_Op<"scan", [Pure, SameOperandsAndResultType]> {
  let summary = "prefix scan over the row (element regions only)";
  let description = [{ `%p = credit.scan <sum> %v : f32` }];
  let arguments = (ins Credit_ScanKindAttr:$kind, F32:$input);
  let results = (outs F32:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Credit_NeighborOp : Credit_Op<"neighbor", [
    Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "value of a row operand at a neighbouring element";
  let description = [{
    `%l = credit.neighbor %xe [-1] : f32`: `%xe` is the element argument of
    a row operand of the directly enclosing reduce/select/apply.
  }];
  let arguments = (ins Credit_ElemType:$input, I64Attr:$offset);
  let results = (outs Credit_ElemType:$result);
  let assemblyFormat =
      "$input ` ` `[` $offset `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Credit_IndexOp : Credit_Op<"index", [Pure]> {
  let summary = "the element's column in the row (0-based), as f32";
  let description = [{
    `%i = credit.index : f32` inside a reduce, reduce_sumexp, reduce_moments,
    select or apply
    region: the column of the element the region is evaluated at (the source's
    `i`). Exact below 2^24 columns.
  }];
  let results = (outs F32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Credit_SortOp : Credit_Op<"sort", [Pure, SameOperandsAndResultType]> {
  let summary = "sort over the row (element regions only)";
  let description = [{ `%s = credit.sort %v : f32` }];
  let arguments = (ins F32:$input);
  let results = (outs F32:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // CREDIT_DIALECT_CREDIT_IR_CREDITOPS_TD
