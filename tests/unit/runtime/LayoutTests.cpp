// Layout.h: the padding rule against tables of bank-conflict degrees (fp32, fp16), kernel geometry, SMEM
// layout and Eq. (3) legality, the target table.
#include "credit/runtime/Layout.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace credit;

// Usable in constant expressions (the compiler and generated code rely on it).
static_assert(pickPad(56, 2) == 16, "chunk 56 fp16 takes k = 2");
static_assert(conflictDegree(32, 1) == 32, "fp16 chunk 64, no pad");
static_assert(sliceElems(65536, 8) == 8192, "");
static_assert(findTarget("sm_90").smemOptinBytes == 232448, "");

TEST_CASE("conflictDegree: fp32 chunk=64 predicted-bound table", "[layout][pad]") {
  // Rows: gcd(S,32) = 1,2,4,8,16,32 (S = 64 + pad words at fp32 chunk 64, pad = g);
  // columns: predicted bound for 32 / 64 / 128-bit accesses (w = 1, 2, 4).
  struct Row { int g; int d1, d2, d4; };
  const Row rows[] = {{1, 1, 1, 1},   {2, 2, 1, 1},    {4, 4, 2, 1},
                      {8, 8, 4, 2},   {16, 16, 8, 4},  {32, 32, 16, 8}};
  for (const Row& r : rows) {
    const long long S = strideWords(64 + r.g, 4);
    INFO("g = " << r.g << ", S = " << S);
    REQUIRE(gcd(S, 32) == r.g);
    CHECK(conflictDegree(S, 1) == r.d1);
    CHECK(conflictDegree(S, 2) == r.d2);
    CHECK(conflictDegree(S, 4) == r.d4);
  }
}

TEST_CASE("minPadForWidth: fastest pad at fp32 chunk=64", "[layout][pad]") {
  // 32-bit: pad 1 (S = 65), 64-bit: pad 2 (S = 66), 128-bit: pad 4 (S = 68).
  CHECK(minPadForWidth(64, 4, 4) == 1);
  CHECK(minPadForWidth(64, 4, 8) == 2);
  CHECK(minPadForWidth(64, 4, 16) == 4);
  CHECK(strideWords(64 + 1, 4) == 65);
  CHECK(strideWords(64 + 2, 4) == 66);
  CHECK(strideWords(64 + 4, 4) == 68);
  // An odd pad is optimal for scalar reads and misaligns vector reads.
  CHECK_FALSE(needsPad(65, 4, 4));
  CHECK(needsPad(65, 4, 8));
  CHECK(needsPad(65, 4, 16));
  CHECK_FALSE(needsPad(66, 4, 8));
  CHECK_FALSE(needsPad(68, 4, 16));
  CHECK(needsPad(64, 4, 16));  // gcd 32 > 4
}

TEST_CASE("pickPad: fp16/bf16 chunk table", "[layout][pad]") {
  // chunk, S(k=1), gcd, S(k=2), gcd
  struct Row { int chunk; int s1, g1, s2, g2; int pick; };
  const Row rows[] = {
      {32, 20, 4, 24, 8, 8},    {56, 32, 32, 36, 4, 16}, {64, 36, 4, 40, 8, 8},
      {72, 40, 8, 44, 4, 16},   {128, 68, 4, 72, 8, 8},
  };
  for (const Row& r : rows) {
    INFO("chunk = " << r.chunk);
    const long long s1 = strideWords(r.chunk + 16 / 2, 2);
    const long long s2 = strideWords(r.chunk + 32 / 2, 2);
    CHECK(s1 == r.s1);
    CHECK(gcd(s1, 32) == r.g1);
    CHECK(s2 == r.s2);
    CHECK(gcd(s2, 32) == r.g2);
    CHECK(pickPad(r.chunk, 2) == r.pick);
    CHECK(paddedStride(r.chunk, 2) == r.chunk + r.pick);
  }
  // chunk 56: k = 1 (pad 8) lands on S = 32 words again; the rule takes k = 2.
  CHECK(pickPad(56, 2) == 16);
}

TEST_CASE("pickPad reaches gcd 4 whenever chunk*E is a multiple of 16", "[layout][pad]") {
  for (int e : {1, 2, 4}) {
    for (int chunk = 1; chunk <= 1024; ++chunk) {
      if ((chunk * e) % 16 != 0) continue;
      const int pad = pickPad(chunk, e);
      INFO("E = " << e << ", chunk = " << chunk << ", pad = " << pad);
      CHECK(gcd(strideWords(chunk + pad, e), 32) == 4);
      CHECK((pad * e) % 16 == 0);  // pads are whole multiples of 16 bytes
    }
  }
}

