// credit/runtime/SmemLayout.h -- the shared-memory layout of a CTA and Eq. 3.
//
// One definition for the compiler (legality, report), the host launchers and the
// device library. Constexpr and CREDIT_HD throughout; includes nothing and uses no
// std:: facility, so it compiles as C++17, under nvcc and under NVRTC.
// Units: "elems" are elements of the row, "words" 4-byte shared-memory words;
// byte counts are long long (N times bytes per element may exceed 2^31).
#ifndef CREDIT_RUNTIME_SMEM_LAYOUT_H
#define CREDIT_RUNTIME_SMEM_LAYOUT_H

#ifndef CREDIT_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD __host__ __device__
#else
#define CREDIT_HD
#endif
#endif

namespace credit {

CREDIT_HD constexpr long long gcd(long long a, long long b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}
CREDIT_HD constexpr long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }
CREDIT_HD constexpr long long roundUp(long long a, long long m) { return ceilDiv(a, m) * m; }
CREDIT_HD constexpr long long roundDown(long long a, long long m) { return (a / m) * m; }
CREDIT_HD constexpr long long maxLL(long long a, long long b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------
// Bank conflicts. 32 banks of 4 bytes: a warp reading runs `strideWords` apart
// with `accessWords`-wide accesses (1, 2 or 4 words) is served in at least
// max(1, gcd(S, 32) / w) wavefronts. S must be a whole number of words, S >= w.
// ---------------------------------------------------------------------------
CREDIT_HD constexpr int conflictDegree(long long strideWords, int accessWords) {
  const long long g = gcd(strideWords, 32);
  const long long w = accessWords < 1 ? 1 : accessWords;
  return g > w ? static_cast<int>(g / w) : 1;
}

// Word stride of runs of `elems` elements of `elemBytes` bytes (meaningful when
// elems * elemBytes is a multiple of 4).
CREDIT_HD constexpr long long strideWords(long long elems, int elemBytes) { return elems * elemBytes / 4; }

// The pad (in elements) of runs of `chunkElems`: 16 or 32 bytes, whichever gives
// the smaller gcd(S, 32); 16 on a tie. One reaches gcd 4 whenever chunk * E is a
// multiple of 16.
CREDIT_HD constexpr int pickPad(long long chunkElems, int elemBytes) {
  const int pad1 = 16 / elemBytes;
  const int pad2 = 32 / elemBytes;
  const long long g1 = gcd(strideWords(chunkElems + pad1, elemBytes), 32);
  const long long g2 = gcd(strideWords(chunkElems + pad2, elemBytes), 32);
  return g2 < g1 ? pad2 : pad1;
}
CREDIT_HD constexpr long long paddedStride(long long chunkElems, int elemBytes) {
  return chunkElems + pickPad(chunkElems, elemBytes);
}

// Words touched per access of `accessBytes` bytes (sub-word accesses count 1).
CREDIT_HD constexpr int accessWords(int accessBytes) { return accessBytes >= 4 ? accessBytes / 4 : 1; }

// Whether runs of `chunkElems` read `accessBytes` wide need a pad: false exactly when
// the unpadded stride is conflict-free, a whole number of words, and every run starts
// aligned to the access.
CREDIT_HD constexpr bool needsPad(long long chunkElems, int elemBytes, int accessBytes) {
  const long long runBytes = chunkElems * elemBytes;
  if (runBytes % 4 != 0) return true;
  if (runBytes % (accessBytes < 1 ? 1 : accessBytes) != 0) return true;
  return conflictDegree(runBytes / 4, accessWords(accessBytes)) != 1;
}

// The smallest pad (elements, >= 0) that makes runs conflict-free and aligned for
// one access width; -1 if none within 32 words.
CREDIT_HD constexpr int minPadForWidth(long long chunkElems, int elemBytes, int accessBytes) {
  const int limit = 32 * 4 / elemBytes + 1;
  for (int p = 0; p <= limit; ++p)
    if (!needsPad(chunkElems + p, elemBytes, accessBytes)) return p;
  return -1;
}

// ---------------------------------------------------------------------------
// Kernel geometry.
// ---------------------------------------------------------------------------
inline constexpr int kVecElems = 4;       // 16-byte float4 accesses (the persistent form's width)
// Slices start at multiples of 8 elements: every vector access stays aligned to its
// width (16 bytes: eight 16-bit elements, a float4).
inline constexpr int kSliceGranule = 8;
inline constexpr int kScratchAlign = 16;  // every scratch region starts 16-byte aligned
// The retained slices start 128-byte aligned (the scratch is padded up to it): bulk
// copies into a slice that is only 16-byte aligned run slower.
inline constexpr int kSliceAlign = 128;
inline constexpr int kWarpSize = 32;
inline constexpr int kMbarrierBytes = 8;

// Elements of the row owned by one CTA of a cluster of P: ceil(N / P) rounded up to
// kSliceGranule, so every slice starts aligned to the widest vector access. CTA c
// owns [c * slice, min((c + 1) * slice, N)); the last CTAs may own fewer or none.
CREDIT_HD constexpr long long sliceElems(long long N, int P) { return roundUp(ceilDiv(N, P), kSliceGranule); }

enum class Protocol : int { Sync = 0, Mbarrier = 1 };

// Passed by value everywhere: nvcc rejects binding a reference to a namespace-scope
// constexpr object in device code.
struct WorkloadGeometry {
  int keepBytesPerElem;  // b_keep: SMEM bytes retained per row element (all kept arrays)
  int numStages;         // L
  int qMax;              // max over stages of q_l
  int qSum;              // sum over stages of q_l
  int threads;           // threads per CTA (a multiple of 32)
  // Inputs only h reads (row inputs and broadcast vectors read by no stage): what
  // the register forms may load at entry besides the kept row. Not part of the SMEM
  // footprint.
  int hOnlyArrays = 0;
};

// CTAs of `smemBytes` dynamic SMEM that fit one SM's `smemPerSm` bytes (the driver
// reserves 1 KiB per CTA).
inline constexpr int kSmemReservedPerCta = 1024;
CREDIT_HD constexpr long long ctasPerSmBySmem(long long smemBytes, long long smemPerSm) {
  return smemPerSm / (smemBytes + kSmemReservedPerCta);
}

// The dynamic SMEM of a CTA, from offset 0, each scratch region rounded up to 16 B:
//   warpPartials  ceil(threads / 32) * qMax floats
//   ctaPartial    qMax floats
//   slots         sync: one [P][q_l] set (P * qMax floats), reused by every stage
//                 (the stage's second cluster barrier protects the reuse);
//                 mbarrier: one set per stage (P * qSum floats), never reused
//   mbarriers     mbarrier protocol: one per stage
//   loadBars      kLoadChunks mbarriers per kept array (the bulk copies' chunks)
//   (padding)     to kSliceAlign
//   kept arrays   one slice-long array per kept input
// The formula is the same at P = 1 (one CTA per row: the slot set and mbarriers are
// a few bytes), so one legality rule covers both and a cluster kernel launched with
// clusters of one is safe.
struct SmemLayout {
  long long warpPartialsOffset;
  long long ctaPartialOffset;
  long long slotsOffset;
  long long mbarOffset;     // == loadBarOffset for the sync protocol
  long long loadBarOffset;  // [kept array][kLoadChunks] mbarriers (the persistent form: one per ring unit)
  long long keepOffset;     // == scratch bytes; the kept arrays start here (kSliceAlign-aligned)
  long long keepBytes;      // sliceElems(N, P) * keepBytesPerElem (the persistent form: one ring unit)
  long long totalBytes;     // keepOffset + keepBytes
  long long claimsOffset;   // the persistent form's row-claim words; elsewhere == mbarOffset (none)
};

CREDIT_HD constexpr long long alignedRegion(long long bytes) { return roundUp(bytes, kScratchAlign); }

// Bulk-copy chunks per kept array (one mbarrier each), so the first pass starts on
// the first chunk while the others are in flight. numKeptArrays counts 4-byte
// arrays: exact where every kept input is f32; narrower arrays share one mbarrier
// set per 4 bytes of element (the device library's load sets).
inline constexpr int kLoadChunks = 4;
CREDIT_HD constexpr long long numKeptArrays(WorkloadGeometry g) { return ceilDiv(g.keepBytesPerElem, 4); }

// Elements per chunk of a slice of `len` elements: a quarter of it rounded up to
// whole vector sweeps of the CTA (vec * threads), so every thread has work in every
// chunk. Chunk c is [min(c * chunk, len), min((c + 1) * chunk, len)); trailing
// chunks may be empty.
CREDIT_HD constexpr long long loadChunkElems(long long len, int threads, int vec = kVecElems) {
  return roundUp(ceilDiv(len, kLoadChunks), (long long)vec * threads);
}

CREDIT_HD constexpr SmemLayout smemLayout(WorkloadGeometry g, long long N, int P, Protocol protocol) {
  SmemLayout l{0, 0, 0, 0, 0, 0, 0, 0, 0};
  const long long warps = ceilDiv(g.threads, kWarpSize);
  l.warpPartialsOffset = 0;
  l.ctaPartialOffset = l.warpPartialsOffset + alignedRegion(warps * g.qMax * 4LL);
  l.slotsOffset = l.ctaPartialOffset + alignedRegion(g.qMax * 4LL);
  const long long slotFloats = protocol == Protocol::Sync ? (long long)P * g.qMax : (long long)P * g.qSum;
  l.mbarOffset = l.slotsOffset + alignedRegion(slotFloats * 4LL);
  l.claimsOffset = l.mbarOffset;
  const long long mbarBytes = protocol == Protocol::Mbarrier ? (long long)g.numStages * kMbarrierBytes : 0;
  l.loadBarOffset = l.mbarOffset + alignedRegion(mbarBytes);
  l.keepOffset = roundUp(l.loadBarOffset + alignedRegion(numKeptArrays(g) * kLoadChunks * (long long)kMbarrierBytes),
                         (long long)kSliceAlign);
  l.keepBytes = sliceElems(N, P) * g.keepBytesPerElem;
  l.totalBytes = l.keepOffset + l.keepBytes;
  return l;
}

CREDIT_HD constexpr long long scratchBytes(WorkloadGeometry g, int P, Protocol protocol) {
  return smemLayout(g, 0, P, protocol).keepOffset;
}

// Eq. 3, left-hand side: sliceElems(N, P) * b_keep + S_scratch.
CREDIT_HD constexpr long long smemBytes(WorkloadGeometry g, long long N, int P, Protocol protocol) {
  return sliceElems(N, P) * g.keepBytesPerElem + scratchBytes(g, P, protocol);
}

CREDIT_HD constexpr bool isLegal(WorkloadGeometry g, long long N, int P, Protocol protocol, long long smemLimit) {
  return smemBytes(g, N, P, protocol) <= smemLimit;
}

// The largest row width: in-row offsets stay 32-bit.
inline constexpr long long kMaxRowElems = 2147483647LL;

// The largest N with smemBytes(g, N, P, protocol) <= smemLimit (Eq. 3), 0 if none.
// Slices are multiples of kSliceGranule, so the answer is a multiple of
// kSliceGranule * P. Without kept arrays: kMaxRowElems rounded down to such a multiple.
CREDIT_HD constexpr long long maxLegalN(WorkloadGeometry g, int P, Protocol protocol, long long smemLimit) {
  if (P < 1) return 0;
  const long long scratch = scratchBytes(g, P, protocol);
  if (scratch > smemLimit) return 0;
  const long long cap = roundDown(kMaxRowElems, (long long)kSliceGranule * P);
  if (g.keepBytesPerElem <= 0) return cap;
  const long long slice = roundDown((smemLimit - scratch) / g.keepBytesPerElem, kSliceGranule);
  const long long n = slice * P;
  return n < cap ? n : cap;
}

}  // namespace credit

#endif  // CREDIT_RUNTIME_SMEM_LAYOUT_H
