// credit/device/memory.cuh -- element types and the accesses of the element loops:
// VEC consecutive elements of global memory, of the kept slice in SMEM, or of
// registers, and the conversions.
//
// Every loaded element becomes a float where the workload reads it (its arithmetic
// is f32); an element type says how it is stored. VEC consecutive elements move in
// accesses of min(16, VEC x element bytes) bytes: VEC = 4 is one 16-byte access for
// f32, one 8-byte access for bf16 and f16, one 4-byte access for the byte types;
// VEC = 8 (the kernels whose per-element operands are at most 2 bytes) is one
// 16-byte access for bf16 and f16, one 8-byte access for the byte types. The
// launchers pick a vector kernel only where every row start is aligned to VEC
// elements and N % VEC == 0, and slices start at multiples of kSliceGranule (8)
// elements. Loads are exact (a bool is 0 or 1, a u8 / i8 its integer, a per-row
// i32 / i64 its nearest f32, exact up to 2^24); bf16 and f16 stores round to
// nearest even.
#ifndef CREDIT_DEVICE_MEMORY_CUH
#define CREDIT_DEVICE_MEMORY_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "credit/device/workload.cuh"

namespace credit {
namespace device {

// The type an element of type E is stored as.
template <Elem E>
struct Storage;
template <>
struct Storage<Elem::F32> {
  using type = float;
};
template <>
struct Storage<Elem::I8> {
  using type = int8_t;
};
template <>
struct Storage<Elem::BF16> {
  using type = __nv_bfloat16;
};
template <>
struct Storage<Elem::F16> {
  using type = __half;
};
template <>
struct Storage<Elem::U8> {
  using type = uint8_t;
};
// A bool element is read as its byte (nonzero is true, as the language says): a
// bool object holding another value than 0 or 1 would be undefined in C++.
template <>
struct Storage<Elem::Bool> {
  using type = bool;
};
template <>
struct Storage<Elem::I32> {
  using type = int32_t;
};
template <>
struct Storage<Elem::I64> {
  using type = int64_t;
};

// 16-bit elements as bits: bf16 is the upper half of an f32, f16 converts exactly;
// to bits with round to nearest even.
template <class T>
struct Bits16;
template <>
struct Bits16<__nv_bfloat16> {
  CREDIT_DEVICE static float to_f32(unsigned b) { return __uint_as_float((b & 0xFFFFu) << 16); }
  CREDIT_DEVICE static unsigned from_f32(float a) { return __bfloat16_as_ushort(__float2bfloat16_rn(a)); }
};
template <>
struct Bits16<__half> {
  CREDIT_DEVICE static float to_f32(unsigned b) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(b & 0xFFFFu)));
  }
  CREDIT_DEVICE static unsigned from_f32(float a) { return __half_as_ushort(__float2half_rn(a)); }
};
// The language's i8(a): truncation toward zero, saturated to [-128, 127], NaN -> 0.
// fmaxf / fminf return the non-NaN operand, so the NaN test comes first.
CREDIT_DEVICE int8_t f32_to_i8(float a) {
  if (a != a) return 0;
  return static_cast<int8_t>(static_cast<int>(fminf(fmaxf(a, -128.0f), 127.0f)));
}

// Byte elements (i8, u8, bool) as values, from their bits.
template <class T>
struct Byte;
template <>
struct Byte<int8_t> {
  CREDIT_DEVICE static float to_f32(unsigned b) { return static_cast<float>(static_cast<int8_t>(b & 0xFFu)); }
};
template <>
struct Byte<uint8_t> {
  CREDIT_DEVICE static float to_f32(unsigned b) { return static_cast<float>(b & 0xFFu); }
};
template <>
struct Byte<bool> {
  CREDIT_DEVICE static float to_f32(unsigned b) { return (b & 0xFFu) != 0u ? 1.0f : 0.0f; }
};
// ---------------------------------------------------------------------------
// Raw words: the element loops' batches hold what a load returns, undecoded, and
// decode an element where the workload reads it. A batch in flight then costs its
// bytes in registers whatever the type (a 16-bit load of eight elements four words,
// not eight floats), and a deposit stores the loaded words back unchanged. Element
// vi of a run is word vi (f32), the vi % 2 half of word vi / 2 (16-bit) or the
// vi % 4 byte of word vi / 4 (bytes), little-endian; a run of VEC elements fills
// its first VEC x element bytes / 4 words (one word for runs shorter than that).
// ---------------------------------------------------------------------------
template <class T, int VEC>
CREDIT_HD constexpr int run_bytes() {
  return VEC * static_cast<int>(sizeof(T));
}
// The width of each access to a run: 16 bytes at most, no wider than the run or
// than the alignment `align` of its start.
template <class T, int VEC, int align>
CREDIT_HD constexpr int access_bytes() {
  constexpr int cap = align < 16 ? align : 16;
  return run_bytes<T, VEC>() < cap ? run_bytes<T, VEC>() : cap;
}
template <class T, int VEC>
CREDIT_DEVICE float decode(const unsigned (&w)[VEC], int vi) {
  if constexpr (sizeof(T) == 4) return __uint_as_float(w[vi]);
  else if constexpr (sizeof(T) == 2) return Bits16<T>::to_f32(w[vi / 2] >> (16 * (vi % 2)));
  else return Byte<T>::to_f32(w[vi / 4] >> (8 * (vi % 4)));
}
template <class T, int VEC>
CREDIT_DEVICE void decode_all(float (&v)[VEC], const unsigned (&w)[VEC]) {
#pragma unroll
  for (int vi = 0; vi < VEC; ++vi) v[vi] = decode<T>(w, vi);
}
// Floats to the words of a run of T (f32 bits; bf16 and f16 rounded to nearest even).
template <class T, int VEC>
CREDIT_DEVICE void encode_all(unsigned (&w)[VEC], const float (&v)[VEC]) {
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int vi = 0; vi < VEC; ++vi) w[vi] = __float_as_uint(v[vi]);
  } else {
    static_assert(sizeof(T) == 2, "floats are stored as f32, bf16 or f16");
#pragma unroll
    for (int k = 0; k < (VEC + 1) / 2; ++k)
      w[k] = Bits16<T>::from_f32(v[2 * k]) | (2 * k + 1 < VEC ? Bits16<T>::from_f32(v[2 * k + 1]) << 16 : 0u);
  }
}