TEST_CASE("conflictDegree: measured sweep (fp16, w=1)", "[layout][pad]") {
  const int chunks[] = {16, 32, 64, 128};
  const int pads[] = {0, 2, 4, 8, 16};
  const int expected[4][5] = {
      {8, 1, 2, 4, 16},
      {16, 1, 2, 4, 8},
      {32, 1, 2, 4, 8},
      {32, 1, 2, 4, 8},
  };
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      INFO("chunk = " << chunks[i] << ", pad = " << pads[j]);
      CHECK(conflictDegree(strideWords(chunks[i] + pads[j], 2), 1) == expected[i][j]);
    }
  // needsPad agrees with the 1-way entries (2-byte scalar reads, w = 1).
  CHECK(needsPad(64, 2, 2));
  CHECK_FALSE(needsPad(66, 2, 2));
  CHECK(needsPad(68, 2, 2));
}

TEST_CASE("geometry helpers", "[layout][geometry]") {
  CHECK(ceilDiv(10, 4) == 3);
  CHECK(roundUp(10, 4) == 12);
  CHECK(roundUp(12, 4) == 12);
  CHECK(sliceElems(4096, 8) == 512);
  CHECK(sliceElems(10, 4) == 8);
  CHECK(sliceElems(1, 1) == 8);
  CHECK(sliceElems(4097, 8) == 520);
  CHECK(sliceElems(4128, 8) == 520);  // 516 is a multiple of 4, not of 8
  for (long long n : {1LL, 3LL, 4LL, 1000LL, 4097LL, 65536LL, 100003LL})
    for (int p : {1, 2, 4, 8, 16}) {
      const long long s = sliceElems(n, p);
      CHECK(s % kSliceGranule == 0);
      CHECK(s * p >= n);                      // slices cover the row
      CHECK((s - kSliceGranule) * p < n);     // and are the smallest such multiple of 8
    }
}

TEST_CASE("scratchBytes and smemLayout", "[layout][smem]") {
  // 256 threads = 8 warps; qMax = 2, qSum = 3, 2 stages, one fp32 array kept.
  const WorkloadGeometry g{4, 2, 2, 3, 256};
  // warp partials 8*2*4 = 64, CTA partial 8 -> 16, slots 8*2*4 = 64,
  // loadBars 4*8 per kept input = 32 (both protocols), then padding to the
  // 128-B aligned slice (kSliceAlign).
  CHECK(numKeptArrays(g) == 1);
  CHECK(kSliceAlign == 128);
  CHECK(smemLayout(g, 0, 8, Protocol::Sync).loadBarOffset + 32 == 64 + 16 + 64 + 32);
  CHECK(scratchBytes(g, 8, Protocol::Sync) == 256);  // 176 -> 256
  // Mbarrier: slots 8*3*4 = 96, mbarriers 2*8 = 16, loadBars 32.
  CHECK(smemLayout(g, 0, 8, Protocol::Mbarrier).loadBarOffset + 32 == 64 + 16 + 96 + 16 + 32);
  CHECK(scratchBytes(g, 8, Protocol::Mbarrier) == 256);  // 224 -> 256
  // P = 1 keeps the uniform formula: slots 2*4 = 8 -> 16.
  CHECK(smemLayout(g, 0, 1, Protocol::Sync).loadBarOffset + 32 == 64 + 16 + 16 + 32);
  CHECK(scratchBytes(g, 1, Protocol::Sync) == 128);  // 128
  CHECK(smemBytes(g, 65536, 8, Protocol::Sync) == 8192 * 4 + 256);

  for (Protocol proto : {Protocol::Sync, Protocol::Mbarrier})
    for (int p : {1, 2, 4, 8, 16}) {
      const SmemLayout l = smemLayout(g, 12345, p, proto);
      CHECK(l.warpPartialsOffset == 0);
      CHECK(l.ctaPartialOffset % 16 == 0);
      CHECK(l.slotsOffset % 16 == 0);
      CHECK(l.mbarOffset % 16 == 0);
      CHECK(l.loadBarOffset % 16 == 0);
      CHECK(l.keepOffset % kSliceAlign == 0);
      CHECK(l.ctaPartialOffset >= 8 * 2 * 4);
      CHECK(l.slotsOffset - l.ctaPartialOffset >= 2 * 4);
      const long long slotFloats = proto == Protocol::Sync ? p * 2 : p * 3;
      CHECK(l.mbarOffset - l.slotsOffset >= slotFloats * 4);
      // The mbarrier region (2 stages * 8 B = 16, Mbarrier only), then the
      // bulk loads' mbarriers: kLoadChunks per kept array.
      CHECK(l.loadBarOffset - l.mbarOffset == (proto == Protocol::Mbarrier ? 16 : 0));
      // The loadBars region, then at most kSliceAlign - 16 bytes of padding.
      CHECK(l.keepOffset ==
            roundUp(l.loadBarOffset + alignedRegion(numKeptArrays(g) * kLoadChunks * kMbarrierBytes),
                    kSliceAlign));
      CHECK(l.keepOffset - l.loadBarOffset >= 32);
      CHECK(l.keepOffset - l.loadBarOffset < 32 + kSliceAlign);
      CHECK(l.keepOffset == scratchBytes(g, p, proto));
      CHECK(l.keepBytes == sliceElems(12345, p) * 4);
      CHECK(l.totalBytes == smemBytes(g, 12345, p, proto));
    }

  // The loadBars region scales with the kept arrays: ceil(keep / 4) of them,
  // kLoadChunks = 4 mbarriers of 8 B each, rounded to 16 B; none when nothing is kept.
  struct KeepCase { int keep; long long arrays; long long bytes; };
  for (const KeepCase& c : {KeepCase{0, 0, 0}, KeepCase{1, 1, 32}, KeepCase{4, 1, 32},
                            KeepCase{8, 2, 64}, KeepCase{12, 3, 96}}) {
    const WorkloadGeometry gk{c.keep, 2, 2, 3, 256};
    INFO("keep " << c.keep);
    CHECK(numKeptArrays(gk) == c.arrays);
    for (Protocol proto : {Protocol::Sync, Protocol::Mbarrier}) {
      const SmemLayout l = smemLayout(gk, 4096, 4, proto);
      const SmemLayout l1 = smemLayout(g, 4096, 4, proto);
      CHECK(l.keepOffset == roundUp(l.loadBarOffset + c.bytes, kSliceAlign));
      CHECK(scratchBytes(gk, 4, proto) == roundUp(l1.loadBarOffset + c.bytes, kSliceAlign));
    }
  }
}

