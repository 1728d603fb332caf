// Highway implementation of gatherStride2Row, compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_gather_stride2_rows.cpp"
#include "cpu/simd_gather_stride2_rows.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_bfloat16-inl.h"
#include "cpu/simd_lanes-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
#include "cpu/simd_widen_sixteen_bit-inl.h"
// clang-format on
#include "cpu/bfloat16_hardware_rounding.h"
#include "cpu/lambda_inline.h"
#include "cpu/simd_rows.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using FloatTag = hn::CappedTag<float, 16>;
using IndexTag = hn::RebindToSigned<FloatTag>;

int64_t GatherStride2LaneCount() { return static_cast<int64_t>(hn::Lanes(FloatTag())); }

// sum + (match ? gradient : +0). A sum that starts from +0 is never -0 (x + y is -0 only when both are),
// so keeping the sum where nothing matches is the same bits as adding +0; AVX-512 does it in one masked add.
HWY_INLINE hn::Vec<FloatTag> addMatched(hn::Vec<FloatTag> sum, hn::Mask<IndexTag> match, hn::Vec<FloatTag> gradient) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return hn::Vec<FloatTag>{_mm512_mask_add_ps(sum.raw, match.raw, sum.raw, gradient.raw)};
#else
    // The sum first (AddInOrder): with two NaNs the result carries the sum's payload, as in the scalar
    // kernels; a plain Add let the compiler swap the operands, and AVX2 hosts gave other NaN payloads.
    return AddInOrder(sum, hn::IfThenElseZero(hn::RebindMask(FloatTag(), match), gradient));
#endif
}

// count + (match ? 1 : 0) per lane.
HWY_INLINE hn::Vec<IndexTag> countMatches(hn::Vec<IndexTag> count, hn::Mask<IndexTag> match) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return hn::Vec<IndexTag>{_mm512_mask_sub_epi32(count.raw, match.raw, count.raw, _mm512_set1_epi32(-1))};
#else
    return hn::Sub(count, hn::VecFromMask(IndexTag(), match));
#endif
}

// 0, 2, 4, ...: the even columns of a block (from a table: Iota builds its vector through memory, and the
// load right after those stores would wait for them).
HWY_ALIGN constexpr int32_t kEvenColumns[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};

// Stores the first `count` (at most all) lanes of sums to `at` as float32, or as float16 / bfloat16 bits
// (Out = Float16Bits; bfloat16 blocks are stored by storeSixteenBitBlock); whole vectors stream where aligned.
struct Float16Bits {
    uint16_t bits;
};
struct BFloat16Bits {
    uint16_t bits;
};
template <typename Out>
HWY_INLINE void storeSums(hn::Vec<FloatTag> sums, Out *HWY_RESTRICT at, int64_t count, bool streaming) {
    const FloatTag df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    if constexpr (std::is_same_v<Out, float>) {
        if (count == lanes) return storeVector(df, sums, at, streaming);
        return storeFirstLanes(df, sums, at, static_cast<size_t>(count));
    } else {
        static_assert(std::is_same_v<Out, Float16Bits>);
        const hn::Rebind<uint16_t, FloatTag> d16;
        const auto bits = hn::BitCast(d16, hn::DemoteTo(hn::Rebind<hwy::float16_t, FloatTag>(), sums));
        uint16_t *to = &at->bits;
        if (count == lanes) return storeVector(d16, bits, to, streaming);
        // As storeSixteenBitBlock: a cached row ends in storeFirstLanes, a streamed one through a copy.
        if (!streaming) return storeFirstLanes(d16, bits, to, static_cast<size_t>(count));
        HWY_ALIGN uint16_t values[16];
        hn::Store(bits, d16, values);
        std::memcpy(to, values, static_cast<size_t>(count) * sizeof(uint16_t));
    }
}

// Lanes 0, 1, 2, ...: which windows of a partial load exist.
HWY_ALIGN constexpr int32_t kLaneIndices[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// One candidate output row's A and B windows (see gatherRow) as vectors: indices and float32 gradients.
struct CandidateVectors {
    hn::Vec<IndexTag> indexA, indexB;
    hn::Vec<FloatTag> gradientA, gradientB;
};

// Matches counted per lane, in separate accumulators so that no chain of dependent additions paces the
// loop: a and b for the A and B windows of the first candidate output row of a row (or of a pair of rows),
// secondA / secondB for those of the second.
struct MatchCounts {
    hn::Vec<IndexTag> a, b, secondA, secondB;
};

// Adds a mask's matches to one of the counters. With 16 vector registers (AVX2 and below) the four counters
// compete with the block's vectors and went to the stack (each add a store and a reload in the 16-bit rows'
// code): there they all add into `a`, a chain of one-cycle adds that the block's work hides.
template <hn::Vec<IndexTag> MatchCounts::*Counter>
HWY_INLINE void addMatches(MatchCounts &counts, hn::Mask<IndexTag> match) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    counts.*Counter = countMatches(counts.*Counter, match);
#else
    counts.a = countMatches(counts.a, match);
#endif
}

HWY_INLINE MatchCounts zeroCounts() {
    const auto zero = hn::Zero(IndexTag());
    return {zero, zero, zero, zero};
}

HWY_INLINE int64_t totalOf(const MatchCounts &counts) {
    const IndexTag di;
    const auto all = hn::Add(hn::Add(counts.a, counts.b), hn::Add(counts.secondA, counts.secondB));
    return static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, all)));
}

// The columns of one block of one input row: positions of its even and odd columns, and (last block only)
// which of them lie inside the row: those past it hold positions of the next row and must not match.
struct BlockColumns {
    hn::Vec<IndexTag> even, odd;
    hn::Mask<IndexTag> evenInside, oddInside;
    bool tail;
};