namespace detail {
// One access of type V: global memory through __ldg / __stwb (so that its width is
// exactly V's; a byte store plainly: one width only, and no asm to order around it),
// SMEM plainly.
template <bool kGlobal, class V>
CREDIT_DEVICE V load(const V* p) {
  if constexpr (kGlobal) return __ldg(p);
  else return *p;
}
template <bool kGlobal, class V>
CREDIT_DEVICE void store(V* p, V v) {
  if constexpr (kGlobal && sizeof(V) > 1) __stwb(p, v);
  else *p = v;
}
// The access of B bytes at word k of a run (sub-word accesses: word 0).
template <int B, bool kGlobal>
CREDIT_DEVICE void ld_at(unsigned* w, const void* p, int k) {
  if constexpr (B == 16) {
    const uint4 t = load<kGlobal>(reinterpret_cast<const uint4*>(p) + k / 4);
    w[k] = t.x, w[k + 1] = t.y, w[k + 2] = t.z, w[k + 3] = t.w;
  } else if constexpr (B == 8) {
    const uint2 t = load<kGlobal>(reinterpret_cast<const uint2*>(p) + k / 2);
    w[k] = t.x, w[k + 1] = t.y;
  } else if constexpr (B == 4) {
    w[k] = load<kGlobal>(reinterpret_cast<const unsigned*>(p) + k);
  } else if constexpr (B == 2) {
    w[k] = load<kGlobal>(reinterpret_cast<const unsigned short*>(p));
  } else {
    w[k] = load<kGlobal>(reinterpret_cast<const unsigned char*>(p));
  }
}
template <int B, bool kGlobal>
CREDIT_DEVICE void st_at(void* p, const unsigned* w, int k) {
  if constexpr (B == 16) store<kGlobal>(reinterpret_cast<uint4*>(p) + k / 4, make_uint4(w[k], w[k + 1], w[k + 2], w[k + 3]));
  else if constexpr (B == 8) store<kGlobal>(reinterpret_cast<uint2*>(p) + k / 2, make_uint2(w[k], w[k + 1]));
  else if constexpr (B == 4) store<kGlobal>(reinterpret_cast<unsigned*>(p) + k, w[k]);
  else if constexpr (B == 2) store<kGlobal>(reinterpret_cast<unsigned short*>(p), static_cast<unsigned short>(w[k]));
  else store<kGlobal>(reinterpret_cast<unsigned char*>(p), static_cast<unsigned char>(w[k]));
}
// A run of VEC elements of T whose start is kAlign-aligned, in accesses as wide as
// the run and kAlign allow (access_bytes), B / 4 words apart.
template <bool kGlobal, int kAlign, int VEC, class T>
CREDIT_DEVICE void ld_run(unsigned (&w)[VEC], const T* p) {
  constexpr int B = access_bytes<T, VEC, kAlign>(), n = run_bytes<T, VEC>() / B;
#pragma unroll
  for (int a = 0; a < n; ++a) ld_at<B, kGlobal>(w, p, a * (B >= 4 ? B / 4 : 1));
}
template <bool kGlobal, int kAlign, int VEC, class T>
CREDIT_DEVICE void st_run(T* p, const unsigned (&w)[VEC]) {
  constexpr int B = access_bytes<T, VEC, kAlign>(), n = run_bytes<T, VEC>() / B;
#pragma unroll
  for (int a = 0; a < n; ++a) st_at<B, kGlobal>(p, w, a * (B >= 4 ? B / 4 : 1));
}
}  // namespace detail