TEST_CASE("loadChunkElems: 4 bulk-load chunks of whole float4 sweeps", "[layout][bulk]") {
  // ceil(len / 4) rounded up to a multiple of 4 * threads elements.
  CHECK(loadChunkElems(2048, 256) == 1024);  // 512 -> 1024: chunks 0, 1 full, 2, 3 empty
  CHECK(loadChunkElems(8192, 256) == 2048);  // exactly a quarter
  CHECK(loadChunkElems(8196, 256) == 3072);  // 2049 -> 3072
  CHECK(loadChunkElems(1, 128) == 512);
  CHECK(loadChunkElems(0, 256) == 0);        // an empty slice: a zero chunk
  static_assert(loadChunkElems(4096, 1024) == 4096, "usable in constant expressions");

  for (int threads : {128, 256, 512, 1024})
    for (long long len : {0LL, 1LL, 4LL, 1000LL, 2048LL, 4096LL, 8192LL, 12345LL, 58088LL}) {
      const long long chunk = loadChunkElems(len, threads);
      const long long sweep = 4LL * threads;
      INFO("len " << len << " threads " << threads << " chunk " << chunk);
      CHECK(chunk % sweep == 0);                       // whole sweeps of float4 accesses
      CHECK(chunk * kLoadChunks >= len);               // 4 chunks cover the slice
      CHECK((chunk == 0 || (chunk - sweep) * kLoadChunks < len));  // the smallest such
      // Chunk c = [min(c*chunk, len), min((c+1)*chunk, len)): disjoint, in order,
      // covering [0, len) exactly; with len = 0 every chunk is empty.
      long long covered = 0;
      for (int c = 0; c < kLoadChunks; ++c) {
        const long long beg = c * chunk < len ? c * chunk : len;
        const long long end = beg + chunk < len ? beg + chunk : len;
        CHECK(beg == covered);
        CHECK(end >= beg);
        if (len == 0) CHECK(end == beg);
        covered = end;
      }
      CHECK(covered == len);
    }
}