// Adds one candidate output row's matches with the block's columns to the row's sums (increasing window
// order within the candidate). Block b makes columns [2bL, 2bL + 2L) from windows A = b*L + lane + padLeft
// - 1 and B = A + 1. padLeft 1: an even column 2j lies only in window j (A), an odd one in j (A) then j + 1
// (B). padLeft 0: an even column 2j lies in j - 1 (A) then j (B), an odd one only in j (B). matchedA /
// matchedB: the lanes whose A / B window matched a column (at most one: positions are distinct).
template <int kPadLeft>
HWY_INLINE void addCandidate(const CandidateVectors &v, const BlockColumns &columns, hn::Vec<FloatTag> &evenSums,
                             hn::Vec<FloatTag> &oddSums, hn::Mask<IndexTag> &matchedA, hn::Mask<IndexTag> &matchedB) {
    if constexpr (kPadLeft == 1) {
        auto evenA = hn::Eq(v.indexA, columns.even), oddA = hn::Eq(v.indexA, columns.odd),
             oddB = hn::Eq(v.indexB, columns.odd);
        if (columns.tail) {
            evenA = hn::And(evenA, columns.evenInside);
            oddA = hn::And(oddA, columns.oddInside);
            oddB = hn::And(oddB, columns.oddInside);
        }
        evenSums = addMatched(evenSums, evenA, v.gradientA);
        oddSums = addMatched(addMatched(oddSums, oddA, v.gradientA), oddB, v.gradientB);
        matchedA = hn::Or(evenA, oddA);
        matchedB = oddB;
    } else {
        auto evenA = hn::Eq(v.indexA, columns.even), evenB = hn::Eq(v.indexB, columns.even),
             oddB = hn::Eq(v.indexB, columns.odd);
        if (columns.tail) {
            evenA = hn::And(evenA, columns.evenInside);
            evenB = hn::And(evenB, columns.evenInside);
            oddB = hn::And(oddB, columns.oddInside);
        }
        evenSums = addMatched(addMatched(evenSums, evenA, v.gradientA), evenB, v.gradientB);
        oddSums = addMatched(oddSums, oddB, v.gradientB);
        matchedA = evenA;
        matchedB = hn::Or(evenB, oddB);
    }
}

// How a row's sums are written: streaming (aligned vectors bypass the caches), and whether bfloat16 may be
// rounded by the CPU's instruction (bfloat16HardwareRounding()).
struct StoreMode {
    bool streaming = false;
    bool bfloat16Instruction = false;
    bool bfloat16SubnormalsPossible = true;  // false: the plane's sums cannot be subnormal
};

#if HWY_TARGET != HWY_SCALAR
// One vector of 16-bit values (a whole cache line with AVX-512), `count` of them at most, to `to`. Whole
// vectors stream where aligned to the vector or to its half (two streaming halves: rows of 112 bfloat16
// start every other line mid-line).
template <class D16>
HWY_INLINE void storeSixteenBitBlock(D16 d16, hn::Vec<D16> bits, uint16_t *HWY_RESTRICT to, int64_t count,
                                     bool streaming) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d16));
    if (count >= lanes) {
        const uintptr_t address = reinterpret_cast<uintptr_t>(to), bytes = hn::Lanes(d16) * sizeof(uint16_t);
        if (!streaming || address % bytes == 0) return storeVector(d16, bits, to, streaming);
        const hn::Half<D16> dh;
        if (address % (bytes / 2) == 0) {
            streamStore(hn::LowerHalf(dh, bits), dh, to);
            streamStore(hn::UpperHalf(dh, bits), dh, to + lanes / 2);
            return;
        }
        return hn::StoreU(bits, d16, to);
    }
    // Cached rows end in storeFirstLanes (one masked store with AVX-512BW). Through the copy in memory
    // below, the row end took half of a 56-wide row's time: 3x3 stride 2 bfloat16 ran at 1.8x float32's time
    // per element instead of 1.2x (Zen 4, one thread, 16 planes of 56x56, cache-resident).
    if (!streaming) return storeFirstLanes(d16, bits, to, static_cast<size_t>(count));
    // A whole streaming half first, the rest plainly through memory: a masked or plain store into a line
    // that streaming stores are filling took a trip to memory each (D-bf16 ran 10x slower).
    const hn::Half<D16> dh;
    const int64_t half = lanes / 2;
    int64_t done = 0;
    if (count >= half) {
        storeVector(dh, hn::LowerHalf(dh, bits), to, streaming);
        done = half;
    }
    if (done == count) return;
    HWY_ALIGN uint16_t values[hn::MaxLanes(d16)];
    hn::Store(bits, d16, values);
    std::memcpy(to + done, values + done, static_cast<size_t>(count - done) * sizeof(uint16_t));
}
#endif

// Writes one block's even and odd column sums interleaved to `at` (`left` columns of the row remain):
// whole halves straight to the row (streaming where aligned), a last partial one through memory.
template <typename Out>
HWY_INLINE void storeBlock(hn::Vec<FloatTag> evenSums, hn::Vec<FloatTag> oddSums, Out *HWY_RESTRICT at, int64_t left,
                           const StoreMode &store) {
    if constexpr (std::is_same_v<Out, BFloat16Bits>) {
#if HWY_TARGET != HWY_SCALAR  // one lane: bfloat16 rows go through a row of sums (planeRows)
        // Rounding works per lane, so the even and odd sums are rounded before they meet. No look for NaNs:
        // every sum is +0 plus widened bfloat16 values, so a NaN sum is quiet with its lower 16 bits zero (an
        // addition returns a NaN operand's payload quieted, or the default NaN, whose payload is zero), and
        // adding 0x7fff + lsb to those bits leaves their upper half as it is. The look took a tenth of the
        // steady pair block's operations with 8 lanes.
        const hn::Repartition<uint16_t, FloatTag> d16;
        storeSixteenBitBlock(
            d16,
            BFloat16Interleaved</*kLookForNaNs=*/false>(FloatTag(), evenSums, oddSums, store.bfloat16Instruction,
                                                        store.bfloat16SubnormalsPossible),
            &at->bits, left, store.streaming);
#else
        static_assert(!std::is_same_v<Out, BFloat16Bits>, "one lane rounds bfloat16 through a row of sums");
#endif
    } else {
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(FloatTag()));
#if HWY_TARGET == HWY_AVX2
        // float16 with 8 lanes: each sum vector converted to a half vector first, the halves' 16-bit lanes then
        // interleaved (the 128-bit halves interleave whole) into one full vector: two operations a row fewer
        // than interleaving the float32 sums (AMD EPYC Zen 3, D-f16-cache 0.073 -> 0.070 ms one thread; D-f16
        // two threads 2.13-2.26 / 2.15-2.36 -> 2.03-2.12 / 2.08-2.18 warm / cold).
        if constexpr (std::is_same_v<Out, Float16Bits>) {
            if (left >= 2 * lanes) {
                const hn::Rebind<hwy::float16_t, FloatTag> dh;
                const hn::Rebind<uint16_t, FloatTag> d16h;
                const auto even16 = hn::BitCast(d16h, hn::DemoteTo(dh, evenSums));
                const auto odd16 = hn::BitCast(d16h, hn::DemoteTo(dh, oddSums));
                const hn::Repartition<uint16_t, FloatTag> d16;
                const auto both = hn::Combine(d16, hn::InterleaveUpper(d16h, even16, odd16),
                                              hn::InterleaveLower(d16h, even16, odd16));
                return storeSixteenBitBlock(d16, both, &at->bits, left, store.streaming);
            }
        }
#endif
        hn::Vec<FloatTag> lower, upper;
        interleaveLanes(FloatTag(), evenSums, oddSums, lower, upper);
        storeSums(lower, at, std::min(left, lanes), store.streaming);
        if (left > lanes) storeSums(upper, at + lanes, std::min(left - lanes, lanes), store.streaming);
    }
}