// A run of VEC elements of global memory (16-byte aligned runs of at least 16 bytes:
// the launchers' alignment rule), as words.
template <int VEC, class T>
CREDIT_DEVICE void ld_global_words(unsigned (&w)[VEC], const T* p) {
  detail::ld_run<true, 16>(w, p);
}
template <int VEC, class T>
CREDIT_DEVICE void st_global_words(T* p, const unsigned (&w)[VEC]) {
  detail::st_run<true, 16>(p, w);
}
// The kept slice in this CTA's SMEM, in its storage type. kAlign is the alignment
// (bytes) of the slice's start (residency::kept_align): each run goes in accesses as
// wide as it and kAlign allow.
template <int VEC, int kAlign, class T>
CREDIT_DEVICE void ld_smem_words(unsigned (&w)[VEC], const T* p) {
  detail::ld_run<false, kAlign>(w, p);
}
template <int VEC, int kAlign, class T>
CREDIT_DEVICE void st_smem_words(T* p, const unsigned (&w)[VEC]) {
  detail::st_run<false, kAlign>(p, w);
}

// Up to 16 bytes (NW words) where `pred` holds, else zeros: one predicated
// ld.global.nc (no branch), so that a run of them stays a run of loads in flight
// together.
template <int NW>
CREDIT_DEVICE void ld_global_if_access(unsigned* w, const void* p, bool pred) {
  static_assert(NW == 1 || NW == 2 || NW == 4, "one 4-, 8- or 16-byte access");
  if constexpr (NW == 4) {
    asm("{\n\t.reg .pred q;\n\t"
        "setp.ne.b32 q, %5, 0;\n\t"
        "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\tmov.b32 %2, 0;\n\tmov.b32 %3, 0;\n\t"
        "@q ld.global.nc.v4.b32 {%0, %1, %2, %3}, [%4];\n\t}"
        : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
        : "l"(p), "r"(static_cast<int>(pred)));
  } else if constexpr (NW == 2) {
    asm("{\n\t.reg .pred q;\n\t"
        "setp.ne.b32 q, %3, 0;\n\t"
        "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\t"
        "@q ld.global.nc.v2.b32 {%0, %1}, [%2];\n\t}"
        : "=r"(w[0]), "=r"(w[1])
        : "l"(p), "r"(static_cast<int>(pred)));
  } else {
    asm("{\n\t.reg .pred q;\n\t"
        "setp.ne.b32 q, %2, 0;\n\t"
        "mov.b32 %0, 0;\n\t"
        "@q ld.global.nc.b32 %0, [%1];\n\t}"
        : "=r"(w[0])
        : "l"(p), "r"(static_cast<int>(pred)));
  }
}
// VEC elements (a vector run: at least 4 bytes) where `pred` holds, else zeros
// (false), as floats: the register forms' loads at entry.
template <int VEC, class T>
CREDIT_DEVICE void ld_global_if(float (&v)[VEC], const T* p, bool pred) {
  constexpr int B = access_bytes<T, VEC, 16>(), n = run_bytes<T, VEC>() / B;
  static_assert(B >= 4, "a vector run");
  unsigned w[VEC];
#pragma unroll
  for (int a = 0; a < n; ++a)
    ld_global_if_access<B / 4>(w + a * (B / 4), reinterpret_cast<const unsigned char*>(p) + a * B, pred);
  decode_all<T>(v, w);
}

// Row outputs: f32 as is, bf16 and f16 rounded to nearest even, i8 as its bytes.
template <int VEC>
CREDIT_DEVICE void st_global(float* p, const float (&v)[VEC]) {
  unsigned w[VEC];
  encode_all<float>(w, v);
  st_global_words(p, w);
}
template <int VEC>
CREDIT_DEVICE void st_global(__nv_bfloat16* p, const float (&v)[VEC]) {
  unsigned w[VEC];
  encode_all<__nv_bfloat16>(w, v);
  st_global_words(p, w);
}
template <int VEC>
CREDIT_DEVICE void st_global(__half* p, const float (&v)[VEC]) {
  unsigned w[VEC];
  encode_all<__half>(w, v);
  st_global_words(p, w);
}
template <int VEC>
CREDIT_DEVICE void st_global(int8_t* p, const int8_t (&v)[VEC]) {
  unsigned w[VEC] = {};
#pragma unroll
  for (int vi = 0; vi < VEC; ++vi) w[vi / 4] |= static_cast<unsigned>(static_cast<unsigned char>(v[vi])) << (8 * (vi % 4));
  st_global_words(p, w);
}

// VEC elements as floats.
template <int VEC, class T>
CREDIT_DEVICE void ld_global(float (&v)[VEC], const T* p) {
  unsigned w[VEC];
  ld_global_words(w, p);
  decode_all<T>(v, w);
}

// Registers to registers (the register forms' rows).
template <int VEC>
CREDIT_DEVICE void copy(float (&dst)[VEC], const float (&src)[VEC]) {
#pragma unroll
  for (int i = 0; i < VEC; ++i) dst[i] = src[i];
}

// Floats into an f32 slice (a materialized T(x)).
template <int VEC, int kAlign = 16>
CREDIT_DEVICE void st_smem(float* p, const float (&v)[VEC]) {
  unsigned w[VEC];
  encode_all<float>(w, v);
  st_smem_words<VEC, kAlign>(p, w);
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MEMORY_CUH
