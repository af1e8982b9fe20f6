// credit/device/workload.cuh -- the contract a generated workload fulfils, and the
// compile-time facts the library reads from it.
//
// A workload is a struct of constants and static functions (creditc generates it;
// tests/device/fixtures/ has examples):
//
//   static constexpr int kStages;                  L >= 1 stages of statistics
//   static constexpr int kQ[kStages];              statistics per stage
//   static constexpr Reduce kReduce[];             (+) of every statistic, stage-major; an
//                                                  online statistic is SumExpMax followed by
//                                                  its k >= 1 SumExpSum (reduce.cuh), one
//                                                  entry per result, within one stage;
//                                                  moments are MomentsCount, MomentsSum,
//                                                  MomentsM2, consecutive (reduce.cuh)
//   static constexpr Operand kInputs[];            {Kind, Elem} per input, signature order
//                                                  (row and broadcast inputs: F32, BF16, F16,
//                                                  I8, U8, Bool; per-row: F32, I32, I64)
//   static constexpr Operand kOutputs[];           {Kind::Row | Kind::PerRow, Elem} per output
//                                                  (per-row outputs: F32 or I8)
//   The schedule, as decided by the compiler (credit.schedule):
//   static constexpr unsigned kReads[kStages + 1]; the row and broadcast inputs each pass
//                                                  reads (bit i: input i); pass kStages is h
//   static constexpr int kNumKept;                 kept inputs (row inputs two passes read)
//   static constexpr int kKept[kNumKept];          their input indices, in first-read order:
//                                                  the order of the bulk copies and the ring
//   static constexpr int kSmemSlot[kNumKept];      the SMEM array of each kept input; the
//                                                  partial form's dropped input is last.
//                                                  Arrays hold the input's storage type:
//                                                  slot s starts at the element bytes of
//                                                  slots 0 .. s-1 times the slice
//   static constexpr int kMaterialize[kNumKept];   the pass that stores T(x) over the kept
//                                                  input (later passes read T(x)); -1: none
//                                                  (always for a 16-bit kept input: T(x)
//                                                  rounded to 16 bits would change results)
//   static constexpr int kPartialDrop;             the kept input (index into kKept) the
//                                                  partial form reads from L2; -1: no such form
//   static constexpr bool kPartialDropReadLate;    another kept input is first read before it
//   static constexpr unsigned kHoisted;            broadcast inputs only h reads, loaded once
//                                                  per CTA by the persistent form
//   static constexpr unsigned kPrefetchL2;         row inputs only h reads, prefetched into L2
//                                                  per row by the persistent form
//   static constexpr int kThreads, kWideThreads;   CTA sizes of the narrow forms and the twins
//                                                  (0: no twins)
//   static constexpr bool kFastMath;               the element math uses fast_exp, __logf, ...
//   static constexpr int kNumParams;               (optional, 0 when absent) runtime params:
//                                                  f32 kernel arguments after the pointers
//   static constexpr unsigned kPicked;             (optional, 0 when absent) bit l: stage l has
//                                                  sums that one column decides, from pick()
//   The arithmetic:
//   struct Row { float N; ... };                   row-level values: N (set by the library),
//                                                  per-row inputs, statistics, lets
//   template <class In> static void begin_row(Row&, const In& in);
//        per-row inputs: in.template in<i>() is input i's value for the row (a float;
//        an integer converted to the nearest f32); in.template param<j>() runtime param j
//   template <class E> static void pass(Pass<p>, E& e, const Row&);   for p = 0 .. kStages
//        one element of pass p (stage p, or h for p == kStages):
//        e.template in<i>()        input i's element as a float (inputs the pass reads;
//                                  a bool element is 0 or 1)
//        e.template add<j>(g)      combines g into statistic j of the stage
//        e.template add_sumexp<j>(p, w...)   adds pivot p and weights w_1..w_k into the
//                                  online statistic at j (SumExpMax; j + i: the sum of w_i)
//        e.template add_moments<j>(g)   adds g to the moments at j (MomentsCount): finish
//                                  reads r[j] = n, r[j + 1] = sum g, r[j + 2] = sum (g - mean)^2
//        e.template out<j>(v)      sets row output j's element (h; i8 outputs take int8_t,
//                                  bf16 and f16 outputs a float, rounded at the store)
//        e.template keep<i>(t)     stores T(x) over kept input i (the pass kMaterialize names)
//        E::template held<i>()     whether in<i>() already is T(x) (read from the kept copy)
//   template <class E> static void pick(Pass<l>, E& e, const Row&);   stages kPicked names
//        a sum sum(where(i == u, v, 0)), u the same for the whole row: v at column u, once
//        per row and CTA instead of a term per element. if (e.at(u)) holds where column u
//        lies in this CTA's slice; then e.template in<i>() and e.index() are column u's,
//        and e.template add<j>(v) adds v to (Sum) statistic j
//   static void finish(Stage<l>, Row&, const float* r);   r[j]: statistic j of stage l,
//        combined over the row; the row-level math that follows stage l
//   template <class O> static void end_row(const Row&, O& o);
//        per-row outputs: o.template out<j>(v); run by one thread per row
//   static float control_value(const Row&);        a value of the statistics that the
//        control kernel keeps alive (its only store is never executed)
//
// The library decides where every element comes from (global memory, the kept slice,
// registers, L2) and how partials are combined; it derives no scheduling decision, only
// the arithmetic below (masks, counts, geometry), and checks the constants' consistency.
// Plain C++17 (no CUDA built-ins): the host launchers include it as well.
#ifndef CREDIT_DEVICE_WORKLOAD_CUH
#define CREDIT_DEVICE_WORKLOAD_CUH