// Blocks of an input row of `width` columns whose positions start at rowStart (a plain loop in each
// caller: a per-block lambda was not inlined).
struct BlockWalk {
    BlockWalk(int64_t width, int32_t rowStart)
        : width(width),
          lanes(static_cast<int64_t>(hn::Lanes(IndexTag()))),
          blocks((width + 2 * lanes - 1) / (2 * lanes)),
          step(hn::Set(IndexTag(), static_cast<int32_t>(2 * lanes))),
          rowEnd(hn::Set(IndexTag(), rowStart + static_cast<int32_t>(width))),
          evenPosition(hn::Add(hn::Load(IndexTag(), kEvenColumns), hn::Set(IndexTag(), rowStart))) {}

    // Block b's columns (the blocks are walked in order: next() after each).
    HWY_INLINE BlockColumns columns(int64_t b) const {
        const auto oddPosition = hn::Add(evenPosition, hn::Set(IndexTag(), 1));
        return BlockColumns{evenPosition, oddPosition, hn::Lt(evenPosition, rowEnd), hn::Lt(oddPosition, rowEnd),
                            2 * b * lanes + 2 * lanes > width};
    }
    HWY_INLINE void next() { evenPosition = hn::Add(evenPosition, step); }
    HWY_INLINE void advance(int64_t blockCount) {
        evenPosition = hn::Add(evenPosition, hn::Set(IndexTag(), static_cast<int32_t>(2 * lanes * blockCount)));
    }

    int64_t width, lanes, blocks;
    hn::Vec<IndexTag> step, rowEnd, evenPosition;
};

// One input row made from kCandidates (0, 1 or 2) output rows. `load(c, firstWindow)` gives candidate c's
// vectors for windows firstWindow + lane (A) and firstWindow + 1 + lane (B) of an interior block,
// `edgeLoad` the same for the others, index -1 where a window does not exist (two loaders, so that each
// block's vectors stay in registers). The sums go to destination (streaming: aligned vectors bypass the
// caches); matches are added to counts.
template <int kPadLeft, int kCandidates, typename Out, class Load, class EdgeLoad>
HWY_INLINE void gatherRow(int64_t width, int64_t outputWidth, int32_t rowStart, Out *HWY_RESTRICT destination,
                          const StoreMode &store, const Load &load, const EdgeLoad &edgeLoad, MatchCounts &counts) {
    BlockWalk walk(width, rowStart);
    for (int64_t b = 0; b < walk.blocks; ++b, walk.next()) {
        const BlockColumns columns = walk.columns(b);
        const int64_t firstWindow = b * walk.lanes + kPadLeft - 1;
        auto evenSums = hn::Zero(FloatTag()), oddSums = evenSums;
        const auto sumCandidates = [&](const auto &loader) POOLGRAD_LAMBDA_INLINE {
            hn::Mask<IndexTag> matchedA, matchedB;
            if constexpr (kCandidates >= 1) {
                addCandidate<kPadLeft>(loader(0, firstWindow), columns, evenSums, oddSums, matchedA, matchedB);
                addMatches<&MatchCounts::a>(counts, matchedA);
                addMatches<&MatchCounts::b>(counts, matchedB);
            }
            if constexpr (kCandidates >= 2) {
                addCandidate<kPadLeft>(loader(1, firstWindow), columns, evenSums, oddSums, matchedA, matchedB);
                addMatches<&MatchCounts::secondA>(counts, matchedA);
                addMatches<&MatchCounts::secondB>(counts, matchedB);
            }
        };
        // All of the block's A and B windows exist: the plain loader may read them.
        if (firstWindow >= 0 && firstWindow + walk.lanes + 1 <= outputWidth)
            sumCandidates(load);
        else
            sumCandidates(edgeLoad);
        const int64_t column = 2 * b * walk.lanes;
        storeBlock(evenSums, oddSums, destination + column, width - column, store);
    }
}

#if HWY_TARGET != HWY_SCALAR
// Streams a pair of float32 rows of width 16m + 8 (each 8 floats past whole lines, the pair whole lines) with
// 16 lanes, one vector per line, as gatherRowPair makes their vectors: row r's vectors k < m are lines of
// their own; row r + 1 starts half a line in, so its lines are the upper half of one vector and the lower
// half of the next; the line they share is r's last half vector and r + 1's first.
struct PairLineWriter {
    float *HWY_RESTRICT rowA;  // the pair's first row (line aligned); the second follows at rowA + width
    int64_t wholeVectors;      // m: row r's vectors that are whole lines
    hn::Vec<FloatTag> previousB, lastHalfA, firstB;

