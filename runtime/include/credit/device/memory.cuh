// credit/device/memory.cuh -- element types and the accesses of the element loops:
// VEC consecutive elements of global memory, of the kept slice in SMEM, or of
// registers, and the conversions.
//
// Every loaded element becomes a float (the workload's arithmetic is f32); an
// element type says how it is stored. VEC = 4 accesses are one 16-byte access for
// f32 (one 4-byte access for i8): the launchers pick VEC = 4 only where every row
// start is aligned and N % 4 == 0, and slices start at multiples of 4 elements.
#ifndef CREDIT_DEVICE_MEMORY_CUH
#define CREDIT_DEVICE_MEMORY_CUH

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

template <int VEC>
CREDIT_DEVICE void st_global(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    __stwb(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
  } else {
    __stwb(p, v[0]);
  }
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

// The kept slice in this CTA's SMEM (ld/st.shared.v4.f32 for VEC = 4).
template <int VEC>
CREDIT_DEVICE void ld_smem(float (&v)[VEC], const float* p) {
  if constexpr (VEC == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    v[0] = *p;
  }
}
template <int VEC>
CREDIT_DEVICE void st_smem(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    *p = v[0];
  }
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MEMORY_CUH