TEST_CASE("maxLegalN is the exact Eq. (3) boundary", "[layout][legality]") {
  const WorkloadGeometry geoms[] = {
      {4, 2, 1, 2, 256},   // LayerNorm (x kept)
      {8, 2, 2, 3, 256},   // two kept fp32 arrays
      {1, 1, 1, 1, 128},   // int8 kept
      {12, 3, 4, 7, 512},
      {4, 1, 1, 1, 1024},
  };
  for (const WorkloadGeometry& g : geoms)
    for (int t = 0; t < kNumTargets; ++t)
      for (Protocol proto : {Protocol::Sync, Protocol::Mbarrier})
        for (int p : {1, 2, 4, 8, 16}) {
          const long long limit = targetAt(t).smemOptinBytes;
          const long long n = maxLegalN(g, p, proto, limit);
          INFO("keep " << g.keepBytesPerElem << " target " << targetAt(t).arch << " P " << p
                       << " proto " << static_cast<int>(proto) << " maxN " << n);
          REQUIRE(n > 0);
          CHECK(n % (8LL * p) == 0);
          CHECK(smemBytes(g, n, p, proto) <= limit);
          CHECK(isLegal(g, n, p, proto, limit));
          CHECK(smemBytes(g, n + 1, p, proto) > limit);
          CHECK(smemBytes(g, n + 8LL * p, p, proto) > limit);
        }
  // LayerNorm on sm_90: scratch 32 + 16 + 16 + loadBars 32 = 96 B at P = 1,
  // 32 + 16 + 32 + 32 = 112 B at P = 8 (loadBars 4*8 per kept input = 32 B),
  // both padded to the 128-B aligned slice: 128 B.
  const WorkloadGeometry ln{4, 2, 1, 2, 256};
  CHECK(maxLegalN(ln, 1, Protocol::Sync, 232448) == (232448 - 128) / 4);  // 58080
  CHECK(maxLegalN(ln, 1, Protocol::Sync, 232448) == 58080);
  CHECK(maxLegalN(ln, 8, Protocol::Sync, 232448) == 8LL * ((232448 - 128) / 4 / 8 * 8));
  CHECK(maxLegalN(ln, 8, Protocol::Sync, 232448) == 464640);
  // Nothing fits when the scratch alone exceeds the limit.
  CHECK(maxLegalN(ln, 8, Protocol::Sync, 64) == 0);
  // Nothing kept: bounded by 32-bit indexing only.
  const WorkloadGeometry none{0, 1, 1, 1, 256};
  CHECK(maxLegalN(none, 8, Protocol::Sync, 232448) == 2147483647LL / 64 * 64);
}

TEST_CASE("target table", "[layout][target]") {
  const TargetInfo h = findTarget("sm_90");
  REQUIRE(h.arch != nullptr);
  CHECK(h.smemOptinBytes == 232448);
  CHECK(h.maxPortableCluster == 8);
  CHECK(h.maxNonPortableCluster == 16);
  const TargetInfo b = findTarget("sm_100");
  REQUIRE(b.arch != nullptr);
  CHECK(b.smemOptinBytes == 232448);
  CHECK(b.maxPortableCluster == 8);
  CHECK(b.maxNonPortableCluster == 16);
  const TargetInfo g = findTarget("sm_120");
  REQUIRE(g.arch != nullptr);
  CHECK(g.smemOptinBytes == 101376);
  CHECK(g.maxPortableCluster == 8);
  CHECK(g.maxNonPortableCluster == 8);
  CHECK(findTarget("sm_90a").smemOptinBytes == 232448);
  CHECK(findTarget("compute_120").smemOptinBytes == 101376);
  CHECK(findTarget("sm_100f").maxNonPortableCluster == 16);
  // Before sm_90: no clusters (the reread and staged kernels only).
  CHECK(findTarget("sm_80").smemOptinBytes == 166912);
  CHECK(findTarget("sm_86").smemOptinBytes == 101376);
  CHECK(findTarget("sm_89").smemOptinBytes == 101376);
  for (const char* arch : {"sm_80", "sm_86", "sm_89"}) CHECK(!hasClusters(findTarget(arch)));
  for (const char* arch : {"sm_90", "sm_100", "sm_120"}) CHECK(hasClusters(findTarget(arch)));
  CHECK(findTarget("sm_70").arch == nullptr);
  CHECK_FALSE(isKnownTarget("sm_70"));
  CHECK_FALSE(isKnownTarget("sm_9"));
  CHECK_FALSE(isKnownTarget("sm_900"));
  CHECK_FALSE(isKnownTarget("sm_90x"));
  CHECK_FALSE(isKnownTarget(""));
  CHECK_FALSE(isKnownTarget(nullptr));
}