    // Vector k (columns 16k..16k+15) of both rows.
    HWY_INLINE void add(int64_t k, hn::Vec<FloatTag> a, hn::Vec<FloatTag> b) {
        const FloatTag df;
        if (k < wholeVectors)
            streamStore(a, df, rowA + 16 * k);
        else
            lastHalfA = a;
        if (k == 0)
            firstB = b;
        else  // row r + 1's columns 16k-8..16k+7: at rowA + 16m + 8 + 16k - 8
            streamStore(hn::ConcatLowerUpper(df, b, previousB), df, rowA + 16 * (wholeVectors + k));
        previousB = b;
    }
    HWY_INLINE void finish() {
        const FloatTag df;
        streamStore(hn::ConcatLowerLower(df, firstB, lastHalfA), df, rowA + 16 * wholeVectors);
    }
};
#endif

template <bool kHalf>
HWY_INLINE hn::Vec<FloatTag> widenGradients(hn::Vec<hn::Rebind<uint16_t, FloatTag>> bits) {
    return widenSixteenBit<kHalf>(FloatTag(), bits);
}

// Gradients of windows first + lane as float32: G is float, or uint16_t bits of float16 (kHalf) / bfloat16.
template <typename G, bool kHalf>
HWY_INLINE hn::Vec<FloatTag> loadGradients(const G *HWY_RESTRICT at) {
    if constexpr (std::is_same_v<G, float>) {
        return hn::LoadU(FloatTag(), at);
    } else {
        return widenGradients<kHalf>(hn::LoadU(hn::Rebind<uint16_t, FloatTag>(), at));
    }
}

// One candidate output row's matches with one input row of a block whose columns all lie in the row, from
// the windows' positions relative to the block's first even column (relativeA / relativeB: index minus that
// column's position; rowOffset: 0 for the block's row, the row width for the next): as addCandidate.
template <int kPadLeft>
HWY_INLINE void addRelativeCandidate(hn::Vec<IndexTag> relativeA, hn::Vec<IndexTag> relativeB,
                                     hn::Vec<FloatTag> gradientA, hn::Vec<FloatTag> gradientB,
                                     hn::Vec<IndexTag> rowOffset, hn::Vec<FloatTag> &evenSums,
                                     hn::Vec<FloatTag> &oddSums, hn::Mask<IndexTag> &matchedA,
                                     hn::Mask<IndexTag> &matchedB) {
    const auto oddOffset = hn::Add(rowOffset, hn::Set(IndexTag(), 1));
    if constexpr (kPadLeft == 1) {
        const auto evenA = hn::Eq(relativeA, rowOffset), oddA = hn::Eq(relativeA, oddOffset),
                   oddB = hn::Eq(relativeB, oddOffset);
        evenSums = addMatched(evenSums, evenA, gradientA);
        oddSums = addMatched(addMatched(oddSums, oddA, gradientA), oddB, gradientB);
        matchedA = hn::Or(evenA, oddA);
        matchedB = oddB;
    } else {
        const auto evenA = hn::Eq(relativeA, rowOffset), evenB = hn::Eq(relativeB, rowOffset),
                   oddB = hn::Eq(relativeB, oddOffset);
        evenSums = addMatched(addMatched(evenSums, evenA, gradientA), evenB, gradientB);
        oddSums = addMatched(oddSums, oddB, gradientB);
        matchedA = evenA;
        matchedB = hn::Or(evenB, oddB);
    }
}

// One candidate output row's windows as the steady blocks read them.
template <typename G>
struct CandidateRow {
    const int32_t *HWY_RESTRICT indices;
    const G *HWY_RESTRICT gradients;
    int64_t readableBegin, readableEnd;  // the windows whose elements lie in the plane (beyond the row's own)

    bool readable(int64_t firstWindow, int64_t count) const {
        return firstWindow >= readableBegin && firstWindow + count <= readableEnd;
    }
};

// Blocks [first, end) of a row pair (see gatherRowPair) whose windows all exist and whose columns all lie in
// the row, in a loop of their own: row r's sums made and stored before row r + 1's, and the windows compared
// as positions relative to the block's first even column, so that few vectors are live at once.
// evenPosition: block `first`'s. With 16 registers (AVX2) the general block, which holds four sums and four
// column-position vectors, spilled to the stack, and its loop carried the edge blocks' counters.
// kMissing: a block at a row's end, whose A / B windows that do not exist (all-ones lanes of missingA /
// missingB) are read from the plane's neighbouring row and made to match nothing.
template <int kPadLeft, int kSecondCandidates, typename G, bool kHalf, bool kMissing = false, typename Out>
HWY_INLINE void steadyPairBlocks(CandidateRow<G> q, CandidateRow<G> second, int64_t first, int64_t end,
                                 hn::Vec<IndexTag> evenPosition, int64_t width, Out *HWY_RESTRICT destination,
                                 const StoreMode &store, MatchCounts &counts,
                                 hn::Vec<IndexTag> missingA = hn::Zero(IndexTag()),
                                 hn::Vec<IndexTag> missingB = hn::Zero(IndexTag())) {
    const IndexTag di;
    // A missing window's relative position -1 matches no column (they lie at 0 and above).
    const auto relativeOf = [&](const int32_t *HWY_RESTRICT at, hn::Vec<IndexTag> missing) POOLGRAD_LAMBDA_INLINE {
        const auto relative = hn::Sub(hn::LoadU(di, at), evenPosition);
        if constexpr (kMissing) return hn::Or(relative, missing);
        (void)missing;
        return relative;
    };
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const auto thisRow = hn::Zero(di), nextRow = hn::Set(di, static_cast<int32_t>(width)),
               step = hn::Set(di, static_cast<int32_t>(2 * lanes));
    for (int64_t b = first; b < end; ++b, evenPosition = hn::Add(evenPosition, step)) {
        const int64_t window = b * lanes + kPadLeft - 1;
        Out *HWY_RESTRICT at = destination + 2 * b * lanes;
        const auto relativeA = relativeOf(q.indices + window, missingA),
                   relativeB = relativeOf(q.indices + window + 1, missingB);
        const auto gradientA = loadGradients<G, kHalf>(q.gradients + window),
                   gradientB = loadGradients<G, kHalf>(q.gradients + window + 1);
        hn::Mask<IndexTag> matchedA, matchedB, nextMatchedA, nextMatchedB;
        auto evenSums = hn::Zero(FloatTag()), oddSums = evenSums;
        addRelativeCandidate<kPadLeft>(relativeA, relativeB, gradientA, gradientB, thisRow, evenSums, oddSums, matchedA,
                                       matchedB);
        storeBlock(evenSums, oddSums, at, 2 * lanes, store);
        evenSums = hn::Zero(FloatTag()), oddSums = evenSums;
        addRelativeCandidate<kPadLeft>(relativeA, relativeB, gradientA, gradientB, nextRow, evenSums, oddSums,
                                       nextMatchedA, nextMatchedB);
        addMatches<&MatchCounts::a>(counts, hn::Or(matchedA, nextMatchedA));
        addMatches<&MatchCounts::b>(counts, hn::Or(matchedB, nextMatchedB));
        if constexpr (kSecondCandidates == 2) {
            addRelativeCandidate<kPadLeft>(
                relativeOf(second.indices + window, missingA), relativeOf(second.indices + window + 1, missingB),
                loadGradients<G, kHalf>(second.gradients + window),
                loadGradients<G, kHalf>(second.gradients + window + 1), nextRow, evenSums, oddSums, matchedA, matchedB);
            addMatches<&MatchCounts::secondA>(counts, matchedA);
            addMatches<&MatchCounts::secondB>(counts, matchedB);
        }
        storeBlock(evenSums, oddSums, at + width, 2 * lanes, store);
    }
}

