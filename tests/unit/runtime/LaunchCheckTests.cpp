// LaunchCheck.h: host-side launch validation and the VEC=4 choice.
#include "credit/runtime/LaunchCheck.h"
#include "credit/runtime/Layout.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

using namespace credit;

namespace {
alignas(16) float gX[64];
alignas(16) float gW[64];
alignas(16) float gY[64];

const DeviceLimits kH100{232448, 8, 132};

struct Req {
  const void* ptrs[3] = {gX, gW, gY};
  int elemBytes[3] = {4, 4, 4};
  LaunchRequest r{ptrs, elemBytes, 3, 2048, 65536, 8, true, 0, 0};
  Req() {
    const WorkloadGeometry g{4, 2, 1, 2, 256};
    r.smemBytes = static_cast<size_t>(smemBytes(g, r.N, r.P, Protocol::Sync));
    r.maxLegalN = maxLegalN(g, r.P, Protocol::Sync, kH100.smemOptinBytes);
  }
};
}  // namespace

TEST_CASE("validateLaunch: ok", "[launch]") {
  Req q;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Ok);
  CHECK(std::string(launchStatusString(LaunchStatus::Ok)) == "ok");
  // One-CTA staged variant at P = 1.
  q.r.P = 1;
  q.r.clusterKernel = false;
  q.r.N = 4096;
  q.r.smemBytes = 4096 * 4 + 96;  // S_sync at P = 1: 32 + 16 + 16 + loadBars 32
  q.r.maxLegalN = 0;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Ok);
}

TEST_CASE("validateLaunch: null and misaligned pointers", "[launch]") {
  Req q;
  q.ptrs[1] = nullptr;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::NullPointer);
  Req m;
  m.ptrs[2] = reinterpret_cast<const char*>(gY) + 2;
  CHECK(validateLaunch(m.r, kH100) == LaunchStatus::Misaligned);
  // A 1-byte operand (int8 output) may sit at any address.
  m.elemBytes[2] = 1;
  CHECK(validateLaunch(m.r, kH100) == LaunchStatus::Ok);
  // Null wins over misaligned.
  m.elemBytes[2] = 4;
  m.ptrs[0] = nullptr;
  CHECK(validateLaunch(m.r, kH100) == LaunchStatus::NullPointer);
}

TEST_CASE("validateLaunch: shape", "[launch]") {
  Req q;
  q.r.M = 0;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadShape);
  q.r.M = 2048;
  q.r.N = 0;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadShape);
  q.r.N = 1LL << 31;
  q.r.maxLegalN = 0;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadShape);
  q.r.N = 4096;
  q.r.M = (1LL << 31) / 8;  // grid M*P = 2^31 > INT32_MAX
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadShape);
}

TEST_CASE("validateLaunch: cluster size", "[launch]") {
  Req q;
  for (int p : {0, 3, 5, 6, 12, 32, -1}) {
    q.r.P = p;
    INFO("P = " << p);
    CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadClusterSize);
  }
  // P > 1 for the non-cluster (staged) variant.
  q.r.P = 2;
  q.r.clusterKernel = false;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::BadClusterSize);
  // P = 16 needs the non-portable opt-in: the device reports 8 here.
  Req c;
  c.r.P = 16;
  c.r.maxLegalN = 0;
  CHECK(validateLaunch(c.r, kH100) == LaunchStatus::ClusterTooLarge);
  CHECK(validateLaunch(c.r, DeviceLimits{232448, 16, 132}) == LaunchStatus::Ok);
  // No cluster support at all: P > 1 is too large, P = 1 fine.
  Req n;
  CHECK(validateLaunch(n.r, DeviceLimits{232448, 0, 132}) == LaunchStatus::ClusterTooLarge);
  n.r.P = 1;
  n.r.maxLegalN = 0;
  CHECK(validateLaunch(n.r, DeviceLimits{232448, 0, 132}) == LaunchStatus::Ok);
  CHECK(std::strlen(launchStatusString(LaunchStatus::ClusterTooLarge)) > 0);
}