TEST_CASE("smemLayoutPersistent: doubled exchange scratch, one load mbarrier per unit, the ring of slices",
          "[layout][smem][persistent]") {
  // layernorm's twin: one kept f32 input, 2 stages of q = 1, 512 threads = 16 warps.
  const WorkloadGeometry g{4, 2, 1, 2, 512, 2};
  // warp partials 16*1*4 = 64, CTA partial 4 -> 16, slots 2*P*qSum*4 (P = 16: 256),
  // row claims (2 slots + a queue of 4) * 4 = 24 -> 32, exchange mbarriers 2*2*8 = 32,
  // load mbarriers 3 units * 8 = 24 -> 32, then the ring at the next 128-B boundary:
  // 64 + 16 + 256 + 32 + 32 + 32 = 432 -> 512.
  const SmemLayout l = smemLayoutPersistent(g, 262144, 16, 3);
  CHECK(l.warpPartialsOffset == 0);
  CHECK(l.ctaPartialOffset == 64);
  CHECK(l.slotsOffset == 80);
  CHECK(l.claimsOffset == 80 + 256);
  CHECK(l.mbarOffset == 80 + 256 + 32);
  CHECK(l.loadBarOffset == 80 + 256 + 32 + 32);
  CHECK(l.keepOffset == 512);
  CHECK(kRowClaimWords * 4 <= l.mbarOffset - l.claimsOffset);
  CHECK(l.claimsOffset % 4 == 0);  // st.async of 4 bytes
  CHECK(l.keepBytes == 16384 * 4);  // one unit: one slice
  CHECK(l.totalBytes == 512 + 3 * 16384 * 4);
  CHECK(persistentSmemBytes(g, 262144, 16, 3) == l.totalBytes);
  // Every unit starts 128-B aligned, also for slices that are not multiples of 32.
  for (int p : {1, 2, 4, 8, 16})
    for (int units : {2, 3, 5}) {
      const SmemLayout m = smemLayoutPersistent(g, 12340, p, units);
      CHECK(m.keepOffset % kSliceAlign == 0);
      CHECK(m.keepBytes % kSliceAlign == 0);
      CHECK(m.keepBytes >= sliceElems(12340, p) * 4);
      CHECK(m.keepBytes < sliceElems(12340, p) * 4 + kSliceAlign);
      CHECK(m.totalBytes == m.keepOffset + units * m.keepBytes);
      CHECK(m.keepOffset - m.loadBarOffset >= units * kMbarrierBytes);
      // The one-row layout's scratch regions, with room for two slot sets, the row
      // claims and 2L mbarriers (the one-row layout has no row claims).
      const SmemLayout one = smemLayout(g, 12340, p, Protocol::Mbarrier);
      CHECK(m.slotsOffset == one.slotsOffset);
      CHECK(one.claimsOffset == one.mbarOffset);
      CHECK(m.claimsOffset - m.slotsOffset == alignedRegion(2LL * p * g.qSum * 4));
      CHECK(m.mbarOffset - m.claimsOffset == alignedRegion(kRowClaimWords * 4LL));
      CHECK(m.loadBarOffset - m.mbarOffset == 2 * (one.loadBarOffset - one.mbarOffset));
    }
  // Two kept arrays: a unit is still one slice (of either array).
  const WorkloadGeometry g2{8, 3, 2, 4, 512, 1};
  CHECK(smemLayoutPersistent(g2, 65536, 8, 3).keepBytes == 8192 * 4);
  CHECK(smemLayoutPersistent(g2, 65536, 8, 3).totalBytes == smemLayoutPersistent(g2, 65536, 8, 3).keepOffset + 3 * 8192 * 4);
  // Two pieces: a unit is half a slice, rounded up to whole sweeps of the widest
  // batch (4 x float4 x 512 threads = 8192 elements), so every sweep lies in one piece.
  CHECK(persistentPieceElems(g2, 262144, 16, 1) == 16384);
  CHECK(persistentPieceElems(g2, 262144, 16, 2) == 8192);
  CHECK(persistentPieceElems(g2, 200000, 16, 2) == 8192);  // slice 12504: pieces of 8192 and 4312
  CHECK(persistentPieceElems(g2, 200000, 16, 1) == 12504);
  const SmemLayout halves = smemLayoutPersistent(g2, 262144, 16, 7, 2);
  CHECK(halves.keepBytes == 8192 * 4);
  CHECK(halves.totalBytes == halves.keepOffset + 7 * 8192 * 4);
  CHECK(halves.totalBytes <= 232448);  // the H200's opt-in: seven half slices fit
  CHECK(persistentSmemBytes(g2, 262144, 16, 7, 2) == halves.totalBytes);
  CHECK(smemLayoutPersistent(g2, 262144, 16, 3, 1).keepBytes == 16384 * 4);  // pieces = 1: the slice
}