// A row's end block (steadyPairBlocks with its missing windows masked), called: inlined at each pair as well,
// it doubled the file's compile time under the sanitizers.
template <int kPadLeft, int kSecondCandidates, typename G, bool kHalf, typename Out>
HWY_NOINLINE void maskedPairBlock(CandidateRow<G> q, CandidateRow<G> second, int64_t b, hn::Vec<IndexTag> evenPosition,
                                  int64_t width, Out *HWY_RESTRICT destination, const StoreMode &store,
                                  MatchCounts &counts, hn::Vec<IndexTag> missingA, hn::Vec<IndexTag> missingB) {
    steadyPairBlocks<kPadLeft, kSecondCandidates, G, kHalf, true>(q, second, b, b + 1, evenPosition, width, destination,
                                                                  store, counts, missingA, missingB);
}

// The blocks whose windows all exist and whose columns all lie in the row: [first, end), empty where none.
struct BlockSpan {
    int64_t first, end;
};
template <int kPadLeft>
HWY_INLINE BlockSpan steadyBlocks(int64_t width, int64_t outputWidth, int64_t lanes) {
    // Block b reads windows [b*lanes + kPadLeft - 1, b*lanes + kPadLeft + lanes) and makes columns
    // [2*b*lanes, 2*(b + 1)*lanes).
    const int64_t first = kPadLeft == 1 ? 0 : 1;
    const int64_t lastWindowsFit = outputWidth - kPadLeft - lanes;  // b*lanes <= this
    if (lastWindowsFit < 0) return {first, first};
    const int64_t end = std::min(lastWindowsFit / lanes + 1, width / (2 * lanes));
    return {first, std::max(first, end)};
}

// Two input rows r and r + 1 (positions from rowStart, r + 1's from rowStart + width) where r reads output
// row q alone and r + 1 reads q and then (kSecondCandidates 2) one more, q' > q: the 3x3 stride 2 pattern
// of rows 2k, 2k + 1. q's vectors are loaded (and 16-bit gradients widened) once for both rows; loaders
// as in gatherRow, candidate 0 being q and 1 being q'. Each lane's window matches at most one of the four
// columns of q it meets, so their masks are counted OR-ed.
// rows: q and q' for the steady blocks (steadyPairBlocks).
template <int kPadLeft, int kSecondCandidates, bool kHalf, bool kPairLines = false, typename G, typename Out,
          class Load, class EdgeLoad>
