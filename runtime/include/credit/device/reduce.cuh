// credit/device/reduce.cuh -- the reductions (+) of the statistics: identity,
// combine, and their warp and block reductions.
//
// Sum, Max and Min combine one value. An online statistic (the max of a pivot p
// and k sums of weighted exponentials relative to it, creditc's reduce_sumexp) is
// a group of 1 + k consecutive statistics, SumExpMax then k SumExpSum:
//   m = max p,   s_i = sum w_i * exp(p - m),
// combined as a whole: (m1, s1) (+) (m2, s2) = (M, s1 * c1 + s2 * c2), M = max(m1,
// m2), c = 1 for an operand whose m equals M, else exp(m - M). Its identity is
// (-inf, 0). After the last combine of a stage (finish_sumexp), a group whose m is
// +-inf gets NaN sums: that is the two-pass definition's value (exp(p - m) of an
// all -inf row, or of a +inf element, is NaN), which the running form would not
// reach by itself. A NaN pivot is ignored by the max and makes the sums NaN, as in
// the two-pass form.
//
// Moments (creditc's reduce_moments) are a group of 3 consecutive statistics,
// MomentsCount, MomentsSum, MomentsM2: the count, sum and centred sum of squares of
// the row's terms, combined as a whole; their arithmetic is moments.cuh's.
#ifndef CREDIT_DEVICE_REDUCE_CUH
#define CREDIT_DEVICE_REDUCE_CUH

#include "credit/device/math.cuh"
#include "credit/device/moments.cuh"
#include "credit/device/workload.cuh"

