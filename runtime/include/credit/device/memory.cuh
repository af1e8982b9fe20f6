// credit/device/memory.cuh -- element types and the accesses of the element loops:
// VEC consecutive elements of global memory, of the kept slice in SMEM, or of
// registers, and the conversions.
//
// Every loaded element becomes a float where the workload reads it (its arithmetic
// is f32); an element type says how it is stored. VEC = 4 accesses are one 16-byte access for
// f32, one 8-byte access for bf16 and f16, one 4-byte access for the byte types:
// the launchers pick VEC = 4 only where every row start is aligned to four
// elements and N % 4 == 0, and slices start at multiples of 4 elements. Loads are
// exact (a bool is 0 or 1, a u8 / i8 its integer, a per-row i32 / i64 its nearest
// f32, exact up to 2^24); bf16 and f16 stores round to nearest even.
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
// Four 16-bit elements in two words (little-endian: element 0 in the low half of w0).
template <class T>
CREDIT_DEVICE void unpack4(float (&v)[4], unsigned w0, unsigned w1) {
  v[0] = Bits16<T>::to_f32(w0);
  v[1] = Bits16<T>::to_f32(w0 >> 16);
  v[2] = Bits16<T>::to_f32(w1);
  v[3] = Bits16<T>::to_f32(w1 >> 16);
}
template <class T>
CREDIT_DEVICE uint2 pack4(const float (&v)[4]) {
  return make_uint2(Bits16<T>::from_f32(v[0]) | Bits16<T>::from_f32(v[1]) << 16,
                    Bits16<T>::from_f32(v[2]) | Bits16<T>::from_f32(v[3]) << 16);
}
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
// Four byte elements in one word (little-endian: element 0 in the low byte).
template <class T>
CREDIT_DEVICE void unpack4_bytes(float (&v)[4], unsigned w) {
#pragma unroll
  for (int k = 0; k < 4; ++k) v[k] = Byte<T>::to_f32(w >> (8 * k));
}
// 16 bytes where `pred` holds, else zeros: one predicated ld.global.nc.v4 (no
// branch), so that a run of them stays a run of loads in flight together.
CREDIT_DEVICE void ld_global_if(float (&v)[4], const float* p, bool pred) {
  asm("{\n\t.reg .pred q;\n\t"
      "setp.ne.b32 q, %5, 0;\n\t"
      "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\tmov.b32 %2, 0;\n\tmov.b32 %3, 0;\n\t"
      "@q ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n\t}"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
      : "l"(p), "r"(static_cast<int>(pred)));
}
// Four 16-bit elements (8 bytes) where `pred` holds, else zeros: one predicated
// ld.global.nc.v2.b32, likewise.
template <class T>
CREDIT_DEVICE void ld_global_if16(float (&v)[4], const T* p, bool pred) {
  unsigned w0, w1;
  asm("{\n\t.reg .pred q;\n\t"
      "setp.ne.b32 q, %3, 0;\n\t"
      "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\t"
      "@q ld.global.nc.v2.b32 {%0, %1}, [%2];\n\t}"
      : "=r"(w0), "=r"(w1)
      : "l"(p), "r"(static_cast<int>(pred)));
  unpack4<T>(v, w0, w1);
}
CREDIT_DEVICE void ld_global_if(float (&v)[4], const __nv_bfloat16* p, bool pred) { ld_global_if16(v, p, pred); }
CREDIT_DEVICE void ld_global_if(float (&v)[4], const __half* p, bool pred) { ld_global_if16(v, p, pred); }
// Four byte elements (4 bytes) where `pred` holds, else zeros (false): one
// predicated ld.global.nc.b32, likewise.
template <class T>
CREDIT_DEVICE void ld_global_if_bytes(float (&v)[4], const T* p, bool pred) {
  unsigned w;
  asm("{\n\t.reg .pred q;\n\t"
      "setp.ne.b32 q, %2, 0;\n\t"
      "mov.b32 %0, 0;\n\t"
      "@q ld.global.nc.b32 %0, [%1];\n\t}"
      : "=r"(w)
      : "l"(p), "r"(static_cast<int>(pred)));
  unpack4_bytes<T>(v, w);
}
CREDIT_DEVICE void ld_global_if(float (&v)[4], const int8_t* p, bool pred) { ld_global_if_bytes(v, p, pred); }
CREDIT_DEVICE void ld_global_if(float (&v)[4], const uint8_t* p, bool pred) { ld_global_if_bytes(v, p, pred); }
CREDIT_DEVICE void ld_global_if(float (&v)[4], const bool* p, bool pred) { ld_global_if_bytes(v, p, pred); }