HWY_INLINE void gatherRowPair(int64_t width, int64_t outputWidth, int32_t rowStart, Out *HWY_RESTRICT destination,
                              const StoreMode &store, const CandidateRow<G> (&rows)[2], const Load &load,
                              const EdgeLoad &edgeLoad, MatchCounts &counts) {
#if HWY_TARGET != HWY_SCALAR
    [[maybe_unused]] PairLineWriter lines{reinterpret_cast<float *>(destination), width / 16, {}, {}, {}};
#endif
    const auto nextRow = hn::Set(IndexTag(), static_cast<int32_t>(width));
    BlockWalk walk(width, rowStart);
    [[maybe_unused]] const BlockSpan steady = steadyBlocks<kPadLeft>(width, outputWidth, walk.lanes);
    for (int64_t b = 0; b < walk.blocks; ++b, walk.next()) {
        if constexpr (!kPairLines) {
            if (b == steady.first && steady.first < steady.end) {
                steadyPairBlocks<kPadLeft, kSecondCandidates, G, kHalf>(
                    rows[0], rows[1], steady.first, steady.end, walk.evenPosition, width, destination, store, counts);
                walk.advance(steady.end - steady.first);
                b = steady.end;
                if (b == walk.blocks) break;
            }
        }
        const int64_t firstWindow = b * walk.lanes + kPadLeft - 1;
        const int64_t column = 2 * b * walk.lanes;
        if constexpr (!kPairLines) {
            // A row's first or last block, read whole where the plane holds all it reads: the windows past
            // the row's ends are masked.
            if (column + 2 * walk.lanes <= width && rows[0].readable(firstWindow, walk.lanes + 1) &&
                (kSecondCandidates == 1 || rows[1].readable(firstWindow, walk.lanes + 1))) {
                const IndexTag di;
                const auto lane = hn::Load(di, kLaneIndices);
                const auto missing = [&](int64_t from) {
                    const auto window = hn::Add(lane, hn::Set(di, static_cast<int32_t>(from)));
                    return hn::VecFromMask(
                        di, hn::Or(hn::Lt(window, hn::Zero(di)),
                                   hn::Not(hn::Lt(window, hn::Set(di, static_cast<int32_t>(outputWidth))))));
                };
                maskedPairBlock<kPadLeft, kSecondCandidates, G, kHalf>(rows[0], rows[1], b, walk.evenPosition, width,
                                                                       destination, store, counts, missing(firstWindow),
                                                                       missing(firstWindow + 1));
                continue;
            }
        }
        const BlockColumns columns = walk.columns(b);
        // Row r + 1's columns lie inside their row exactly where row r's do.
        const BlockColumns nextColumns{hn::Add(columns.even, nextRow), hn::Add(columns.odd, nextRow),
                                       columns.evenInside, columns.oddInside, columns.tail};
        auto evenSums = hn::Zero(FloatTag()), oddSums = evenSums, nextEvenSums = evenSums, nextOddSums = evenSums;
        const auto sumCandidates = [&](const auto &loader) POOLGRAD_LAMBDA_INLINE {
            hn::Mask<IndexTag> matchedA, matchedB, nextMatchedA, nextMatchedB;
            const CandidateVectors shared = loader(0, firstWindow);
            addCandidate<kPadLeft>(shared, columns, evenSums, oddSums, matchedA, matchedB);
            addCandidate<kPadLeft>(shared, nextColumns, nextEvenSums, nextOddSums, nextMatchedA, nextMatchedB);
            addMatches<&MatchCounts::a>(counts, hn::Or(matchedA, nextMatchedA));
            addMatches<&MatchCounts::b>(counts, hn::Or(matchedB, nextMatchedB));
            if constexpr (kSecondCandidates == 2) {
                addCandidate<kPadLeft>(loader(1, firstWindow), nextColumns, nextEvenSums, nextOddSums, matchedA,
                                       matchedB);
                addMatches<&MatchCounts::secondA>(counts, matchedA);
                addMatches<&MatchCounts::secondB>(counts, matchedB);
            }
        };
        if (firstWindow >= 0 && firstWindow + walk.lanes + 1 <= outputWidth)
            sumCandidates(load);
        else
            sumCandidates(edgeLoad);
#if HWY_TARGET != HWY_SCALAR
        if constexpr (kPairLines) {
            static_assert(std::is_same_v<Out, float>, "float32 rows only");
            hn::Vec<FloatTag> lowerA, upperA, lowerB, upperB;
            interleaveLanes(FloatTag(), evenSums, oddSums, lowerA, upperA);
            interleaveLanes(FloatTag(), nextEvenSums, nextOddSums, lowerB, upperB);
            lines.add(2 * b, lowerA, lowerB);
            if (column + walk.lanes < width) lines.add(2 * b + 1, upperA, upperB);
            continue;
        }
#endif
        storeBlock(evenSums, oddSums, destination + column, width - column, store);
        storeBlock(nextEvenSums, nextOddSums, destination + width + column, width - column, store);
    }
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kPairLines) lines.finish();
#endif
}

// gatherRow for a candidate count known only at run time (at most 2: the plan declines more).
template <int kPadLeft, typename Out, class Load, class EdgeLoad>
HWY_INLINE void gatherRowOf(int64_t candidates, int64_t width, int64_t outputWidth, int32_t rowStart,
                            Out *HWY_RESTRICT destination, const StoreMode &store, const Load &load,
                            const EdgeLoad &edgeLoad, MatchCounts &counts) {
    if (candidates == 2)
        gatherRow<kPadLeft, 2>(width, outputWidth, rowStart, destination, store, load, edgeLoad, counts);
    else if (candidates == 1)
        gatherRow<kPadLeft, 1>(width, outputWidth, rowStart, destination, store, load, edgeLoad, counts);
    else
        gatherRow<kPadLeft, 0>(width, outputWidth, rowStart, destination, store, load, edgeLoad, counts);
}

// Magnitude bits (sign cleared) of the smallest bfloat16 whose sums stay normal: exponent field 8.
constexpr int16_t kSmallestNormalSumMagnitude = 8 << 7;

bool BFloat16SumsStayNormal(const uint16_t *HWY_RESTRICT gradients, int64_t count) {
    const hn::ScalableTag<int16_t> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto magnitudeBits = hn::Set(d, 0x7fff), zero = hn::Zero(d),
               smallestKept = hn::Set(d, kSmallestNormalSumMagnitude);
    // Nonzero with an exponent field below 8: the magnitude bits (non-negative as int16) lie in
    // [1, kSmallestNormalSumMagnitude).
    auto tiny = hn::Zero(d);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
        const auto magnitude =
            hn::And(hn::BitCast(d, hn::LoadU(hn::RebindToUnsigned<decltype(d)>(), gradients + i)), magnitudeBits);
        tiny = hn::Or(tiny, hn::VecFromMask(d, hn::And(hn::Gt(magnitude, zero), hn::Lt(magnitude, smallestKept))));
    }
    bool any = !hn::AllTrue(d, hn::Eq(tiny, zero));
    for (; i < count; ++i) {
        const int magnitude = gradients[i] & 0x7fff;
        any |= magnitude > 0 && magnitude < kSmallestNormalSumMagnitude;
    }
    return !any;
}

int64_t CountIndicesNotMinusOne(const int32_t *HWY_RESTRICT indices, int64_t count) {
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const auto minusOne = hn::Set(di, -1);
    auto set = hn::Zero(di);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes)
        set = hn::Sub(set, hn::VecFromMask(di, hn::Ne(hn::LoadU(di, indices + i), minusOne)));
    int64_t total = static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, set)));
    for (; i < count; ++i) total += indices[i] != -1;
    return total;
}

// Windows [first, first + lanes) of an output row of `count` windows: values, or `fill` where a window
// does not exist, without touching memory outside the row.
template <typename T>
HWY_INLINE void partialRow(const T *HWY_RESTRICT row, int64_t first, int64_t count, T fill, T *HWY_RESTRICT out,
                           int64_t lanes) {
    for (int64_t i = 0; i < lanes; ++i) out[i] = first + i >= 0 && first + i < count ? row[first + i] : fill;
}