#include "credit/device/config.cuh"
#include "credit/runtime/SmemLayout.h"

namespace credit {
namespace device {

enum class Kind : int { Row, Broadcast, PerRow };  // [M][N], [N], [M]
// Element types: how an element is stored. The arithmetic is f32: loads convert
// (exactly; per-row integers to the nearest f32), bf16 and f16 stores round to
// nearest even. Row and broadcast inputs are F32, BF16, F16 or a byte type (I8, U8,
// Bool: nonzero is true), per-row inputs F32, I32 or I64; outputs F32, BF16, F16 or
// I8, per-row outputs F32 or I8. A kept input keeps its storage type on chip.
enum class Elem : int { F32, I8, BF16, F16, U8, Bool, I32, I64 };
// Sum, Max, Min: one value each. SumExpMax, SumExpSum...: one online statistic, the
// max m of a pivot and sums of weighted exp(pivot - m) (reduce.cuh). MomentsCount,
// MomentsSum, MomentsM2: the count, sum and centred sum of squares of a term, in one
// sweep (reduce.cuh).
enum class Reduce : int { Sum, Max, Min, SumExpMax, SumExpSum, MomentsCount, MomentsSum, MomentsM2 };

CREDIT_HD constexpr bool isSumExp(Reduce k) { return k == Reduce::SumExpMax || k == Reduce::SumExpSum; }
CREDIT_HD constexpr bool isMoments(Reduce k) {
  return k == Reduce::MomentsCount || k == Reduce::MomentsSum || k == Reduce::MomentsM2;
}

struct Operand {
  Kind kind;
  Elem elem;
};

template <int p>
struct Pass {
  static constexpr int value = p;
};
template <int l>
struct Stage {
  static constexpr int value = l;
};

CREDIT_HD constexpr bool is16Bit(Elem e) { return e == Elem::BF16 || e == Elem::F16; }
CREDIT_HD constexpr bool isByte(Elem e) { return e == Elem::I8 || e == Elem::U8 || e == Elem::Bool; }
CREDIT_HD constexpr int elemBytes(Elem e) {
  return isByte(e) ? 1 : is16Bit(e) ? 2 : e == Elem::I64 ? 8 : 4;
}

CREDIT_HD constexpr bool sameGeometry(WorkloadGeometry a, WorkloadGeometry b) {
  return a.keepBytesPerElem == b.keepBytesPerElem && a.numStages == b.numStages && a.qMax == b.qMax &&
         a.qSum == b.qSum && a.threads == b.threads && a.hOnlyArrays == b.hOnlyArrays;
}

// W::kNumParams, or 0 where the workload declares none.
template <class W, class = void>
struct NumParams {
  static constexpr int value = 0;
};
template <class W>
struct NumParams<W, decltype(void(W::kNumParams))> {
  static constexpr int value = W::kNumParams;
};

// W::kPicked, or 0 where the workload declares none.
template <class W, class = void>
struct Picked {
  static constexpr unsigned value = 0u;
};
template <class W>
struct Picked<W, decltype(void(W::kPicked))> {
  static constexpr unsigned value = W::kPicked;
};

// What the library reads of a workload W.
template <class W>
struct Contract {
  static constexpr int kStages = W::kStages;
  static constexpr int kH = W::kStages;  // the pass index of h
  static constexpr int kNumInputs = static_cast<int>(sizeof(W::kInputs) / sizeof(Operand));
  static constexpr int kNumOutputs = static_cast<int>(sizeof(W::kOutputs) / sizeof(Operand));
  static constexpr int kNumKept = W::kNumKept;
  // The extent of arrays over the kept inputs: C++ device code has no zero-length arrays.
  static constexpr int kKeptExtent = kNumKept > 0 ? kNumKept : 1;
  static constexpr int kNumParams = NumParams<W>::value;