TEST_CASE("persistentUnits and usePersistent: the rule of the generated cluster launcher",
          "[layout][persistent]") {
  const long long optin = 232448;  // H200
  const WorkloadGeometry twin{4, 2, 1, 2, 512, 2};  // layernorm's geometry_wide_cta
  // Slices of 16384 f32: three 64 KiB units fit 227 KiB (three rows ahead at most for one array).
  CHECK(persistentMinUnits(twin) == 2);
  CHECK(persistentUnits(twin, 262144, 16, optin) == 3);
  CHECK(persistentUnits(twin, 32768, 2, optin) == 3);
  CHECK(persistentRing(twin, 262144, 16, optin).pieces == 1);  // three rows of whole slices: no need to split
  CHECK(persistentUnits(twin, 32768, 2, 160 * 1024) == 2);  // a smaller SMEM: two units (four halves: a tie)
  CHECK(persistentRing(twin, 32768, 2, 160 * 1024).pieces == 1);
  // Two whole slices do not fit 100 KiB, three halves do: 1.5 rows, the next row's first half ahead.
  CHECK(persistentRing(twin, 32768, 2, 100 * 1024).units == 3);
  CHECK(persistentRing(twin, 32768, 2, 100 * 1024).pieces == 2);
  CHECK(persistentUnits(twin, 32768, 2, 60 * 1024) == 0);   // not even three halves
  CHECK(persistentUnits(twin, 8192, 2, optin) == 3);        // small slices: still at most three rows' worth
  // Two kept arrays (pearson_bwd's twin): the units need not be a multiple of two.
  const WorkloadGeometry two{8, 2, 3, 5, 512, 0};
  CHECK(persistentMinUnits(two) == 3);
  CHECK(persistentMinUnits(two, 2) == 5);
  // Slices of 16384: 3 x 64 KiB is 1.5 rows (the next row's first array ahead),
  // 7 x 32 KiB 1.75 rows (three of the next row's four pieces ahead).
  CHECK(persistentUnitsOfPieces(two, 262144, 16, 1, optin) == 3);
  CHECK(persistentUnitsOfPieces(two, 262144, 16, 2, optin) == 7);
  CHECK(persistentRing(two, 262144, 16, optin).units == 7);
  CHECK(persistentRing(two, 262144, 16, optin).pieces == 2);
  // Without halves (a kept input first read late: softmax_logits_bwd): whole slices.
  CHECK(persistentRing(two, 262144, 16, optin, false).units == 3);
  CHECK(persistentRing(two, 262144, 16, optin, false).pieces == 1);
  CHECK(persistentRing(twin, 32768, 2, 100 * 1024, false).units == 0);  // only halves fit there
  // ... so the form fits there only where halves are allowed, and the launcher's rule agrees.
  CHECK(persistentFits(twin, 256, 32768, 2, 100 * 1024));
  CHECK_FALSE(persistentFits(twin, 256, 32768, 2, 100 * 1024, false));
  CHECK(usePersistent(twin, 2, 256, 32768, 2, 233472, 100 * 1024));
  CHECK_FALSE(usePersistent(twin, 2, 256, 32768, 2, 233472, 100 * 1024, false));
  CHECK(persistentUnits(two, 262144, 16, 130 * 1024) == 0);  // one row only: nothing in flight
  CHECK(persistentUnits(two, 131072, 16, optin) == 6);       // 6 x 32 KiB: three rows
  CHECK(persistentRing(two, 131072, 16, optin).pieces == 1); // slice 8192: a second piece would be empty
  CHECK(persistentUnits(two, 131072, 16, 5 * 32768 + 1024) == 5);
  CHECK(persistentRing(two, 200000, 16, optin).pieces == 1); // slice 12500: 4 x 50000 B (2 rows) beat 7 halves (1.75)
  const long long perSm = 233472;  // H200
  for (const WorkloadGeometry& g : {twin, two})
    for (auto [N, P] : {std::pair{32768LL, 2}, {65536LL, 4}, {131072LL, 8}, {262144LL, 16}, {20000LL, 2}}) {
      INFO("kept arrays " << numKeptArrays(g) << " N " << N << " P " << P);
      // layernorm (hoisted gamma and beta) at any footprint; two kept inputs where
      // their 2 x 4 x slice bytes let one CTA per SM anyway (slices of 16384: 128 KiB).
      CHECK(usePersistent(g, numKeptArrays(g) == 1 ? 2 : 0, 256, N, P, perSm, optin) ==
            (numKeptArrays(g) == 1 || sliceElems(N, P) == 16384));
      // Whatever the rule picks fits.
      const PersistentRing ring = persistentRing(g, N, P, optin);
      CHECK(persistentSmemBytes(g, N, P, ring.units, ring.pieces) <= optin);
    }
  // One kept input, nothing to hoist (quant_int8): its one-row form fits three CTAs per SM.
  CHECK_FALSE(usePersistent(twin, 0, 256, 262144, 16, perSm, optin));
  CHECK(persistentFits(twin, 256, 262144, 16, optin));  // "cluster_persistent" still runs it there
  CHECK_FALSE(persistentFits(twin, 256, 16384, 2, optin));
  CHECK(ctasPerSmBySmem(smemBytes(twin, 262144, 16, Protocol::Mbarrier), perSm) == 3);
  // ... and on a device of one CTA per SM it would run: the condition is the footprint.
  CHECK(usePersistent(twin, 0, 256, 262144, 16, 100 * 1024, optin));
  CHECK_FALSE(usePersistent(twin, 0, 256, 262144, 16, 0, optin));  // SM size unknown: not without hoisting
  CHECK(usePersistent(two, 0, 256, 262144, 16, perSm, optin));
  CHECK_FALSE(usePersistent(twin, 2, 256, 16384, 2, perSm, optin));   // slice 8192: the 256-thread sweeps hold it
  CHECK_FALSE(usePersistent(twin, 2, 256, 65536, 8, perSm, optin));   // the same
  CHECK_FALSE(usePersistent(twin, 2, 256, 65536, 2, perSm, optin));   // slice 32768: beyond the twin's sweeps
  CHECK_FALSE(usePersistent(twin, 2, 256, 16384, 1, perSm, optin));   // no cluster (the staged launcher)
  CHECK_FALSE(usePersistent(twin, 2, 256, 65536, 4, perSm, 60 * 1024));  // the ring does not fit
  CHECK_FALSE(usePersistent(two, 0, 256, 65536, 4, perSm, 130 * 1024));   // the same, two arrays
  CHECK_FALSE(usePersistent(twin, 2, 512, 65536, 4, perSm, optin));   // a 512-thread file has no twin
  WorkloadGeometry nothingKept = twin;
  nothingKept.keepBytesPerElem = 0;
  CHECK_FALSE(usePersistent(nothingKept, 2, 256, 65536, 4, perSm, optin));
  CHECK(persistentUnits(nothingKept, 65536, 4, optin) == 0);
}