namespace credit {
namespace device {

template <Reduce K>
CREDIT_DEVICE float identity() {
  return K == Reduce::Sum || K == Reduce::SumExpSum || isMoments(K) ? 0.0f
         : K == Reduce::Max || K == Reduce::SumExpMax ? __int_as_float(0xff800000)  // -INFINITY
                                                      : __int_as_float(0x7f800000); // +INFINITY
}

// fmaxf / fminf are IEEE maxNum / minNum (a NaN operand loses).
template <Reduce K>
CREDIT_DEVICE float combine(float a, float b) {
  static_assert(!isSumExp(K) && !isMoments(K), "a group statistic combines as a whole (group_combine)");
  return K == Reduce::Sum ? a + b : K == Reduce::Max ? fmaxf(a, b) : fminf(a, b);
}

// ---------------------------------------------------------------------------
// The online statistic.
// ---------------------------------------------------------------------------
// The exponential of the element update: fast_exp under the workload's fast math. Its
// arguments telescope (m only grows), so a term's error is the two-pass form's plus
// that of one rounding per rescale.
template <bool kFast>
CREDIT_DEVICE float sumexp_exp(float d) {
  if constexpr (kFast) return fast_exp(d);
  else return expf(d);
}

// The elements of a batch into the group at acc[J] (m) and acc[J + 1 + i] (s_i): the
// batch's pivots first raise m to their max (sumexp_rebase, one exponential per group
// and batch, rescaling the sums), then each element adds w_i * exp(p - m) with m
// fixed (sumexp_add_rebased: one exponential per element, no compare or select).
// `base` is m, or 0 while m is -inf (every pivot so far -inf: their exp(p - 0) is 0,
// where p - m would be NaN). A NaN pivot is ignored by the max and makes the sums
// NaN; an infinite m makes them NaN in finish_sumexp, as above.
template <int J, int Q, int K>
CREDIT_DEVICE void sumexp_rebase(float (&acc)[Q], float (&base)[Q], float batch_max) {
  const float m = acc[J];
  if (batch_max > m) {
    const float c = expf(m - batch_max);  // 0 where m is -inf
#pragma unroll
    for (int i = 0; i < K; ++i) acc[J + 1 + i] *= c;
    acc[J] = batch_max;
  }
  base[J] = acc[J] == __int_as_float(0xff800000) ? 0.0f : acc[J];
}
template <int J, bool kFast, int Q, int... I>
CREDIT_DEVICE void sumexp_add_rebased(IntSeq<I...>, float (&acc)[Q], float base, float p,
                                      const float (&w)[sizeof...(I)]) {
  const float t = sumexp_exp<kFast>(p - base);
  ((acc[J + 1 + I] += w[I] * t), ...);  // contracted: a weight of 1 folds into exp's last multiply
}

// Group a = (m1, s1[]) (+) b = (m2, s2[]) into a. Commutative bit for bit: the max
// is canonical (+0 for a zero), and each sum is s1 * c1 + s2 * c2 rounded term by
// term (no contraction into an fma, which would depend on the operands' order). One
// exponential: the smaller m's factor.
template <int G>
CREDIT_DEVICE void sumexp_combine(float (&a)[G], const float (&b)[G]) {
  const float M = __fadd_rn(fmaxf(a[0], b[0]), 0.0f);
  const float lo = fminf(a[0], b[0]);
  const float e = lo == M ? 1.0f : expf(lo - M);
  const float c1 = a[0] == M ? 1.0f : e;
  const float c2 = b[0] == M ? 1.0f : e;
#pragma unroll
  for (int i = 1; i < G; ++i) a[i] = __fadd_rn(__fmul_rn(a[i], c1), __fmul_rn(b[i], c2));
  a[0] = M;
}

// A group statistic: the G consecutive partials that statistic kind Open opens
// (SumExpMax: the max and its sums; MomentsCount: count, sum, M2, moments.cuh),
// combined as a whole.
template <Reduce Open, int G>
CREDIT_DEVICE void group_combine(float (&a)[G], const float (&b)[G]) {
  static_assert(Open == Reduce::SumExpMax || (Open == Reduce::MomentsCount && G == 3), "a group statistic");
  if constexpr (Open == Reduce::SumExpMax) sumexp_combine(a, b);
  else moments::combine(a, b);
}

// What the library reads of a stage's kinds K...: the groups of the online statistics
// and of the moments.
template <Reduce... K>
struct Kinds {
  static constexpr int Q = static_cast<int>(sizeof...(K));
  static constexpr Reduce kind[] = {K...};
  // The sums of the group statistic j opens (kind[j] == SumExpMax).
  CREDIT_HD static constexpr int sums(int j, int k = 1) {
    return j + k < Q && kind[j + k] == Reduce::SumExpSum ? sums(j, k + 1) : k - 1;
  }
  // Whether statistic j opens a group statistic, and the group's partials (1: none).
  CREDIT_HD static constexpr bool opensGroup(int j) {
    return kind[j] == Reduce::SumExpMax || kind[j] == Reduce::MomentsCount;
  }
  CREDIT_HD static constexpr int groupSize(int j) {
    return kind[j] == Reduce::SumExpMax ? 1 + sums(j) : kind[j] == Reduce::MomentsCount ? 3 : 1;
  }
  // Whether statistic j goes with a group that an earlier statistic opens.
  CREDIT_HD static constexpr bool inGroup(int j) {
    return kind[j] == Reduce::SumExpSum || kind[j] == Reduce::MomentsSum || kind[j] == Reduce::MomentsM2;
  }
  // Whether the kinds are well formed: every SumExpSum follows its SumExpMax or another;
  // moments are MomentsCount, MomentsSum, MomentsM2 in this order.
  CREDIT_HD static constexpr bool valid(int j = 0) {
    return j == Q || ((kind[j] != Reduce::SumExpSum || (j > 0 && isSumExp(kind[j - 1]))) &&
                      (kind[j] != Reduce::SumExpMax || sums(j) >= 1) &&
                      (kind[j] != Reduce::MomentsCount ||
                       (j + 2 < Q && kind[j + 1] == Reduce::MomentsSum && kind[j + 2] == Reduce::MomentsM2)) &&
                      (kind[j] != Reduce::MomentsSum || (j > 0 && kind[j - 1] == Reduce::MomentsCount)) &&
                      (kind[j] != Reduce::MomentsM2 || (j > 0 && kind[j - 1] == Reduce::MomentsSum)) &&
                      valid(j + 1));
  }
  static_assert(valid(), "an online statistic: SumExpMax, then one or more SumExpSum; "
                         "moments: MomentsCount, MomentsSum, MomentsM2");
};

// The two-pass form's special values, after the stage's last combine: m = +-inf
// makes every sum of its group NaN.
template <int j, Reduce... K>
CREDIT_DEVICE void finish_sumexp_at(float (&r)[sizeof...(K)]) {
  using G = Kinds<K...>;
  if constexpr (G::kind[j] == Reduce::SumExpMax) {
    if (fabsf(r[j]) == __int_as_float(0x7f800000)) {
#pragma unroll
      for (int i = 1; i <= G::sums(j); ++i) r[j + i] = __int_as_float(0x7fffffff);
    }
  }
}
template <Reduce... K, int... J>
CREDIT_DEVICE void finish_sumexp(IntSeq<J...>, float (&r)[sizeof...(K)]) {
  (finish_sumexp_at<J, K...>(r), ...);
}

// Butterfly (xor) reduction over the full warp: every lane gets the result, and since
// a (+) b == b (+) a bit for bit, all 32 lanes hold the same bits. All 32 lanes call it.
template <Reduce K>
CREDIT_DEVICE float warp_reduce(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine<K>(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The same for the group statistic of G partials at acc[J] that kind Open opens.
template <Reduce Open, int J, int G, int Q>
CREDIT_DEVICE void warp_reduce_group(float (&acc)[Q]) {
  float a[G];
#pragma unroll
  for (int i = 0; i < G; ++i) a[i] = acc[J + i];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float b[G];
#pragma unroll
    for (int i = 0; i < G; ++i) b[i] = __shfl_xor_sync(0xffffffffu, a[i], o);
    group_combine<Open>(a, b);
  }
#pragma unroll
  for (int i = 0; i < G; ++i) acc[J + i] = a[i];
}

// The CTA's partials of one stage's statistics, one kind (+) each: every warp
// reduces its threads' partials, lane 0 writes them to warp_partials[warp][QMAX],
// warp 0 combines the WARPS warp partials into cta_partial[]. The first
// __syncthreads orders the warp partials before warp 0 reads them; the second
// orders cta_partial before anyone pushes or reads it, and frees warp_partials for
// the next stage. Every thread of the CTA calls it.
template <int WARPS, int QMAX, Reduce... K>
struct BlockReduce {
  using G = Kinds<K...>;
  static constexpr int Q = G::Q;

  // Statistic j over the warp: one kind, or the group statistic it opens (the rest of
  // the group goes with it).
  template <int j>
  CREDIT_DEVICE static void warp_step(float (&acc)[Q]) {
    if constexpr (G::opensGroup(j)) warp_reduce_group<G::kind[j], j, G::groupSize(j)>(acc);
    else if constexpr (!G::inGroup(j)) acc[j] = warp_reduce<G::kind[j]>(acc[j]);
  }
  // Warp 0: statistic j of the warp partials (identity beyond WARPS), then reduced.
  template <int j, int... I>
  CREDIT_DEVICE static void load_partials(IntSeq<I...>, float (&acc)[Q], const float* warp_partials, unsigned lane) {
    ((acc[j + I] = lane < WARPS ? warp_partials[lane * QMAX + j + I] : identity<G::kind[j + I]>()), ...);
  }
  template <int j>
  CREDIT_DEVICE static void partials_step(float (&acc)[Q], const float* warp_partials, unsigned lane) {
    if constexpr (!G::inGroup(j)) load_partials<j>(Indices<G::groupSize(j)>{}, acc, warp_partials, lane);
    if constexpr (G::opensGroup(j)) warp_reduce_group<G::kind[j], j, G::groupSize(j)>(acc);
    else if constexpr (!G::inGroup(j)) acc[j] = warp_reduce<G::kind[j]>(acc[j]);
  }

  template <int... J>
  CREDIT_DEVICE static void run(IntSeq<J...>, float (&acc)[Q], float* warp_partials, float* cta_partial,
                                unsigned warp, unsigned lane) {
    (warp_step<J>(acc), ...);
    if (lane == 0) {
      ((warp_partials[warp * QMAX + J] = acc[J]), ...);
    }
    __syncthreads();  // warp partials written before warp 0 reads them
    if (warp == 0) {
      (partials_step<J>(acc, warp_partials, lane), ...);
      if (lane == 0) {
        ((cta_partial[J] = acc[J]), ...);
      }
    }
    __syncthreads();  // the CTA partial written before it is pushed or read; warp partials free again
  }
  CREDIT_DEVICE static void run(float (&acc)[Q], float* warp_partials, float* cta_partial, unsigned warp,
                                unsigned lane) {
    run(Indices<Q>{}, acc, warp_partials, cta_partial, warp, lane);
  }
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_REDUCE_CUH
