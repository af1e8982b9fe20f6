//===- CreditAttrs.td - attributes of the `credit` dialect --*- tablegen -*-===//
//
// The schedule of a kernel (#credit.schedule, written by credit-schedule and
// read through readSchedule, Transforms/Schedule.h) and its geometry.
//
//===----------------------------------------------------------------------===//

#ifndef CREDIT_DIALECT_CREDIT_IR_CREDITATTRS_TD
#define CREDIT_DIALECT_CREDIT_IR_CREDITATTRS_TD

// Parameters with their own syntax (CreditAttrs.cpp).
class Credit_NameListParameter<string desc>
    : ArrayRefParameter<"::mlir::StringAttr", desc> {
  let parser = "::mlir::credit::detail::parseNameList($_parser)";
  let printer = "::mlir::credit::detail::printNameList($_printer, $_self)";
}
def Credit_FormListParameter : ArrayRefParameter<"::mlir::credit::Form",
                                                 "kernel forms"> {
  let parser = "::mlir::credit::detail::parseFormList($_parser)";
  let printer = "::mlir::credit::detail::printFormList($_printer, $_self)";
}
def Credit_MaterializedListParameter
    : ArrayRefParameter<"::mlir::credit::MaterializedInput",
                        "materialized inputs"> {
  let parser = "::mlir::credit::detail::parseMaterializedList($_parser)";
  let printer = "::mlir::credit::detail::printMaterializedList($_printer, $_self)";
}
def Credit_FlagParameter : AttrOrTypeParameter<"bool", "true or false"> {
  let parser = "::mlir::credit::detail::parseFlag($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
}
// The same, printed only when true.
def Credit_OptionalFlagParameter : AttrOrTypeParameter<"bool", "true or false"> {
  let parser = "::mlir::credit::detail::parseFlag($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
  let defaultValue = "false";
}

def Credit_GeometryAttr : AttrDef<Credit_Dialect, "Geometry"> {
  let mnemonic = "geometry";
  let summary = "the figures the shared-memory layout depends on";
  let description = [{
    `#credit.geometry<keep = 8, stages = 3, q_max = 1, q_sum = 3,
    threads = 256, h_only = 0>`: the `credit::WorkloadGeometry` of the narrow
    forms (runtime/include/credit/runtime/Layout.h): bytes retained per row
    element, L, the largest and the total number of statistics per stage, the
    CTA size, and the number of inputs only h reads.
  }];
  let parameters = (ins "int":$keep, "int":$stages, "int":$q_max, "int":$q_sum,
                        "int":$threads, "int":$h_only);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Credit_ScheduleAttr : AttrDef<Credit_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "how an accepted kernel runs: its forms and their decisions";
  let description = [{
    Written on `credit.kernel` as `credit.schedule` by `credit-schedule`;
    every printer reads it (readSchedule). Inputs are named as in the source.

    * `threads`, `wide_threads`: the CTA size of the narrow forms and of the
      wide-CTA twins (0: no twin).
    * `forms`: every kernel form generated, in order (`cluster_sync`, ...).
    * `kept`: the row inputs read by more than one pass, in first-read order
      (the bulk copies' and the persistent ring's order).
    * `smem`: the kept inputs in the order of their shared-memory arrays
      (`kept`, with the partial form's dropped input last).
    * `materialized`: `"x" by p`: from pass p (0-based: the stages, then h)
      the retained slice of x holds T(x), the expression whose op carries
      `credit.materialized = "x"`.
    * `partial_drop` (absent: no partial form): the kept input the
      partial-retention form re-reads from global memory;
      `partial_drop_read_late` (absent: false): it is first read after the
      first pass.
    * `kept_read_late`: some kept input is first read after the first pass.
    * `only_h`: the row and broadcast inputs only h reads; `hoisted`: the
      broadcast ones (the persistent form loads them once per CTA);
      `prefetch_l2`: the row ones, where the persistent form exists (it asks
      L2 for them at each row's start).
    * `geometry`: the narrow forms' `#credit.geometry`.
    * `vector_width` (absent: 4): elements per access run of the vector
      kernels (`_v<width>`): 8 where every per-element operand (row and
      broadcast inputs, row outputs) is at most 2 bytes, so that an access
      moves 16 bytes of bf16 or f16; else 4 (f32: a float4).
  }];
  let parameters = (ins
    "int":$threads,
    "int":$wide_threads,
    Credit_FormListParameter:$forms,
    Credit_NameListParameter<"kept inputs, first-read order">:$kept,
    Credit_NameListParameter<"kept inputs, SMEM array order">:$smem,
    Credit_MaterializedListParameter:$materialized,
    OptionalParameter<"::mlir::StringAttr", "the partial form's dropped input">:$partial_drop,
    Credit_OptionalFlagParameter:$partial_drop_read_late,
    Credit_FlagParameter:$kept_read_late,
    Credit_NameListParameter<"inputs only h reads">:$only_h,
    Credit_NameListParameter<"broadcast inputs only h reads">:$hoisted,
    Credit_NameListParameter<"row inputs only h reads, prefetched">:$prefetch_l2,
    "::mlir::credit::GeometryAttr":$geometry,
    DefaultValuedParameter<"int", "4", "elements per access run of the vector kernels">:$vector_width
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // CREDIT_DIALECT_CREDIT_IR_CREDITATTRS_TD