TEST_CASE("validateLaunch: smem and Eq. (3)", "[launch]") {
  Req q;
  // Compiled for sm_90 (227 KB) but run on a 99 KB device (sm_120), at the sm_90 bound.
  const WorkloadGeometry g{4, 2, 1, 2, 256};
  q.r.N = q.r.maxLegalN;
  q.r.smemBytes = static_cast<size_t>(smemBytes(g, q.r.N, q.r.P, Protocol::Sync));
  CHECK(q.r.smemBytes > 101376);
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Ok);
  CHECK(validateLaunch(q.r, DeviceLimits{101376, 8, 170}) == LaunchStatus::SmemTooLarge);
  // N beyond the variant's Eq. (3) bound.
  q.r.N = q.r.maxLegalN + 4;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::NotLegal);
  q.r.N = q.r.maxLegalN;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Ok);
  CHECK(std::string(launchStatusString(LaunchStatus::NotLegal)).find("Eq. 3") != std::string::npos);
  CHECK(std::string(launchStatusString(LaunchStatus::SmemTooLarge)).find("shared") != std::string::npos);
}

TEST_CASE("canUseVec: VEC = 4", "[launch][vec]") {
  const void* ok[3] = {gX, gW, gY};
  CHECK(canUseVec(ok, nullptr, 3, 4096, 4));
  CHECK_FALSE(canUseVec(ok, nullptr, 3, 4098, 4));  // rows would start misaligned
  const void* off[3] = {gX, gW + 1, gY};  // 4-byte aligned only
  CHECK_FALSE(canUseVec(off, nullptr, 3, 4096, 4));
  CHECK(canUseVec(ok, nullptr, 0, 8, 4));
  // Per-pointer form: an int8 operand needs only 4-byte alignment for char4.
  alignas(16) static signed char q8[64];
  const void* mixed[2] = {gX, q8 + 4};
  const int eb[2] = {4, 1};
  CHECK(canUseVec(mixed, eb, 2, 4096, 4));
  CHECK_FALSE(canUseVec(mixed, nullptr, 2, 4096, 4));
  const void* mixedBad[2] = {gX, q8 + 2};
  CHECK_FALSE(canUseVec(mixedBad, eb, 2, 4096, 4));
}

TEST_CASE("16-bit operands: 2-byte alignment, VEC = 4 from 8-byte aligned rows", "[launch][vec]") {
  alignas(16) static unsigned short h16[64];
  // bf16 / f16: any even address launches; an odd one is refused.
  Req q;
  q.elemBytes[0] = 2;
  q.ptrs[0] = h16 + 1;  // 2-byte aligned only
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Ok);
  q.ptrs[0] = reinterpret_cast<const char*>(h16) + 1;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Misaligned);
  q.elemBytes[0] = 4;  // the same address as f32 is refused as well
  q.ptrs[0] = h16 + 1;
  CHECK(validateLaunch(q.r, kH100) == LaunchStatus::Misaligned);
  // Four 16-bit elements are one 8-byte access: rows 8-byte aligned suffice.
  const int eb[2] = {2, 4};
  const void* rows8[2] = {h16 + 4, gX};
  CHECK(canUseVec(rows8, eb, 2, 4096, 4));
  CHECK_FALSE(canUseVec(rows8, nullptr, 2, 4096, 4));  // as f32 it would need 16 bytes
  const void* rows4[2] = {h16 + 2, gX};                // 4-byte aligned only
  CHECK_FALSE(canUseVec(rows4, eb, 2, 4096, 4));
  const void* rows2[2] = {h16 + 1, gX};
  CHECK_FALSE(canUseVec(rows2, eb, 2, 4096, 4));
  CHECK_FALSE(canUseVec(rows8, eb, 2, 4094, 4));  // N % 4 != 0: later rows start misaligned
}

TEST_CASE("canUseVec: VEC = 8 (16-bit and byte operands) takes 16-byte runs", "[launch][vec]") {
  alignas(16) static unsigned short h16[64];
  alignas(16) static unsigned char b8[64];
  const int eb[2] = {2, 1};
  const void* ok[2] = {h16 + 8, b8 + 8};  // 16 bytes of bf16, 8 bytes of a mask
  CHECK(canUseVec(ok, eb, 2, 4096, 8));
  CHECK_FALSE(canUseVec(ok, eb, 2, 4092, 8));  // N % 8 != 0 (VEC = 4 would do)
  CHECK(canUseVec(ok, eb, 2, 4092, 4));
  const void* half16[2] = {h16 + 4, b8};  // the bf16 rows only 8-byte aligned
  CHECK_FALSE(canUseVec(half16, eb, 2, 4096, 8));
  CHECK(canUseVec(half16, eb, 2, 4096, 4));
  const void* mask4[2] = {h16, b8 + 4};  // the mask's runs of 8 bytes only 4-byte aligned
  CHECK_FALSE(canUseVec(mask4, eb, 2, 4096, 8));
  CHECK_FALSE(canUseVec(ok, eb, 2, 4096, 0));
}