template <int VEC>
CREDIT_DEVICE void st_global(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    __stwb(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
  } else {
    __stwb(p, v[0]);
  }
}
// bf16 and f16: rounded to nearest even; one 8-byte store for VEC = 4.
template <int VEC, class T>
CREDIT_DEVICE void st_global16(T* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    __stwb(reinterpret_cast<uint2*>(p), pack4<T>(v));
  } else {
    __stwb(reinterpret_cast<unsigned short*>(p), static_cast<unsigned short>(Bits16<T>::from_f32(v[0])));
  }
}
template <int VEC>
CREDIT_DEVICE void st_global(__nv_bfloat16* p, const float (&v)[VEC]) {
  st_global16(p, v);
}
template <int VEC>
CREDIT_DEVICE void st_global(__half* p, const float (&v)[VEC]) {
  st_global16(p, v);
}
template <int VEC>
CREDIT_DEVICE void st_global(int8_t* p, const int8_t (&v)[VEC]) {
  if constexpr (VEC == 4) {  // one 4-byte store, little-endian
    const unsigned packed = static_cast<unsigned>(static_cast<unsigned char>(v[0])) |
                            static_cast<unsigned>(static_cast<unsigned char>(v[1])) << 8 |
                            static_cast<unsigned>(static_cast<unsigned char>(v[2])) << 16 |
                            static_cast<unsigned>(static_cast<unsigned char>(v[3])) << 24;
    __stwb(reinterpret_cast<unsigned*>(p), packed);
  } else {
    *p = v[0];
  }
}