  CREDIT_HD static constexpr Kind inputKind(int i) { return W::kInputs[i].kind; }
  CREDIT_HD static constexpr bool isRowInput(int i) { return W::kInputs[i].kind == Kind::Row; }
  CREDIT_HD static constexpr bool isBroadcast(int i) { return W::kInputs[i].kind == Kind::Broadcast; }
  CREDIT_HD static constexpr bool isRowOutput(int j) { return W::kOutputs[j].kind == Kind::Row; }
  CREDIT_HD static constexpr bool reads(int p, int i) { return hasBit(W::kReads[p], i); }

  // Statistics.
  CREDIT_HD static constexpr int qOffset(int l) { return l == 0 ? 0 : qOffset(l - 1) + W::kQ[l - 1]; }
  CREDIT_HD static constexpr int qSum() { return qOffset(kStages); }
  CREDIT_HD static constexpr int qMax(int l = 0) {
    return l == kStages ? 0 : (W::kQ[l] > qMax(l + 1) ? W::kQ[l] : qMax(l + 1));
  }

  // The sums of the online statistic j of stage l opens (kReduce: SumExpMax).
  CREDIT_HD static constexpr int sumexpSums(int l, int j, int k = 1) {
    return j + k < W::kQ[l] && W::kReduce[qOffset(l) + j + k] == Reduce::SumExpSum ? sumexpSums(l, j, k + 1)
                                                                                    : k - 1;
  }

  // Whether stage p has sums that one column decides (W::pick).
  CREDIT_HD static constexpr bool picks(int p) { return p < kStages && ((Picked<W>::value >> p) & 1u) != 0u; }

  // Whether pass p is a stage with an online statistic (kReduce: SumExpMax).
  CREDIT_HD static constexpr bool hasSumExp(int p, int j = 0) {
    return p < kStages && j < W::kQ[p < kStages ? p : 0] &&
           (W::kReduce[qOffset(p) + j] == Reduce::SumExpMax || hasSumExp(p, j + 1));
  }

  // Whether pass p is a stage with moments (kReduce: MomentsCount).
  CREDIT_HD static constexpr bool hasMoments(int p, int j = 0) {
    return p < kStages && j < W::kQ[p < kStages ? p : 0] &&
           (W::kReduce[qOffset(p) + j] == Reduce::MomentsCount || hasMoments(p, j + 1));
  }

