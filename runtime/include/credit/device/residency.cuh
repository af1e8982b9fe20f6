// credit/device/residency.cuh -- where each element of a pass comes from, and how a
// kept input gets where it lives between passes.
//
//   smem       the kept slice in SMEM, in the input's storage type. Vector forms
//              fill it with bulk copies issued at the row's start: every kept
//              input's slice in kLoadChunks chunks, one mbarrier per chunk and load
//              set, in first-read order; the first pass over an input waits for each
//              chunk before reading it, so it starts on the first chunk while the
//              others land. The whole slice is in flight at once and no register
//              holds it on the way. Scalar forms deposit what the first pass loaded
//              (the same thread reads those elements back later, and the passes are
//              separated by the block reductions' __syncthreads), and so do vector
//              launches whose narrower slices are not 16-byte aligned (bulk copies
//              move 16-byte units; RowKernel::bulk_ok).
//   registers  the slice in registers, RPT elements per thread in compile-time
//              sweeps. Vector forms load the whole slice at entry with predicated
//              loads, all in flight at once; scalar forms keep what the first pass
//              loads (fewer registers live at once).
//   partial    smem, but the dropped input is read from global memory (L2) by every
//              pass that reads it.
//   ring       the persistent form: the ring's units (ring.cuh), waited for piece by
//              piece at the piece's first sweep.
//   reread     every pass reads global memory.
// A kept input that the schedule materializes (f32 only) holds T(x) from the storing
// pass on, in SMEM or registers; elsewhere the later passes compute T again.
// Inputs only h reads: the staged vector register forms load them at entry where the
// data registers allow (credit::prefetchInputsOfH), the persistent form loads the
// hoisted broadcast ones once per CTA and asks L2 for the prefetched row ones.
#ifndef CREDIT_DEVICE_RESIDENCY_CUH
#define CREDIT_DEVICE_RESIDENCY_CUH

#include "credit/device/memory.cuh"
#include "credit/device/ptx.cuh"
#include "credit/device/workload.cuh"

