// credit/device/memory.cuh -- element types and the accesses of the element loops:
// VEC consecutive elements of global memory, of the kept slice in SMEM, or of
// registers, and the conversions.
//
// Every loaded element becomes a float (the workload's arithmetic is f32); an
// element type says how it is stored. VEC = 4 accesses are one 16-byte access for
// f32, one 8-byte access for bf16 and f16, one 4-byte access for i8: the launchers
// pick VEC = 4 only where every row start is aligned to four elements and
// N % 4 == 0, and slices start at multiples of 4 elements. bf16 and f16 loads are
// exact; stores round to nearest even.
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

// Global memory goes through __ldg / __stwb so that the access width is exactly
// the one written here (ld.global.nc.v4.f32 / st.global.wb.v4.f32).
template <int VEC>
CREDIT_DEVICE void ld_global(float (&v)[VEC], const float* p) {
  if constexpr (VEC == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    v[0] = __ldg(p);
  }
}
template <int VEC>
CREDIT_DEVICE void ld_global(float (&v)[VEC], const int8_t* p) {
  if constexpr (VEC == 4) {
    const char4 t = __ldg(reinterpret_cast<const char4*>(p));
    v[0] = static_cast<float>(t.x);
    v[1] = static_cast<float>(t.y);
    v[2] = static_cast<float>(t.z);
    v[3] = static_cast<float>(t.w);
  } else {
    v[0] = static_cast<float>(__ldg(reinterpret_cast<const char*>(p)));
  }
}
template <int VEC, class T>
CREDIT_DEVICE void ld_global16(float (&v)[VEC], const T* p) {
  if constexpr (VEC == 4) {  // one 8-byte load
    const uint2 t = __ldg(reinterpret_cast<const uint2*>(p));
    unpack4<T>(v, t.x, t.y);
  } else {
    v[0] = Bits16<T>::to_f32(__ldg(reinterpret_cast<const unsigned short*>(p)));
  }
}
template <int VEC>
CREDIT_DEVICE void ld_global(float (&v)[VEC], const __nv_bfloat16* p) {
  ld_global16(v, p);
}
template <int VEC>
CREDIT_DEVICE void ld_global(float (&v)[VEC], const __half* p) {
  ld_global16(v, p);
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

// Registers to registers (the register forms' rows).
template <int VEC>
CREDIT_DEVICE void copy(float (&dst)[VEC], const float (&src)[VEC]) {
#pragma unroll
  for (int i = 0; i < VEC; ++i) dst[i] = src[i];
}

// The kept slice in this CTA's SMEM, in its storage type: f32 ld/st.shared.v4.f32
// for VEC = 4 where the slice is 16-byte aligned (kAligned16), else two v2 accesses
// (an f32 array after an odd number of 16-bit arrays starts 8-byte aligned); bf16
// and f16 one 8-byte access for VEC = 4, one 2-byte access for VEC = 1.
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void ld_smem(float (&v)[VEC], const float* p) {
  if constexpr (VEC == 4 && kAligned16) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else if constexpr (VEC == 4) {
    const float2 a = reinterpret_cast<const float2*>(p)[0], b = reinterpret_cast<const float2*>(p)[1];
    v[0] = a.x;
    v[1] = a.y;
    v[2] = b.x;
    v[3] = b.y;
  } else {
    v[0] = *p;
  }
}
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void st_smem(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4 && kAligned16) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (VEC == 4) {
    reinterpret_cast<float2*>(p)[0] = make_float2(v[0], v[1]);
    reinterpret_cast<float2*>(p)[1] = make_float2(v[2], v[3]);
  } else {
    *p = v[0];
  }
}
template <int VEC, class T>
CREDIT_DEVICE void ld_smem16(float (&v)[VEC], const T* p) {
  if constexpr (VEC == 4) {
    const uint2 t = *reinterpret_cast<const uint2*>(p);
    unpack4<T>(v, t.x, t.y);
  } else {
    v[0] = Bits16<T>::to_f32(*reinterpret_cast<const unsigned short*>(p));
  }
}
template <int VEC, class T>
CREDIT_DEVICE void st_smem16(T* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    *reinterpret_cast<uint2*>(p) = pack4<T>(v);
  } else {
    *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(Bits16<T>::from_f32(v[0]));
  }
}
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void ld_smem(float (&v)[VEC], const __nv_bfloat16* p) {
  ld_smem16<VEC>(v, p);
}
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void ld_smem(float (&v)[VEC], const __half* p) {
  ld_smem16<VEC>(v, p);
}
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void st_smem(__nv_bfloat16* p, const float (&v)[VEC]) {
  st_smem16<VEC>(p, v);
}
template <int VEC, bool kAligned16 = true>
CREDIT_DEVICE void st_smem(__half* p, const float (&v)[VEC]) {
  st_smem16<VEC>(p, v);
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MEMORY_CUH