namespace {
/// The persistent form's ring protocol as the generated kernel runs it (one
/// CTA, `rows` rows, `arrays` kept inputs, `units` units), with the ring's
/// arithmetic from Layout.h. Returns "" when every invariant holds, else the
/// first violation: a copy issued into a unit another row still uses, a row
/// reading a slice that was not copied (not yet issued, or overwritten), or a
/// wait on a phase other than the one its copy completes.
std::string simulateRing(int arrays, int units, long long rows, int pieces = 1, bool midRelease = false) {
  const int copies = arrays * pieces;  // C
  std::vector<long long> owner(units, -1);  // the copy a unit holds (-1: free)
  std::vector<long long> fills(units, 0);   // completed phases of its mbarrier
  std::vector<unsigned> copyPhase;          // the phase each copy completes
  long long issued = 0;
  auto issue = [&](long long j) -> std::string {
    const int u = ringUnit(j, units);
    if (owner[u] >= 0) return "copy " + std::to_string(j) + " into unit " + std::to_string(u) + " in use";
    owner[u] = j;
    if (static_cast<long long>(copyPhase.size()) <= j) copyPhase.resize(j + 1);  // issued out of order (midRelease)
    copyPhase[j] = static_cast<unsigned>(fills[u]++ & 1);
    ++issued;
    return "";
  };
  // The kernel's ring_refill: after copies [first, first + C) are read, copy
  // j + units into the unit of each copy j of piece `freed` (-1: all).
  auto refill = [&](long long first, int freed) -> std::string {
    for (int q = 0; q < copies; ++q) {
      const long long j = first + units + q;
      if (ringRow(j, copies) >= rows) break;
      if (freed >= 0 && ringPiece(q, pieces) != freed) continue;
      if (std::string e = issue(j); !e.empty()) return e;
    }
    return "";
  };
  // Prologue: copies 0 .. units - 1 of rows that exist.
  for (long long j = 0; j < units && ringRow(j, copies) < rows; ++j)
    if (std::string e = issue(j); !e.empty()) return e;
  int u0 = 0;         // the kernel's ring_u0 and ring_lap, advanced per row
  unsigned lap = 0;
  for (long long k = 0; k < rows; ++k) {
    const long long first = k * copies;  // ring_copy
    for (int a = 0; a < arrays; ++a)     // every pass waits on and reads its inputs' pieces' units
      for (int c = 0; c < pieces; ++c) {
        const int q = a * pieces + c;  // the kernel's ringIndex * ring_pieces + piece
        const long long j = first + q;
        if (ringArray(j, arrays, pieces) != a || ringPiece(j, pieces) != c || ringRow(j, copies) != k)
          return "copy numbering";
        const int u = ringUnit(j, units);
        if (ringUnitAt(u0, q, units) != u || ringParityAt(lap, u0, q, units) != ringParity(j, units))
          return "row " + std::to_string(k) + ": the per-row unit or parity differs from the copy's";
        if (owner[u] != j) return "row " + std::to_string(k) + " reads unit " + std::to_string(u) + " without its copy";
        if (ringParity(j, units) != copyPhase[j]) return "row " + std::to_string(k) + " waits on the wrong phase";
      }
    ringAdvance(u0, lap, copies, units);
    const bool mid = midRelease && pieces > 1;
    if (mid) {  // h past the first pieces: their units take the next copies
      for (int q = 0; q < copies; ++q) owner[ringUnit(first + q, units)] = ringPiece(q, pieces) == 0 ? -1 : first + q;
      if (std::string e = refill(first, 0); !e.empty()) return e;
      for (int q = 0; q < copies; ++q)  // h's second half still reads the second pieces
        if (ringPiece(q, pieces) == 1 && owner[ringUnit(first + q, units)] != first + q)
          return "row " + std::to_string(k) + ": a second piece was overwritten before h read it";
    }
    for (int q = 0; q < copies; ++q)  // after h: the row's units are free
      if (!mid || ringPiece(q, pieces) == 1) owner[ringUnit(first + q, units)] = -1;
    if (std::string e = refill(first, mid ? 1 : -1); !e.empty()) return e;
  }
  if (issued != rows * copies) return "not every copy was issued";
  return "";
}
}  // namespace