namespace credit {
namespace device {
namespace residency {

// ---------------------------------------------------------------------------
// Per row and per CTA.
// ---------------------------------------------------------------------------
// The SMEM slot `bytes` bytes per slice element into the kept region (a multiple of
// 4: addressed in f32 words, as the f32 slots always were).
template <int bytes, class K>
CREDIT_DEVICE unsigned char* kept_slot(K& k) {
  if constexpr (bytes % 4 == 0)
    return reinterpret_cast<unsigned char*>(reinterpret_cast<float*>(k.smem + k.layout.keepOffset) +
                                            (bytes / 4) * k.slice);
  else
    return k.smem + k.layout.keepOffset + bytes * k.slice;
}
// The kept slices of this row: SMEM arrays (slot s at slotOffsetBytes(s) times the
// slice), or the ring units of the row's copies (first piece, second piece).
template <class K, int... KP>
CREDIT_DEVICE void set_kept_pointers(IntSeq<KP...>, K& k) {
  using C = Contract<typename K::W>;
  ((k.kept_smem[KP] = !K::keep(KP) ? nullptr
                      : K::kPersistent
                          ? k.smem + k.layout.keepOffset + k.cursor.unit(KP * K::PIECES, k.ring) * k.layout.keepBytes
                          : kept_slot<C::slotOffsetBytes(K::W::kSmemSlot[KP])>(k),
    k.kept_smem_p1[KP] = !K::keep(KP) || !K::kPersistent || K::PIECES < 2
                             ? k.kept_smem[KP]
                             : k.smem + k.layout.keepOffset +
                                   k.cursor.unit(KP * K::PIECES + 1, k.ring) * k.layout.keepBytes),
   ...);
}

// Kept input kp's element `e` of the SMEM slice at `at[kp]`, in its storage type.
template <class K, int kp>
using KeptStorage = typename Storage<Contract<typename K::W>::keptElem(kp)>::type;
template <int kp, class K>
CREDIT_DEVICE KeptStorage<K, kp>* kept_elem(unsigned char* const* at, unsigned e) {
  return reinterpret_cast<KeptStorage<K, kp>*>(at[kp]) + e;
}
// The alignment (bytes) of kept input kp's SMEM slice, for its vector accesses: the
// slot starts at (element bytes before it) x the slice, a multiple of kSliceGranule
// (8) elements, so 16 where those bytes are even (always with f32 kept inputs alone:
// the ring's workloads), else 8.
template <int kp, class K>
CREDIT_HD constexpr int kept_align() {
  static_assert(kSliceGranule == 8, "slots start at multiples of 8 elements");
  constexpr int b = Contract<typename K::W>::slotOffsetBytes(K::W::kSmemSlot[kp]);
  return b % 2 == 0 ? 16 : 8;
}

// Thread 0: the bulk copies of every kept slice of the row, chunk by chunk, in
// first-read order. Chunk c of a load set's arrays completes one mbarrier: its
// leading array expects the whole set's bytes before any of them is issued. An empty
// chunk completes its phase at once.
template <class K>
CREDIT_HD constexpr int load_set_bytes(int set, int kp = 0) {
  using C = Contract<typename K::W>;
  return kp == K::NK ? 0 : (K::bulk(kp) && C::loadSet(kp) == set ? C::keptBytes(kp) : 0) + load_set_bytes<K>(set, kp + 1);
}
template <int KP, class K>
CREDIT_DEVICE uint32_t load_bar(K& k, int c) {
  return ptx::smem_addr(k.load_bars + Int<Contract<typename K::W>::loadSet(KP)>::value * kLoadChunks + c);
}
template <int KP, class K>
CREDIT_DEVICE void expect_chunk_of(K& k, int c, unsigned elems) {
  if constexpr (K::bulk(KP) && Contract<typename K::W>::leadsLoadSet(KP))
    ptx::mbar_arrive_expect_tx(load_bar<KP>(k, c), elems * load_set_bytes<K>(Contract<typename K::W>::loadSet(KP)));
}
template <int KP, class K>
CREDIT_DEVICE void copy_chunk_of(K& k, int c, unsigned cbeg, unsigned cend) {
  if constexpr (K::bulk(KP)) {
    constexpr unsigned b = Contract<typename K::W>::keptBytes(KP);
    if (cend > cbeg)
      ptx::bulk_load(ptx::smem_addr(kept_elem<KP, K>(k.kept_smem, cbeg)), k.template in_ptr<K::W::kKept[KP]>() + cbeg,
                     (cend - cbeg) * b, load_bar<KP>(k, c));
  }
}
template <class K, int... KP>
CREDIT_DEVICE void issue_chunks(IntSeq<KP...>, K& k) {
  if (k.tid != 0 || !k.copies()) return;
  for (int c = 0; c < kLoadChunks; ++c) {
    const unsigned cbeg = c * k.chunk < k.len ? c * k.chunk : k.len;
    const unsigned cend = cbeg + k.chunk < k.len ? cbeg + k.chunk : k.len;
    (expect_chunk_of<KP>(k, c, cend - cbeg), ...);
    (copy_chunk_of<KP>(k, c, cbeg, cend), ...);
  }
}

// The register forms' loads at entry: predicated vector loads of this thread's
// elements at sweep `it`, batch position `u` (zeros past the slice, never read), so
// that a run of them stays in flight together.
template <int KP, class K>
CREDIT_DEVICE void prefetch_kept(K& k, int it, int u, unsigned off, bool in_slice) {
  ld_global_if(k.regs.kept[KP][it][u], k.template in_ptr<K::W::kKept[KP]>() + (in_slice ? off : 0u), in_slice);
}
template <int i, class K>
CREDIT_DEVICE void prefetch_only_h(K& k, int it, int u, unsigned off, bool in_slice) {
  if constexpr (K::prefetched(i))
    ld_global_if(k.regs.h[i][it][u], k.template in_ptr<i>() + (in_slice ? off : 0u), in_slice);
}
template <int i, class K>
CREDIT_DEVICE void hoist_one(K& k, int it, int u, unsigned off, bool in_slice) {
  if constexpr (hasBit(K::W::kHoisted, i))
    ld_global_if(k.regs.h[i][it][u], k.template in_ptr<i>() + (in_slice ? off : 0u), in_slice);
}
// Per row (vector register forms): every kept input's slice, then the inputs only h
// reads where the data registers allow.
template <class K, int... KP, int... I>
CREDIT_DEVICE void prefetch_registers(IntSeq<KP...>, IntSeq<I...>, K& k) {
#pragma unroll
  for (int it = 0; it < K::kRegIters; ++it) {
#pragma unroll
    for (int u = 0; u < K::kUnroll; ++u) {
      const unsigned off = K::VEC * k.tid + it * (K::kUnroll * K::VEC * K::kThreads) + u * K::VEC * K::kThreads;
      const bool in_slice = off < k.len;
      (prefetch_kept<KP>(k, it, u, off, in_slice), ...);
      (prefetch_only_h<I>(k, it, u, off, in_slice), ...);
    }
  }
}

// The persistent form, once per CTA: the hoisted broadcast inputs' slices.
template <class K, int... I>
CREDIT_DEVICE void hoist(IntSeq<I...>, K& k) {
#pragma unroll
  for (int it = 0; it < K::kRegIters; ++it) {
#pragma unroll
    for (int u = 0; u < K::kUnroll; ++u) {
      const unsigned off = K::VEC * k.tid + it * (K::kUnroll * K::VEC * K::kThreads) + u * K::VEC * K::kThreads;
      const bool in_slice = off < k.len;
      (hoist_one<I>(k, it, u, off, in_slice), ...);
    }
  }
}

// The persistent form, per row: L2 prefetches of the row inputs only h reads.
template <int i, class K>
CREDIT_DEVICE void prefetch_l2_one(K& k) {
  if constexpr (hasBit(K::W::kPrefetchL2, i)) {
    if constexpr (K::W::kInputs[i].elem == Elem::F32) {
      if (k.tid == 0 && k.len > 0) ptx::bulk_prefetch_l2(k.template in_ptr<i>(), k.len * 4);
    } else {
      // A 16-bit slice starts 8-byte aligned: its 16-byte units within the slice (the
      // prefetch takes whole units; a few edge bytes are not asked for).
      constexpr unsigned b = sizeof(typename Storage<K::W::kInputs[i].elem>::type);
      const unsigned long long lo = reinterpret_cast<unsigned long long>(k.template in_ptr<i>());
      const unsigned long long first = (lo + 15ull) & ~15ull, end = (lo + k.len * b) & ~15ull;
      if (k.tid == 0 && end > first)
        ptx::bulk_prefetch_l2(reinterpret_cast<const void*>(first), static_cast<uint32_t>(end - first));
    }
  }
}
template <class K, int... I>
CREDIT_DEVICE void prefetch_l2(IntSeq<I...>, K& k) {
  (prefetch_l2_one<I>(k), ...);
}

// ---------------------------------------------------------------------------
// Waiting for the copies of the kept inputs pass p reads first.
// ---------------------------------------------------------------------------
template <int p, int i, class K>
CREDIT_DEVICE void wait_chunk_of(K& k, int c) {
  constexpr int kp = Contract<typename K::W>::keptPos(i);
  if constexpr (kp >= 0 && Contract<typename K::W>::firstRead(i) == p && K::bulk(kp)) {
    if (k.copies()) ptx::mbar_wait(load_bar<kp>(k, c), 0u);
  }
}
template <int p, class K, int... I>
CREDIT_DEVICE void wait_chunk(IntSeq<I...>, K& k, int c) {
  (wait_chunk_of<p, I>(k, c), ...);
}
// The persistent form: a piece's copy is waited for at its first sweep.
template <int p, int i, class K>
CREDIT_DEVICE void wait_piece_of(K& k, int piece) {
  constexpr int kp = Contract<typename K::W>::keptPos(i);
  if constexpr (kp >= 0 && Contract<typename K::W>::firstRead(i) == p && K::bulk(kp))
    ptx::mbar_wait(ptx::smem_addr(k.load_bars + k.cursor.unit(kp * K::PIECES + piece, k.ring)),
                   k.cursor.parity(kp * K::PIECES + piece, k.ring));
}
template <int p, class K, int... I>
CREDIT_DEVICE void wait_pieces(IntSeq<I...>, K& k, int it) {
  if (it == 0) (wait_piece_of<p, I>(k, 0), ...);
  if (it == K::kPiece1Sweep) (wait_piece_of<p, I>(k, 1), ...);
}

// ---------------------------------------------------------------------------
// One batch position u of pass p: where input i's VEC elements come from.
// `at[kp]` is kept input kp's SMEM at the sweep's piece, `base` that piece's first
// element.
// ---------------------------------------------------------------------------
// Whether pass p reads input i's elements straight from registers: the register
// forms' kept slices, and inputs loaded at entry (hoisted: once per CTA).
template <class K>
CREDIT_HD constexpr bool in_kept_registers(int p, int i) {
  using C = Contract<typename K::W>;
  return C::keptPos(i) >= 0 && (C::firstRead(i) == p ? K::kRegPrefetch : K::kRegs);
}
template <class K>
CREDIT_HD constexpr bool in_h_registers(int i) {
  return Contract<typename K::W>::keptPos(i) < 0 &&
         (K::prefetched(i) || (K::kPersistent && hasBit(K::W::kHoisted, i)));
}

template <int p, int i, class K, class V>
CREDIT_DEVICE void load(const K& k, V& v, int u, unsigned off, unsigned char* const* at, unsigned base) {
  using C = Contract<typename K::W>;
  constexpr int kp = C::keptPos(i);
  if constexpr (!C::reads(p, i) || in_kept_registers<K>(p, i) || in_h_registers<K>(i)) {
    return;  // not read, or read from registers (Element::in)
  } else if constexpr (kp >= 0 && C::firstRead(i) == p) {  // a kept input's first read
    if constexpr (K::bulk(kp)) {
      if (k.copies()) ld_smem_words<K::VEC, 16>(v[i][u], kept_elem<kp, K>(at, off - base));  // landed, 16-byte aligned
      else ld_global_words(v[i][u], k.template in_ptr<i>() + off);
    } else {
      ld_global_words(v[i][u], k.template in_ptr<i>() + off);
    }
  } else if constexpr (kp >= 0) {  // a later read
    if constexpr (K::keep(kp)) ld_smem_words<K::VEC, kept_align<kp, K>()>(v[i][u], kept_elem<kp, K>(at, off - base));
    else ld_global_words(v[i][u], k.template in_ptr<i>() + off);  // reread, or the partial form's dropped input
  } else {
    ld_global_words(v[i][u], k.template in_ptr<i>() + off);  // streamed, or broadcast (from L2)
  }
}
template <int p, int i, bool kRowKind, class K, class V>
CREDIT_DEVICE void load_if(const K& k, V& v, int u, unsigned off, unsigned char* const* at, unsigned base) {
  if constexpr (Contract<typename K::W>::isRowInput(i) == kRowKind) load<p, i>(k, v, u, off, at, base);
}
template <int p, class K, class V, int... I>
CREDIT_DEVICE void load_all(IntSeq<I...>, const K& k, V& v, int u, unsigned off, unsigned char* const* at,
                            unsigned base) {
  (load_if<p, I, true>(k, v, u, off, at, base), ...);
  (load_if<p, I, false>(k, v, u, off, at, base), ...);
}

// After a kept input's first read: keep it where the form keeps it (scalar register
// forms, decoded; SMEM forms without bulk copies: the loaded words, unchanged).
template <int p, int i, class K, class V>
CREDIT_DEVICE void retain(K& k, const V& v, int it, int u, unsigned off, unsigned char* const* at, unsigned base) {
  using C = Contract<typename K::W>;
  constexpr int kp = C::keptPos(i);
  if constexpr (kp >= 0 && C::firstRead(i) == p) {
    if constexpr (K::kRegs && !K::kRegPrefetch) decode_all<KeptStorage<K, kp>>(k.regs.kept[kp][it][u], v[i][u]);
    if constexpr (K::keep(kp)) {
      if (!K::bulk(kp) || !k.copies())
        st_smem_words<K::VEC, kept_align<kp, K>()>(kept_elem<kp, K>(at, off - base), v[i][u]);
    }
  }
}
template <int p, class K, class V, int... I>
CREDIT_DEVICE void retain_all(IntSeq<I...>, K& k, const V& v, int it, int u, unsigned off, unsigned char* const* at,
                              unsigned base) {
  (retain<p, I>(k, v, it, u, off, at, base), ...);
}

// The materializing pass: T(x) over the kept copy (the same thread wrote and will
// read those elements).
template <int p, int KP, class K, class T>
CREDIT_DEVICE void materialize(K& k, const T& t, int it, int u, unsigned off, unsigned char* const* at,
                               unsigned base) {
  if constexpr (K::W::kMaterialize[KP] == p) {
    static_assert(Contract<typename K::W>::keptElem(KP) == Elem::F32, "T(x) is kept over f32 inputs only");
    if constexpr (K::keep(KP)) st_smem<K::VEC, kept_align<KP, K>()>(kept_elem<KP, K>(at, off - base), t[KP]);
    if constexpr (K::kRegs) copy(k.regs.kept[KP][it][u], t[KP]);
  }
}
template <int p, class K, class T, int... KP>
CREDIT_DEVICE void materialize_all(IntSeq<KP...>, K& k, const T& t, int it, int u, unsigned off,
                                   unsigned char* const* at, unsigned base) {
  (materialize<p, KP>(k, t, it, u, off, at, base), ...);
}

}  // namespace residency
}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_RESIDENCY_CUH