// `count` floats (a whole number of vectors: whole cache lines) from the staging row `from` to `to`, streamed.
HWY_INLINE void streamWholeLines(const float *HWY_RESTRICT from, float *HWY_RESTRICT to, int64_t count) {
    const FloatTag df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    for (int64_t i = 0; i < count; i += lanes) streamStore(hn::LoadU(df, from + i), df, to + i);
}

template <int kPadLeft, typename G, bool kHalf>
int64_t planeRows(const Stride2RowTables &tables, const Stride2PlaneOperands &plane, int64_t firstRow, int64_t endRow,
                  float *sumsRow, Stride2Stores stores) {
    const bool streaming = stores == Stride2Stores::Streaming;
    [[maybe_unused]] const bool stagedPairs = stores == Stride2Stores::StreamingRowPairs && std::is_same_v<G, float>;
    const FloatTag df;
    const IndexTag di;
    [[maybe_unused]] const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int64_t width = tables.width, outputWidth = tables.outputWidth;
    const int32_t *HWY_RESTRICT indexPlane = plane.indices;
    const G *HWY_RESTRICT gradientPlane = static_cast<const G *>(plane.gradients);
    const int64_t *HWY_RESTRICT rowStart = tables.rowStart;
    const int64_t *HWY_RESTRICT rowOutputs = tables.rowOutputs;
    const auto laneIndex = hn::Load(di, kLaneIndices);
    (void)laneIndex;
    // 16-bit sums are rounded in registers where the target can (bfloat16: HWY_SCALAR cannot demote).
    constexpr bool kConvertInRegisters =
        std::is_same_v<G, float> || (HWY_TARGET != HWY_SCALAR && (!kHalf || kHardwareFloat16));
    MatchCounts counts = zeroCounts();
    const StoreMode store{streaming, !kHalf && !std::is_same_v<G, float> && bfloat16HardwareRounding(),
                          !plane.bfloat16SumsStayNormal};
    const int32_t *indexRows[4];
    const G *gradientRows[4];
    [[maybe_unused]] int64_t rowOffsets[4];  // of the candidate output rows in the plane
    [[maybe_unused]] const int64_t planeOutputs = tables.outputRows * outputWidth;
    for (int64_t r = firstRow; r < endRow; ++r) {
        const int64_t first = rowStart[r], candidates = rowStart[r + 1] - first;
        for (int64_t c = 0; c < candidates; ++c) {
            rowOffsets[c] = rowOutputs[first + c] * outputWidth;
            indexRows[c] = indexPlane + rowOffsets[c];
            gradientRows[c] = gradientPlane + rowOffsets[c];
        }
        const auto load = [&](int64_t c, int64_t firstWindow) POOLGRAD_LAMBDA_INLINE {
            const int32_t *indices = indexRows[c];
            const G *gradients = gradientRows[c];
            return CandidateVectors{hn::LoadU(di, indices + firstWindow), hn::LoadU(di, indices + firstWindow + 1),
                                    loadGradients<G, kHalf>(gradients + firstWindow),
                                    loadGradients<G, kHalf>(gradients + firstWindow + 1)};
        };
        const auto edgeLoad = [&](int64_t c, int64_t firstWindow) POOLGRAD_LAMBDA_INLINE {
            const int32_t *indices = indexRows[c];
            const G *gradients = gradientRows[c];
            // A row's first or last block: windows before 0 or from outputWidth on read as index -1.
            CandidateVectors v;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2
            // Masked lanes are not read (AVX-512's and AVX2's 32-bit masked loads suppress their faults), so
            // `from` may be -1. Filling every lane through memory, as the targets below do, costs a stalled
            // load per vector (the lane stores cannot be forwarded to it): on AVX2 (AMD EPYC Zen 3) W56 ran at
            // half the scatter's speed that way.
            const auto windowsFrom = [&](int64_t from, hn::Vec<IndexTag> &windowIndices,
                                         hn::Vec<FloatTag> &windowGradients) {
                const auto exists = hn::And(hn::Gt(laneIndex, hn::Set(di, static_cast<int32_t>(-from - 1))),
                                            hn::Lt(laneIndex, hn::Set(di, static_cast<int32_t>(outputWidth - from))));
                windowIndices =
                    hn::IfThenElse(exists, MaskedLoadUnaligned(exists, di, indices + from), hn::Set(di, -1));
                // Gradients of windows that do not exist are never used (their index matches nothing).
                if constexpr (std::is_same_v<G, float>) {
                    windowGradients = MaskedLoadUnaligned(hn::RebindMask(df, exists), df, gradients + from);
                } else {
#if HWY_TARGET == HWY_AVX2
                    // No 16-bit masked loads: a whole load where the vector stays inside the plane (lanes of
                    // other rows are never used), through a buffer only at the plane's two ends.
                    const int64_t at = rowOffsets[c] + from;
                    if (at >= 0 && at + lanes <= planeOutputs) {
                        windowGradients = loadGradients<G, kHalf>(gradients + from);
                    } else {
                        HWY_ALIGN G partialGradients[16];
                        partialRow(gradients, from, outputWidth, G{}, partialGradients, lanes);
                        windowGradients = loadGradients<G, kHalf>(partialGradients);
                    }
#else
                    const hn::Rebind<uint16_t, FloatTag> du16;
                    const auto bits = MaskedLoadUnaligned(hn::Mask<decltype(du16)>{exists.raw}, du16, gradients + from);
                    windowGradients = widenGradients<kHalf>(bits);
#endif
                }
            };
            windowsFrom(firstWindow, v.indexA, v.gradientA);
            windowsFrom(firstWindow + 1, v.indexB, v.gradientB);
#else
            HWY_ALIGN int32_t partialIndices[16];
            partialRow(indices, firstWindow, outputWidth, int32_t{-1}, partialIndices, lanes);
            v.indexA = hn::Load(di, partialIndices);
            partialRow(indices, firstWindow + 1, outputWidth, int32_t{-1}, partialIndices, lanes);
            v.indexB = hn::Load(di, partialIndices);
            // Gradients of windows that do not exist are never used (their index matches nothing).
            HWY_ALIGN G partialGradients[16];
            partialRow(gradients, firstWindow, outputWidth, G{}, partialGradients, lanes);
            v.gradientA = loadGradients<G, kHalf>(partialGradients);
            partialRow(gradients, firstWindow + 1, outputWidth, G{}, partialGradients, lanes);
            v.gradientB = loadGradients<G, kHalf>(partialGradients);
#endif
            return v;
        };
        const int32_t rowPosition = static_cast<int32_t>(r * width);
        if constexpr (kConvertInRegisters) {
            using Out = std::conditional_t<std::is_same_v<G, float>, float,
                                           std::conditional_t<kHalf, Float16Bits, BFloat16Bits>>;
            Out *destination = static_cast<Out *>(plane.gradInput) + r * width;
            // Rows 2k (output row k alone) and 2k + 1 (k, then k + 1) together: k is read once for both.
            if (candidates == 1 && r + 1 < endRow) {
                const int64_t nextFirst = rowStart[r + 1], nextCandidates = rowStart[r + 2] - nextFirst;
                if (nextCandidates >= 1 && nextCandidates <= 2 && rowOutputs[nextFirst] == rowOutputs[first]) {
                    if (nextCandidates == 2) {
                        rowOffsets[1] = rowOutputs[nextFirst + 1] * outputWidth;
                        indexRows[1] = indexPlane + rowOffsets[1];
                        gradientRows[1] = gradientPlane + rowOffsets[1];
                    }
                    ++r;
                    const auto candidateRow = [&](int64_t c) {
                        if (c >= nextCandidates) return CandidateRow<G>{nullptr, nullptr, 0, 0};
                        return CandidateRow<G>{indexRows[c], gradientRows[c], -rowOffsets[c],
                                               planeOutputs - rowOffsets[c]};
                    };
                    const CandidateRow<G> rows[2] = {candidateRow(0), candidateRow(1)};
#if HWY_TARGET != HWY_SCALAR
                    // Streamed pairs with 16 lanes: the pair's lines are formed in registers.
                    if constexpr (std::is_same_v<Out, float> && hn::MaxLanes(FloatTag()) == 16) {
                        if (stagedPairs) {
                            if (nextCandidates == 2)
                                gatherRowPair<kPadLeft, 2, kHalf, true>(width, outputWidth, rowPosition, destination,
                                                                        store, rows, load, edgeLoad, counts);
                            else
                                gatherRowPair<kPadLeft, 1, kHalf, true>(width, outputWidth, rowPosition, destination,
                                                                        store, rows, load, edgeLoad, counts);
                            continue;
                        }
                    }
#endif
                    // Streamed pairs with other vector sizes: made in sumsRow (plain stores into L1), then
                    // streamed from it as whole lines.
                    Out *pairTo = destination;
                    if constexpr (std::is_same_v<Out, float>)
                        if (stagedPairs) pairTo = sumsRow;
                    if (nextCandidates == 2)
                        gatherRowPair<kPadLeft, 2, kHalf>(width, outputWidth, rowPosition, pairTo, store, rows, load,
                                                          edgeLoad, counts);
                    else
                        gatherRowPair<kPadLeft, 1, kHalf>(width, outputWidth, rowPosition, pairTo, store, rows, load,
                                                          edgeLoad, counts);
                    if constexpr (std::is_same_v<Out, float>)
                        if (stagedPairs) streamWholeLines(sumsRow, destination, 2 * width);
                    continue;
                }
            }
            gatherRowOf<kPadLeft>(candidates, width, outputWidth, rowPosition, destination, store, load, edgeLoad,
                                  counts);
        } else {
            gatherRowOf<kPadLeft>(candidates, width, outputWidth, rowPosition, sumsRow, StoreMode{}, load, edgeLoad,
                                  counts);
            storeFloatRow(plane.type, sumsRow, static_cast<uint16_t *>(plane.gradInput) + r * width, width, streaming);
        }
    }
    return totalOf(counts);
}