  // Inputs by the passes that read them.
  CREDIT_HD static constexpr unsigned stageReads(int l = 0) {
    return l == kStages ? 0u : (W::kReads[l] | stageReads(l + 1));
  }
  // Row and broadcast inputs that only h reads.
  CREDIT_HD static constexpr unsigned onlyH() { return W::kReads[kH] & ~stageReads(); }
  CREDIT_HD static constexpr int firstRead(int i, int p = 0) {
    return p > kH ? -1 : (reads(p, i) ? p : firstRead(i, p + 1));
  }
  // The position of input i in kKept (-1: not kept).
  CREDIT_HD static constexpr int keptPos(int i, int k = 0) {
    return k == kNumKept ? -1 : (W::kKept[k] == i ? k : keptPos(i, k + 1));
  }
  CREDIT_HD static constexpr bool anyKeptReadLate(int k = 0) {
    return k == kNumKept ? false : (firstRead(W::kKept[k]) > 0 || anyKeptReadLate(k + 1));
  }
  // Whether pass p is the first to read some kept input (it waits for their copies).
  // Some kept input is first read before pass p.
  CREDIT_HD static constexpr bool keptFirstReadBefore(int p, int k = 0) {
    return k == kNumKept ? false : (firstRead(W::kKept[k]) < p || keptFirstReadBefore(p, k + 1));
  }
  CREDIT_HD static constexpr bool firstReadsKept(int p, int k = 0) {
    return k == kNumKept ? false : (firstRead(W::kKept[k]) == p || firstReadsKept(p, k + 1));
  }
  CREDIT_HD static constexpr unsigned rowOutputs(int j = 0) {
    return j == kNumOutputs ? 0u : ((isRowOutput(j) ? 1u << j : 0u) | rowOutputs(j + 1));
  }

  // Kept inputs in SMEM: each in its storage type, in the array kSmemSlot names.
  CREDIT_HD static constexpr Elem keptElem(int k) { return W::kInputs[W::kKept[k]].elem; }
  CREDIT_HD static constexpr int keptBytes(int k) { return elemBytes(keptElem(k)); }
  // b_keep: the element bytes of every kept input.
  CREDIT_HD static constexpr int keepBytesPerElem(int k = 0) {
    return k == kNumKept ? 0 : keptBytes(k) + keepBytesPerElem(k + 1);
  }
  // The element bytes of the arrays before SMEM slot `slot`: the slot starts that many
  // bytes times the slice into the kept region (4-byte aligned at least: slices are
  // multiples of 4 elements).
  CREDIT_HD static constexpr int slotOffsetBytes(int slot, int k = 0) {
    return k == kNumKept ? 0 : (W::kSmemSlot[k] < slot ? keptBytes(k) : 0) + slotOffsetBytes(slot, k + 1);
  }
  // Every kept input is f32 (the bulk copies and the ring move whole 16-byte units).
  CREDIT_HD static constexpr bool keptAllF32(int k = 0) {
    return k == kNumKept || (keptElem(k) == Elem::F32 && keptAllF32(k + 1));
  }
  // The bytes of the narrowest kept element (4 without kept inputs).
  CREDIT_HD static constexpr int keptMaxBytes(int k = 0) {
    return k == kNumKept ? 1 : (keptBytes(k) > keptMaxBytes(k + 1) ? keptBytes(k) : keptMaxBytes(k + 1));
  }
  CREDIT_HD static constexpr int keptMinBytes(int k = 0) {
    return k == kNumKept ? 4 : (keptBytes(k) < keptMinBytes(k + 1) ? keptBytes(k) : keptMinBytes(k + 1));
  }
  // The bulk copies' mbarrier set of kept input k: its slot's byte offset / 4. Slots
  // are laid out largest element first, so the offsets pass through every multiple of
  // 4 below b_keep: numKeptArrays(geometry) sets, and the array starting a set (offset
  // a multiple of 4) leads it. Arrays narrower than 4 bytes share their set's barriers.
  CREDIT_HD static constexpr int loadSet(int k) { return slotOffsetBytes(W::kSmemSlot[k]) / 4; }
  CREDIT_HD static constexpr bool leadsLoadSet(int k) { return slotOffsetBytes(W::kSmemSlot[k]) % 4 == 0; }

  // The geometry of a form of `threads` per CTA keeping `keepBytes` bytes per element.
  CREDIT_HD static constexpr WorkloadGeometry geometry(int threads, int keepBytes = keepBytesPerElem()) {
    return WorkloadGeometry{keepBytes, kStages, qMax(), qSum(), threads, popcount(onlyH())};
  }
  CREDIT_HD static constexpr WorkloadGeometry narrowGeometry() { return geometry(W::kThreads); }
  CREDIT_HD static constexpr WorkloadGeometry wideGeometry() { return geometry(W::kWideThreads); }
  // The partial form keeps every kept input but kPartialDrop.
  CREDIT_HD static constexpr WorkloadGeometry partialGeometry() {
    return geometry(W::kThreads,
                    W::kPartialDrop >= 0 ? keepBytesPerElem() - keptBytes(W::kPartialDrop) : keepBytesPerElem());
  }