TEST_CASE("The persistent ring protocol: every copy lands in a free unit before its row waits on it",
          "[layout][persistent]") {
  for (int pieces = 1; pieces <= kPersistentMaxPieces; ++pieces)
    for (int arrays = 1; arrays <= 4; ++arrays)
      for (int units = arrays * pieces; units <= kPersistentMaxRows * arrays * pieces; ++units)
        for (long long rows = 1; rows <= 13; ++rows) {
          INFO("arrays " << arrays << " pieces " << pieces << " units " << units << " rows " << rows);
          CHECK(simulateRing(arrays, units, rows, pieces) == "");
          CHECK(simulateRing(arrays, units, rows, pieces, /*midRelease=*/true) == "");
        }
  // The checker catches a ring too small for one row: the row's last copy is never issued.
  CHECK(simulateRing(2, 1, 3) != "");
  CHECK(simulateRing(3, 2, 1) != "");
  CHECK(simulateRing(2, 3, 2, 2) != "");  // four pieces a row, three units
  // persistentRing never returns fewer than C + 1 units (at least one copy ahead).
  const WorkloadGeometry two{8, 2, 3, 5, 512, 0};
  for (long long N : {20000LL, 32768LL, 131072LL, 200000LL, 262144LL})
    for (int P : {2, 4, 8, 16}) {
      const PersistentRing ring = persistentRing(two, N, P, 232448);
      CHECK((ring.units == 0 || ring.units >= persistentMinUnits(two, ring.pieces)));
    }
}

TEST_CASE("useRowClaims: clusters of up to 8", "[layout][persistent]") {
  for (int P : {2, 4, 8})
    CHECK(useRowClaims(P));
  CHECK_FALSE(useRowClaims(16));
}