// ---------------------------------------------------------------------------
// Raw words: the element loops' batches hold what a load returns, undecoded, and
// decode an element where the workload reads it. A batch in flight then costs its
// bytes in registers whatever the type (a 16-bit load of four elements two words,
// not four floats), and a deposit stores the loaded words back unchanged. VEC = 4:
// f32 words 0-3, 16-bit words 0-1 (element 0 in the low half), bytes word 0
// (element 0 in the low byte); VEC = 1: word 0. The other words stay unused.
// ---------------------------------------------------------------------------
template <class T>
CREDIT_HD constexpr int words4() {
  return sizeof(T) == 4 ? 4 : sizeof(T) == 2 ? 2 : 1;  // words of four elements
}
template <class T, int VEC>
CREDIT_DEVICE float decode(const unsigned (&w)[VEC], int vi) {
  if constexpr (sizeof(T) == 4) {
    return __uint_as_float(w[VEC == 4 ? vi : 0]);
  } else if constexpr (sizeof(T) == 2) {
    return VEC == 4 ? Bits16<T>::to_f32(w[vi / 2] >> (16 * (vi % 2))) : Bits16<T>::to_f32(w[0]);
  } else {
    return VEC == 4 ? Byte<T>::to_f32(w[0] >> (8 * vi)) : Byte<T>::to_f32(w[0]);
  }
}
template <class T, int VEC>
CREDIT_DEVICE void decode_all(float (&v)[VEC], const unsigned (&w)[VEC]) {
#pragma unroll
  for (int vi = 0; vi < VEC; ++vi) v[vi] = decode<T>(w, vi);
}
// Global memory goes through __ldg (and st_global through __stwb) so that the access
// width is exactly the one written here: one 16-, 8- or 4-byte access for VEC = 4.
template <int VEC, class T>
CREDIT_DEVICE void ld_global_words(unsigned (&w)[VEC], const T* p) {
  if constexpr (VEC == 4 && sizeof(T) == 4) {
    const uint4 t = __ldg(reinterpret_cast<const uint4*>(p));
    w[0] = t.x;
    w[1] = t.y;
    w[2] = t.z;
    w[3] = t.w;
  } else if constexpr (VEC == 4 && sizeof(T) == 2) {
    const uint2 t = __ldg(reinterpret_cast<const uint2*>(p));
    w[0] = t.x;
    w[1] = t.y;
  } else if constexpr (sizeof(T) == 4 || VEC == 4) {  // one f32, or four bytes
    w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
  } else if constexpr (sizeof(T) == 2) {
    w[0] = __ldg(reinterpret_cast<const unsigned short*>(p));
  } else {
    w[0] = __ldg(reinterpret_cast<const unsigned char*>(p));
  }
}
// The kept slice in this CTA's SMEM, in its storage type. kAlign is the alignment
// (bytes) of the slice's start: 16 where the bytes of the arrays before it are a
// multiple of 4 per element, 8 after an odd number of 16-bit arrays, 4 after a
// byte array (slices are multiples of 4 elements). VEC = 4 accesses are as wide as
// that allows: f32 one v4 access, two v2 or four scalar ones; bf16 and f16 one
// 8-byte access or two 4-byte ones; bytes one 4-byte access. VEC = 1: one element.
template <int VEC, int kAlign, class T>
CREDIT_DEVICE void ld_smem_words(unsigned (&w)[VEC], const T* p) {
  if constexpr (VEC == 4 && sizeof(T) == 4 && kAlign >= 16) {
    const uint4 t = *reinterpret_cast<const uint4*>(p);
    w[0] = t.x;
    w[1] = t.y;
    w[2] = t.z;
    w[3] = t.w;
  } else if constexpr (VEC == 4 && ((sizeof(T) == 4 && kAlign == 8) || (sizeof(T) == 2 && kAlign >= 8))) {
#pragma unroll
    for (int h = 0; h < words4<T>() / 2; ++h) {
      const uint2 t = reinterpret_cast<const uint2*>(p)[h];
      w[2 * h] = t.x;
      w[2 * h + 1] = t.y;
    }
  } else if constexpr (VEC == 4) {
#pragma unroll
    for (int k = 0; k < words4<T>(); ++k) w[k] = reinterpret_cast<const unsigned*>(p)[k];
  } else if constexpr (sizeof(T) == 4) {
    w[0] = *reinterpret_cast<const unsigned*>(p);
  } else if constexpr (sizeof(T) == 2) {
    w[0] = *reinterpret_cast<const unsigned short*>(p);
  } else {
    w[0] = *reinterpret_cast<const unsigned char*>(p);
  }
}
template <int VEC, int kAlign, class T>
CREDIT_DEVICE void st_smem_words(T* p, const unsigned (&w)[VEC]) {
  if constexpr (VEC == 4 && sizeof(T) == 4 && kAlign >= 16) {
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if constexpr (VEC == 4 && ((sizeof(T) == 4 && kAlign == 8) || (sizeof(T) == 2 && kAlign >= 8))) {
#pragma unroll
    for (int h = 0; h < words4<T>() / 2; ++h) reinterpret_cast<uint2*>(p)[h] = make_uint2(w[2 * h], w[2 * h + 1]);
  } else if constexpr (VEC == 4) {
#pragma unroll
    for (int k = 0; k < words4<T>(); ++k) reinterpret_cast<unsigned*>(p)[k] = w[k];
  } else if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<unsigned*>(p) = w[0];
  } else if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(w[0]);
  } else {
    *reinterpret_cast<unsigned char*>(p) = static_cast<unsigned char>(w[0]);
  }
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
#pragma unroll
  for (int k = 0; k < VEC; ++k) w[k] = __float_as_uint(v[k]);
  st_smem_words<VEC, kAlign>(p, w);
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MEMORY_CUH