  // Consistency of the constants. T(x) is kept over f32 inputs only: rounded to 16
  // bits it would change the results.
  CREDIT_HD static constexpr bool keptValid(int k = 0) {
    return k == kNumKept ||
           (W::kKept[k] >= 0 && W::kKept[k] < kNumInputs && isRowInput(W::kKept[k]) &&
            W::kSmemSlot[k] >= 0 && W::kSmemSlot[k] < kNumKept &&
            (k == 0 || firstRead(W::kKept[k - 1]) <= firstRead(W::kKept[k])) &&
            (W::kMaterialize[k] < 0 || (W::kMaterialize[k] > firstRead(W::kKept[k]) && W::kMaterialize[k] < kH &&
                                        keptElem(k) == Elem::F32)) &&
            keptValid(k + 1));
  }
  CREDIT_HD static constexpr bool readsValid(int p = 0) {
    return p > kH || ((W::kReads[p] >> kNumInputs) == 0u && readsValid(p + 1));
  }
  CREDIT_HD static constexpr bool inputValid(Operand in) {
    return in.kind == Kind::PerRow
               ? in.elem == Elem::F32 || in.elem == Elem::I32 || in.elem == Elem::I64
               : in.elem == Elem::F32 || is16Bit(in.elem) || isByte(in.elem);
  }
  CREDIT_HD static constexpr bool inputsValid(int i = 0) {
    return i == kNumInputs || (inputValid(W::kInputs[i]) && inputsValid(i + 1));
  }
  CREDIT_HD static constexpr bool outputsValid(int j = 0) {
    return j == kNumOutputs ||
           (W::kOutputs[j].kind != Kind::Broadcast &&
            (W::kOutputs[j].elem == Elem::F32 || W::kOutputs[j].elem == Elem::I8 ||
             (is16Bit(W::kOutputs[j].elem) && W::kOutputs[j].kind == Kind::Row)) &&
            outputsValid(j + 1));
  }
  static_assert(kStages >= 1, "a workload has at least one stage");
  static_assert(kNumInputs >= 1 && kNumInputs <= 32, "1 to 32 inputs (read masks are 32-bit)");
  static_assert(kNumOutputs >= 1 && kNumOutputs <= 32, "1 to 32 outputs");
  static_assert(kNumParams >= 0 && kNumInputs + kNumOutputs + kNumParams <= 32, "at most 32 arguments");
  static_assert(kNumKept >= 0, "kNumKept: the kept inputs (0: a one-pass kernel, its reread forms only)");
  static_assert(readsValid(), "kReads names an input that does not exist");
  static_assert(inputsValid(), "inputs: f32, bf16, f16, i8, u8 or bool per element; per-row inputs f32, i32 or i64");
  static_assert(outputsValid(), "outputs: row or per-row; per-row outputs f32 or i8");
  static_assert(keptValid(), "kKept: row inputs in first-read order; kSmemSlot in range; "
                             "kMaterialize after the first read and before h, -1 over a kept input that is not f32");
  static_assert(W::kPartialDrop < kNumKept && (W::kPartialDrop < 0 || kNumKept >= 2),
                "the partial form drops one of two or more kept inputs");
  static_assert(W::kPartialDrop < 0 || W::kSmemSlot[W::kPartialDrop] == kNumKept - 1,
                "the partial form's dropped input has the last SMEM array");
  static_assert(W::kPartialDrop < 0 ||
                    W::kPartialDropReadLate == keptFirstReadBefore(firstRead(W::kKept[W::kPartialDrop])),
                "kPartialDropReadLate: whether another kept input is first read before the dropped one");
  static_assert((W::kHoisted & ~onlyH()) == 0u && (W::kPrefetchL2 & ~onlyH()) == 0u,
                "hoisted and L2-prefetched inputs are inputs only h reads");
  static_assert((Picked<W>::value >> kStages) == 0u, "kPicked names stages only");
  static_assert(W::kThreads % 32 == 0 && W::kWideThreads % 32 == 0, "whole warps");
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_WORKLOAD_CUH