template <typename G, bool kHalf>
int64_t planeRowsOfType(const Stride2RowTables &tables, const Stride2PlaneOperands &plane, int64_t firstRow,
                        int64_t endRow, float *sumsRow, Stride2Stores stores) {
    return tables.padLeft == 1 ? planeRows<1, G, kHalf>(tables, plane, firstRow, endRow, sumsRow, stores)
                               : planeRows<0, G, kHalf>(tables, plane, firstRow, endRow, sumsRow, stores);
}

int64_t GatherStride2PlaneRows(const Stride2RowTables &tables, const Stride2PlaneOperands &plane, int64_t firstRow,
                               int64_t endRow, float *sumsRow, Stride2Stores stores) {
    switch (plane.type) {
        case ElementType::Float16:
            return planeRowsOfType<uint16_t, true>(tables, plane, firstRow, endRow, sumsRow, stores);
        case ElementType::BFloat16:
            return planeRowsOfType<uint16_t, false>(tables, plane, firstRow, endRow, sumsRow, stores);
        default:
            return planeRowsOfType<float, false>(tables, plane, firstRow, endRow, sumsRow, stores);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherStride2LaneCount);
HWY_EXPORT(GatherStride2PlaneRows);
HWY_EXPORT(CountIndicesNotMinusOne);
HWY_EXPORT(BFloat16SumsStayNormal);

bool bfloat16SumsStayNormal(const uint16_t *gradients, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(BFloat16SumsStayNormal)(gradients, count);
}

int64_t countIndicesNotMinusOne(const int32_t *indices, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(CountIndicesNotMinusOne)(indices, count);
}

int64_t gatherStride2LaneCount() { return HWY_DYNAMIC_DISPATCH(GatherStride2LaneCount)(); }

int64_t gatherStride2PlaneRows(const Stride2RowTables &tables, const Stride2PlaneOperands &plane, int64_t firstRow,
                               int64_t endRow, float *sumsRow, Stride2Stores stores) {
    return HWY_DYNAMIC_DISPATCH(GatherStride2PlaneRows)(tables, plane, firstRow, endRow, sumsRow, stores);
}

}  // namespace poolgrad::cpu
#endif
