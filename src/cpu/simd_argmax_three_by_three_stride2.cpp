// Highway implementation of simd_argmax_three_by_three_stride2.h: one source compiled for every target (the
// scalar target searches one window per "vector").
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_three_by_three_stride2.cpp"
#include "cpu/simd_argmax_three_by_three_stride2.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/prefetch.h"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_lanes-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
#include "cpu/simd_widen_sixteen_bit-inl.h"
// clang-format on
#include "cpu/lambda_inline.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using FloatTag = hn::CappedTag<float, 16>;
using IndexTag = hn::RebindToSigned<FloatTag>;
using VF = hn::Vec<FloatTag>;
using VI = hn::Vec<IndexTag>;

// 0, 2, 4, ... and 0, 1, 2, ...: lane constants (from tables: Iota builds its vector through memory).
HWY_ALIGN constexpr int32_t kEvenLanes[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
HWY_ALIGN constexpr int32_t kLanes[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// AVX2: Interior chunks keep their windows in the order that shuffles within 128-bit halves leave them (windows
// 0, 1, 4, 5 | 2, 3, 6, 7 of the chunk), from the search through the carried rows, and storeChunk restores the
// order once per output vector. Each tap is then one in-lane shuffle of two loads (a window's taps: the even
// columns of the pair at base, the odd and even ones of the pair at base + 1) instead of the lane-crossing
// ConcatEven / ConcatOdd and the shift that made tap 2 (four lane-crossing permutes a row).
#if HWY_TARGET == HWY_AVX2
constexpr bool kInLaneOrder = true;
HWY_ALIGN constexpr int32_t kEvenLanesInLaneOrder[8] = {0, 2, 8, 10, 4, 6, 12, 14};
HWY_INLINE VF evenColumns(VF low, VF high) { return VF{_mm256_shuffle_ps(low.raw, high.raw, 0x88)}; }
HWY_INLINE VF oddColumns(VF low, VF high) { return VF{_mm256_shuffle_ps(low.raw, high.raw, 0xDD)}; }
HWY_INLINE VF inNaturalOrder(VF v) {
    return VF{_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v.raw), 0xD8))};
}
HWY_INLINE VI inNaturalOrder(VI v) { return VI{_mm256_permute4x64_epi64(v.raw, 0xD8)}; }
#else
constexpr bool kInLaneOrder = false;
#endif

template <auto Kind>
constexpr bool inLaneOrder() {
    return kInLaneOrder && (Kind == decltype(Kind)::Interior || Kind == decltype(Kind)::InteriorOdd);
}

// How a vector of windows reads a row. Interior: every tap inside the row, the loads too (InteriorOdd: windows
// starting on odd columns, padding 1). LeftPadded: the row's first windows with padding 1 (lane 0's first tap
// is column -1), loads from column 0 on. Edge: anything else (a row's end, rows narrower than two vectors):
// masked loads, clipped taps replaced by their neighbours.
enum class ChunkKind { Interior, InteriorOdd, LeftPadded, Edge };

struct Chunk {
    int64_t firstWindow;  // output column of lane 0
    int64_t count;        // windows that exist (lanes from count on are computed and not stored)
    ChunkKind kind;
    bool detectFirstTap;  // the row's first column is lane 0's tap 0 and no other chunk's detector covers it
};

// The chunks of an output row: vectors of `lanes` windows from column 0; a last vector that would leave the row
// moves back to end at the row's end where it then fits inside it (windows computed twice agree), else the
// row's end goes to Edge chunks.
std::vector<Chunk> chunksOf(const ThreeByThreeStride2Rows &job, int64_t lanes) {
    std::vector<Chunk> chunks;
    const int64_t outputs = job.outputWidth, width = job.width;
    const auto inside = [&](int64_t first) {  // an Interior chunk at `first` reads only the row
        const int64_t base = 2 * first - job.padLeft;
        return first + lanes <= outputs && base >= 0 && base + 2 * lanes <= width - 1;
    };
    int64_t next = 0;
    if (job.padLeft == 1 && lanes <= outputs && 2 * lanes - 1 <= width - 1) {
        chunks.push_back({0, lanes, ChunkKind::LeftPadded, false});
        next = lanes;
    }
    const ChunkKind interior = job.padLeft == 1 ? ChunkKind::InteriorOdd : ChunkKind::Interior;
    while (next < outputs && inside(next)) {
        chunks.push_back({next, lanes, interior, next == 0});
        next += lanes;
    }
    if (next < outputs && outputs >= lanes && outputs - lanes <= next && inside(outputs - lanes)) {
        chunks.push_back({outputs - lanes, lanes, interior, false});
        next = outputs;
    }
    for (; next < outputs; next += lanes)
        chunks.push_back({next, std::min(lanes, outputs - next), ChunkKind::Edge, true});
    return chunks;
}

// One input row's winner per window of a chunk: value and column.
struct RowWinner {
    VF value;
    VI column;
};

template <bool NanRule>
HWY_INLINE hn::Mask<FloatTag> takes(VF value, VF best) {
    if constexpr (NanRule)
        return hn::Or(hn::Gt(value, best), hn::IsNaN(value));
    else
        return hn::Gt(value, best);
}

// The values a search reads, as float32 vectors: float32 itself, or the bits of float16 / bfloat16 widened
// exactly (comparisons are those of the values; the outputs take the input's own bits, storeChunk).
template <ArgmaxValueType Type>
struct Values {
    using In = std::conditional_t<Type == ArgmaxValueType::Float32, float, uint16_t>;
    static HWY_INLINE VF widen(hn::Vec<hn::Rebind<uint16_t, FloatTag>> bits) {
        return widenSixteenBit<Type == ArgmaxValueType::Float16>(FloatTag(), bits);
    }
    // Lanes(FloatTag) values from p.
    static HWY_INLINE VF load(const In *HWY_RESTRICT p) {
        if constexpr (Type == ArgmaxValueType::Float32)
            return hn::LoadU(FloatTag(), p);
        else
            return widen(hn::LoadU(hn::Rebind<uint16_t, FloatTag>(), p));
    }
    static HWY_INLINE VF broadcast(In value) {
        if constexpr (Type == ArgmaxValueType::Float32)
            return hn::Set(FloatTag(), value);
        else
            return widen(hn::Set(hn::Rebind<uint16_t, FloatTag>(), value));
    }
};

// The three taps of the chunk's windows on one row, with their columns as offsets from each window's first
// column (chunkColumns): 0, 1, 2, or a neighbour's where a tap is clipped. Every kind but Edge has constant
// offsets, so a row's search does no column arithmetic; the chunk's columns and the row's start are added once
// per output vector (searchChunk, searchChunkCarried).
struct Taps {
    VF t0, t1, t2;
    VI c0, c1, c2;
};

// Each window's first column (base + 2 * window), in the order the chunk's kind keeps its windows.
template <ChunkKind Kind>
HWY_INLINE VI chunkColumns(int64_t base) {
    const IndexTag di;
    const VI first = hn::Set(di, static_cast<int32_t>(base));
#if HWY_TARGET == HWY_AVX2
    if constexpr (inLaneOrder<Kind>()) return hn::Add(hn::Load(di, kEvenLanesInLaneOrder), first);
#endif
    return hn::Add(hn::Load(di, kEvenLanes), first);
}

template <ChunkKind Kind, ArgmaxValueType Type>
HWY_INLINE Taps tapsOf(const typename Values<Type>::In *HWY_RESTRICT row, int64_t width, int64_t base) {
    using V = Values<Type>;
    const FloatTag d;
    const IndexTag di;
    Taps taps;
    taps.c0 = hn::Zero(di);
    taps.c1 = hn::Set(di, 1);
    taps.c2 = hn::Set(di, 2);
#if HWY_TARGET == HWY_SCALAR
    // One window: its columns clipped to the row, each missing one replaced by its neighbour in the window.
    (void)d;
    const int64_t c0 = base < 0 ? base + 1 : base;
    const int64_t c1 = base + 1 < width ? base + 1 : c0;
    const int64_t c2 = base + 2 < width ? base + 2 : c1;
    taps.t0 = V::broadcast(row[c0]);
    taps.t1 = V::broadcast(row[c1]);
    taps.t2 = V::broadcast(row[c2]);
    taps.c0 = hn::Set(di, static_cast<int32_t>(c0 - base));
    taps.c1 = hn::Set(di, static_cast<int32_t>(c1 - base));
    taps.c2 = hn::Set(di, static_cast<int32_t>(c2 - base));
#else
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
#if HWY_TARGET == HWY_AVX2
    if constexpr (inLaneOrder<Kind>()) {
        // Columns base .. base + 16, inside the row for both interior kinds.
        const VF low = V::load(row + base), high = V::load(row + base + lanes);
        const VF nextLow = V::load(row + base + 1), nextHigh = V::load(row + base + 1 + lanes);
        taps.t0 = evenColumns(low, high);
        taps.t1 = evenColumns(nextLow, nextHigh);
        taps.t2 = oddColumns(nextLow, nextHigh);
        return taps;
    }
#endif
    if constexpr (Kind == ChunkKind::InteriorOdd) {
        // An odd first column (padding 1): the pair loaded from the even column after it, which starts a line
        // wherever the row does (unaligned 64-byte loads cross two lines each). Tap 1 is its even columns, tap
        // 2 its odd ones, tap 0 tap 2 one lane up with the first column in lane 0.
        const VF low = V::load(row + base + 1), high = V::load(row + base + 1 + lanes);
        taps.t1 = hn::ConcatEven(d, high, low);
        taps.t2 = hn::ConcatOdd(d, high, low);
        taps.t0 = shiftUpLanes<1>(d, taps.t2, V::broadcast(row[base]));
    } else if constexpr (Kind == ChunkKind::Interior) {
        const VF low = V::load(row + base), high = V::load(row + base + lanes);
        taps.t0 = hn::ConcatEven(d, high, low);
        taps.t1 = hn::ConcatOdd(d, high, low);
        // Tap 2 is tap 0 one lane on, the last lane's from the column after the pair.
        taps.t2 = lanesFrom<1>(d, taps.t0, V::broadcast(row[base + 2 * lanes]));
    } else if constexpr (Kind == ChunkKind::LeftPadded) {
        // base = -1: columns 0, 2, ... are tap 1, columns 1, 3, ... tap 2, and tap 0 is tap 2 one lane up,
        // lane 0 (column -1) taking tap 1's column 0.
        const VF low = V::load(row), high = V::load(row + lanes);
        taps.t1 = hn::ConcatEven(d, high, low);
        taps.t2 = hn::ConcatOdd(d, high, low);
        const auto laneZero = hn::FirstN(d, 1);
        taps.t0 = hn::IfThenElse(laneZero, taps.t1, shiftUpLanes<1>(d, taps.t2, taps.t2));
        taps.c0 = hn::IfThenElse(hn::RebindMask(di, laneZero), taps.c1, taps.c0);
    } else {
        // Only columns inside the row are read; a tap outside it takes the next tap of its window (column -1)
        // or the previous one (columns from width on).
        const VI lane = hn::Load(di, kLanes), start = hn::Set(di, static_cast<int32_t>(base)),
                 end = hn::Set(di, static_cast<int32_t>(width)), zero = hn::Zero(di), minusOne = hn::Set(di, -1),
                 first = chunkColumns<Kind>(base);
        // 16-bit rows: the columns the chunk reads copied first (0 outside the row).
        [[maybe_unused]] HWY_ALIGN uint16_t copied[2 * hn::MaxLanes(FloatTag()) + 2];
        if constexpr (Type != ArgmaxValueType::Float32) {
            for (int64_t j = 0; j < 2 * lanes + 2; ++j)
                copied[j] = base + j >= 0 && base + j < width ? row[base + j] : uint16_t{0};
        }
        const auto load = [&](int64_t offset) {
            if constexpr (Type != ArgmaxValueType::Float32) {
                return V::load(copied + offset);
            } else {
                const VI column = hn::Add(lane, hn::Add(start, hn::Set(di, static_cast<int32_t>(offset))));
                const auto inRow = hn::And(hn::Gt(column, minusOne), hn::Lt(column, end));
                return MaskedLoadUnaligned(hn::RebindMask(d, inRow), d, row + base + offset);
            }
        };
        const VF low = load(0), high = load(lanes);
        taps.t0 = hn::ConcatEven(d, high, low);
        taps.t1 = hn::ConcatOdd(d, high, low);
        taps.t2 = hn::ConcatOdd(d, load(1 + lanes), load(1));
        // Tap j of a window is clipped when first + j is before column 0 or past column width - 1.
        const auto before = hn::Lt(first, zero);
        taps.t0 = hn::IfThenElse(hn::RebindMask(d, before), taps.t1, taps.t0);
        taps.c0 = hn::IfThenElse(before, taps.c1, taps.c0);
        const auto past1 = hn::Gt(first, hn::Set(di, static_cast<int32_t>(width - 2)));
        taps.t1 = hn::IfThenElse(hn::RebindMask(d, past1), taps.t0, taps.t1);
        taps.c1 = hn::IfThenElse(past1, taps.c0, taps.c1);
        const auto past2 = hn::Gt(first, hn::Set(di, static_cast<int32_t>(width - 3)));
        taps.t2 = hn::IfThenElse(hn::RebindMask(d, past2), taps.t1, taps.t2);
        taps.c2 = hn::IfThenElse(past2, taps.c1, taps.c2);
    }
#endif
    return taps;
}

// The row winners of a chunk's windows on one row. Fast (no NanRule): the detector takes the products of taps
// 1 and 2 (and tap 0 where the chunk covers the row's first column).
template <bool NanRule, ChunkKind Kind, ArgmaxValueType Type>
HWY_INLINE RowWinner searchRow(const typename Values<Type>::In *HWY_RESTRICT row, int64_t width, int64_t base,
                               bool detectFirstTap, VF &detector) {
    const Taps taps = tapsOf<Kind, Type>(row, width, base);
    if constexpr (!NanRule) {
        detector = hn::MulAdd(taps.t1, taps.t2, detector);
        if (Kind == ChunkKind::Edge || detectFirstTap) detector = hn::MulAdd(taps.t0, taps.t0, detector);
    }
    RowWinner winner{taps.t0, taps.c0};
    const auto take1 = takes<NanRule>(taps.t1, winner.value);
    winner.value = hn::IfThenElse(take1, taps.t1, winner.value);
    winner.column = hn::IfThenElse(hn::RebindMask(IndexTag(), take1), taps.c1, winner.column);
    const auto take2 = takes<NanRule>(taps.t2, winner.value);
    winner.value = hn::IfThenElse(take2, taps.t2, winner.value);
    winner.column = hn::IfThenElse(hn::RebindMask(IndexTag(), take2), taps.c2, winner.column);
    return winner;
}

// The first `count` winners of a chunk to the output planes at `at`. (Streaming stores were tried: D-fwd's rows
// made in an L1 staging area and streamed out as whole lines ran as fast cold and 1.6x slower warm.)
// 16-bit values come out as the input elements' own bits: narrowed back where that is exact, else copied from
// the elements the indices name.
template <ArgmaxValueType Type>
HWY_INLINE void storeChunk(const ThreeByThreeStride2Rows &job, int64_t at, int64_t count, VF values, VI indices) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const bool whole = count == lanes;
    if constexpr (Type == ArgmaxValueType::Float32) {
        float *out = static_cast<float *>(job.values) + at;
        if (whole)
            hn::StoreU(values, d, out);
        else
            storeFirstLanes(d, values, out, static_cast<size_t>(count));
    } else {
        uint16_t *out = static_cast<uint16_t *>(job.values) + at;
        const hn::Rebind<uint16_t, FloatTag> d16;
        hn::Vec<decltype(d16)> bits;
        if (narrowSixteenBitExactly<Type == ArgmaxValueType::Float16>(d, values, bits)) {
            if (whole)
                hn::StoreU(bits, d16, out);
            else
                storeFirstLanes(d16, bits, out, static_cast<size_t>(count));
        } else {  // the input elements the indices name, copied
            HWY_ALIGN int32_t positions[hn::MaxLanes(IndexTag())];
            hn::Store(indices, di, positions);
            const uint16_t *plane = static_cast<const uint16_t *>(job.plane);
            for (int64_t i = 0; i < count; ++i) out[i] = plane[positions[i]];
        }
    }
    if (job.indices32) {
        if (whole)
            hn::StoreU(indices, di, job.indices32 + at);
        else
            storeFirstLanes(di, indices, job.indices32 + at, static_cast<size_t>(count));
    } else if (job.indices64) {
#if HWY_TARGET == HWY_SCALAR
        job.indices64[at] = hn::GetLane(indices);
#else
        const hn::Half<IndexTag> dh;
        const hn::Repartition<int64_t, IndexTag> d64;
        const int64_t half = static_cast<int64_t>(hn::Lanes(d64));
        const auto low = hn::PromoteTo(d64, hn::LowerHalf(dh, indices)),
                   high = hn::PromoteTo(d64, hn::UpperHalf(dh, indices));
        if (whole) {
            hn::StoreU(low, d64, job.indices64 + at);
            hn::StoreU(high, d64, job.indices64 + at + half);
        } else {
            storeFirstLanes(d64, low, job.indices64 + at, static_cast<size_t>(std::min(count, half)));
            if (count > half) storeFirstLanes(d64, high, job.indices64 + at + half, static_cast<size_t>(count - half));
        }
#endif
    }
}

// Where a search's winners go: the operator's outputs (values, and indices of either width or none), or a volume
// search's slots of slice winners (values and int32 positions, always both), whose whole vectors are stored
// without asking which outputs exist or whether the chunk is whole.
enum class Destination { Outputs, Slots };

// storeChunk for a chunk searched as Kind: windows kept in the in-lane order are put back in order first.
template <ChunkKind Kind, ArgmaxValueType Type, Destination To>
HWY_INLINE void storeChunkOfKind(const ThreeByThreeStride2Rows &job, int64_t at, int64_t count, VF values, VI indices) {
#if HWY_TARGET == HWY_AVX2
    if constexpr (inLaneOrder<Kind>()) {
        values = inNaturalOrder(values);
        indices = inNaturalOrder(indices);
    }
#endif
    if constexpr (To == Destination::Slots && Type == ArgmaxValueType::Float32 && Kind != ChunkKind::Edge) {
        hn::StoreU(values, FloatTag(), static_cast<float *>(job.values) + at);  // every lane a window (chunksOf)
        hn::StoreU(indices, IndexTag(), job.indices32 + at);
    } else {
        storeChunk<Type>(job, at, count, values, indices);
    }
}

// Row winners kept from one output row for the next: per chunk a vector of values and one of columns.
struct CarriedRows {
    float *values;
    int32_t *columns;
    int64_t row = -1;  // the input row they belong to (-1: none)
};

template <bool NanRule, ChunkKind Kind, ArgmaxValueType Type, Destination To>
HWY_INLINE void searchChunk(const ThreeByThreeStride2Rows &job, const Chunk &chunk, size_t k, int64_t firstRow,
                            int64_t lastRow, int64_t keptRow, const CarriedRows &carriedIn, CarriedRows &carriedOut,
                            int64_t outputStart, VF &detector) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const int64_t base = 2 * chunk.firstWindow - job.padLeft;
    VF best = hn::Zero(d);
    VI index = hn::Zero(di);
    for (int64_t r = firstRow; r <= lastRow; ++r) {
        RowWinner winner;
        if (r == carriedIn.row) {
            winner.value = hn::Load(d, carriedIn.values + k * lanes);
            winner.column = hn::Load(di, carriedIn.columns + k * lanes);
        } else {
            winner = searchRow<NanRule, Kind, Type>(
                static_cast<const typename Values<Type>::In *>(job.plane) + r * job.width, job.width, base,
                chunk.detectFirstTap, detector);
        }
        if (r == keptRow) {
            hn::Store(winner.value, d, carriedOut.values + k * lanes);
            hn::Store(winner.column, di, carriedOut.columns + k * lanes);
        }
        const VI position = hn::Add(winner.column, hn::Set(di, static_cast<int32_t>(r * job.width)));
        if (r == firstRow) {
            best = winner.value;
            index = position;
            continue;
        }
        const auto take = takes<NanRule>(winner.value, best);
        best = hn::IfThenElse(take, winner.value, best);
        index = hn::IfThenElse(hn::RebindMask(di, take), position, index);
    }
    index = hn::Add(index, chunkColumns<Kind>(base));
    storeChunkOfKind<Kind, Type, To>(job, outputStart + chunk.firstWindow, chunk.count, best, index);
}

// The plane positions of the starts of an output row's three input rows (top, top + 1, top + 2), as vectors.
struct RowStarts {
    VI first, second, third;
};

// The common case of searchChunk as straight-line code: three rows, the first carried, the last kept.
// DetectFirstTap: chunk.detectFirstTap, known where the call is made (Edge chunks: true).
template <bool NanRule, ChunkKind Kind, bool DetectFirstTap, ArgmaxValueType Type, Destination To>
HWY_INLINE void searchChunkCarried(const ThreeByThreeStride2Rows &job, const Chunk &chunk, size_t k, int64_t top,
                                   const RowStarts &starts, const CarriedRows &carriedIn, CarriedRows &carriedOut,
                                   int64_t outputStart, VF &detector) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const int64_t base = 2 * chunk.firstWindow - job.padLeft;
    const auto *row1 = static_cast<const typename Values<Type>::In *>(job.plane) + (top + 1) * job.width;
    const RowWinner w1 = searchRow<NanRule, Kind, Type>(row1, job.width, base, DetectFirstTap, detector);
    const RowWinner w2 = searchRow<NanRule, Kind, Type>(row1 + job.width, job.width, base, DetectFirstTap, detector);
    hn::Store(w2.value, d, carriedOut.values + k * lanes);
    hn::Store(w2.column, di, carriedOut.columns + k * lanes);
    VF best = hn::Load(d, carriedIn.values + k * lanes);
    VI index = hn::Add(hn::Load(di, carriedIn.columns + k * lanes), starts.first);
    const auto take1 = takes<NanRule>(w1.value, best);
    best = hn::IfThenElse(take1, w1.value, best);
    index = hn::IfThenElse(hn::RebindMask(di, take1), hn::Add(w1.column, starts.second), index);
    const auto take2 = takes<NanRule>(w2.value, best);
    best = hn::IfThenElse(take2, w2.value, best);
    index = hn::IfThenElse(hn::RebindMask(di, take2), hn::Add(w2.column, starts.third), index);
    index = hn::Add(index, chunkColumns<Kind>(base));
    storeChunkOfKind<Kind, Type, To>(job, outputStart + chunk.firstWindow, chunk.count, best, index);
}

// The next plane's first rows read ahead of the search into the L2, from the last output rows of this plane on:
// the hardware prefetcher follows a plane's rows but not the jump to the next one (D-fwd, 2 threads, cold:
// 3.2-3.7 ms with rows 8 to 80 ahead against 4.7-5.2 without; rows ahead within the plane only: no change, so
// they are not asked for, which saves a tenth of B-fwd's instructions).
constexpr int64_t kPrefetchBytesAhead = 4 << 10;

// Of the two rows the output row `rowsAhead` / 2 rows on will search first, from input row `next` on, those of
// the next plane.
template <ArgmaxValueType Type>
HWY_INLINE void prefetchRowsAhead(const ThreeByThreeStride2Rows &job, int64_t rowsAhead, int64_t next) {
    using In = typename Values<Type>::In;
    if (next + rowsAhead + 1 < job.height || !job.nextPlane) return;
    const In *nextPlane = static_cast<const In *>(job.nextPlane);
    for (int64_t r = std::max(next + rowsAhead, job.height) - job.height; r < next + rowsAhead + 2 - job.height; ++r)
        if (r < job.height) prefetchLines<PrefetchInto::SecondLevel>(nextPlane + r * job.width, job.width);
}

// body(kind) with the chunk kind as a compile-time constant (std::integral_constant).
template <class Body>
HWY_INLINE void withKind(ChunkKind kind, const Body &body) {
    switch (kind) {
        case ChunkKind::Interior:
            return body(std::integral_constant<ChunkKind, ChunkKind::Interior>());
        case ChunkKind::InteriorOdd:
            return body(std::integral_constant<ChunkKind, ChunkKind::InteriorOdd>());
        case ChunkKind::LeftPadded:
            return body(std::integral_constant<ChunkKind, ChunkKind::LeftPadded>());
        case ChunkKind::Edge:
            return body(std::integral_constant<ChunkKind, ChunkKind::Edge>());
    }
}

// What every output row of one geometry shares, made once per batch of jobs: the chunks (chunksOf's order: a
// LeftPadded one or none, a run of one interior kind, Edge ones), so that the carried search runs each kind's
// chunks in a loop of its own instead of dispatching on each chunk's kind (with the rest of this change,
// docs/kernels/forward.md: B-fwd-cache 14.56 M -> 12.13 M instructions), and the rows the search reads ahead.
struct RowPlan {
    std::vector<Chunk> chunks;
    size_t interiorBegin = 0, interiorEnd = 0;  // chunks [interiorBegin, interiorEnd) are of kind `interior`
    ChunkKind interior = ChunkKind::Interior;
    int64_t prefetchRowsAhead = 2;  // even: a pair of rows

    template <ArgmaxValueType Type>
    static RowPlan of(const ThreeByThreeStride2Rows &geometry) {
        RowPlan plan;
        plan.chunks = chunksOf(geometry, static_cast<int64_t>(hn::Lanes(FloatTag())));
        size_t k = !plan.chunks.empty() && plan.chunks[0].kind == ChunkKind::LeftPadded ? 1 : 0;
        plan.interiorBegin = k;
        while (k < plan.chunks.size() && plan.chunks[k].kind != ChunkKind::Edge) ++k;
        plan.interiorEnd = k;
        if (plan.interiorBegin < plan.interiorEnd) plan.interior = plan.chunks[plan.interiorBegin].kind;
        const int64_t rowBytes = geometry.width * static_cast<int64_t>(sizeof(typename Values<Type>::In));
        plan.prefetchRowsAhead = std::max<int64_t>(2, kPrefetchBytesAhead / rowBytes) & ~int64_t{1};
        return plan;
    }
};

// The carried case of an output row: chunksOf's order with each run of one kind in a loop of its own.
template <bool NanRule, ArgmaxValueType Type, Destination To>
HWY_INLINE void searchCarriedChunks(const ThreeByThreeStride2Rows &job, const RowPlan &plan, int64_t top,
                                    const CarriedRows &carriedIn, CarriedRows &carriedOut, int64_t outputStart,
                                    VF &detector) {
    // Copies of what the chunks read through references: a vector store may alias any memory (the intrinsics'
    // types are may_alias), so fields behind a reference are read again after every store; these copies' addresses
    // never leave this inlined search.
    const ThreeByThreeStride2Rows rowJob = job;
    const CarriedRows in = carriedIn;
    CarriedRows out = carriedOut;
    const Chunk *const chunks = plan.chunks.data();
    const IndexTag di;
    const RowStarts starts{hn::Set(di, static_cast<int32_t>(top * rowJob.width)),
                           hn::Set(di, static_cast<int32_t>((top + 1) * rowJob.width)),
                           hn::Set(di, static_cast<int32_t>((top + 2) * rowJob.width))};
    const auto search = [&](auto kind, auto detectFirstTap, size_t k) POOLGRAD_LAMBDA_INLINE {
        searchChunkCarried<NanRule, decltype(kind)::value, decltype(detectFirstTap)::value, Type, To>(
            rowJob, chunks[k], k, top, starts, in, out, outputStart, detector);
    };
    const size_t interiorBegin = plan.interiorBegin, interiorEnd = plan.interiorEnd, chunkCount = plan.chunks.size();
    const auto interiorRun = [&](auto kind) POOLGRAD_LAMBDA_INLINE {
        size_t k = interiorBegin;
        if (chunks[k].detectFirstTap) search(kind, std::true_type(), k++);
        for (; k < interiorEnd; ++k) search(kind, std::false_type(), k);
    };
    if (interiorBegin == 1) search(std::integral_constant<ChunkKind, ChunkKind::LeftPadded>(), std::false_type(), 0);
    if (interiorBegin < interiorEnd) {
        if (plan.interior == ChunkKind::InteriorOdd)
            interiorRun(std::integral_constant<ChunkKind, ChunkKind::InteriorOdd>());
        else
            interiorRun(std::integral_constant<ChunkKind, ChunkKind::Interior>());
    }
    for (size_t k = interiorEnd; k < chunkCount; ++k)
        search(std::integral_constant<ChunkKind, ChunkKind::Edge>(), std::true_type(), k);
}

// One output row; false when the fast search's detector saw a NaN (the row's outputs and kept winners are
// then not valid, and it is searched again with the rule).
template <bool NanRule, ArgmaxValueType Type, Destination To>
HWY_INLINE bool searchOutputRow(const ThreeByThreeStride2Rows &job, const RowPlan &plan, int64_t oh,
                                const CarriedRows &carriedIn, CarriedRows &carriedOut) {
    const int64_t top = 2 * oh - job.padTop;
    const int64_t firstRow = std::max<int64_t>(top, 0), lastRow = std::min<int64_t>(top + 2, job.height - 1);
    const int64_t keptRow = top + 2 <= job.height - 1 ? top + 2 : -1;  // the next output row's first row
    const int64_t outputStart = (oh - job.storedFromRow) * job.outputWidth;
    const bool carriedCase = top >= 0 && keptRow == top + 2 && carriedIn.row == top;
    if constexpr (!NanRule) prefetchRowsAhead<Type>(job, plan.prefetchRowsAhead, top + 3);
    VF detector = hn::Zero(FloatTag());
    if (carriedCase) {
        searchCarriedChunks<NanRule, Type, To>(job, plan, top, carriedIn, carriedOut, outputStart, detector);
    } else {
        for (size_t k = 0; k < plan.chunks.size(); ++k) {
            const Chunk &chunk = plan.chunks[k];
            withKind(chunk.kind, [&](auto kind) POOLGRAD_LAMBDA_INLINE {
                searchChunk<NanRule, decltype(kind)::value, Type, To>(job, chunk, k, firstRow, lastRow, keptRow,
                                                                      carriedIn, carriedOut, outputStart, detector);
            });
        }
    }
    carriedOut.row = keptRow;
    if constexpr (!NanRule) return hn::AllFalse(FloatTag(), hn::IsNaN(detector));
    return true;
}

// The row winners one plane's search keeps from one output row for the next, in two buffers of perBuffer
// values and columns taken in turns.
struct KeptRows {
    CarriedRows carried[2];
    int in = 0;  // the buffer the next output row reads

    KeptRows(float *values, int32_t *columns, size_t perBuffer)
        : carried{{values, columns}, {values + perBuffer, columns + perBuffer}} {}
};

// Storage for `planes` KeptRows of a search with `chunks` chunks a row.
struct KeptRowsStorage {
    size_t perBuffer;
    hwy::AlignedFreeUniquePtr<float[]> values;
    hwy::AlignedFreeUniquePtr<int32_t[]> columns;

    KeptRowsStorage(size_t chunks, size_t planes)
        : perBuffer(chunks * hn::Lanes(FloatTag())),
          values(hwy::AllocateAligned<float>(2 * perBuffer * planes)),
          columns(hwy::AllocateAligned<int32_t>(2 * perBuffer * planes)) {}
    KeptRows of(size_t plane) const {
        return KeptRows(values.get() + 2 * perBuffer * plane, columns.get() + 2 * perBuffer * plane, perBuffer);
    }
};

// Output row oh of a plane whose output rows before it (if any) were searched with the same `kept`.
template <ArgmaxValueType Type, Destination To>
HWY_INLINE void searchRow(const ThreeByThreeStride2Rows &job, const RowPlan &plan, int64_t oh, KeptRows &kept) {
    const CarriedRows &carriedIn = kept.carried[kept.in];
    CarriedRows &carriedOut = kept.carried[1 - kept.in];
    if (!searchOutputRow<false, Type, To>(job, plan, oh, carriedIn, carriedOut))
        searchOutputRow<true, Type, To>(job, plan, oh, carriedIn, carriedOut);
    kept.in = 1 - kept.in;
}

// The winners of one output depth's Count slices (in scan order) as its output rows read them: values and
// positions within the slice at values[s] + at and positions[s] + at for the output at `at` of the depth's
// slice-winner block, and each slice's first plane position (offsets). Made once per output depth and block.
template <ArgmaxValueType Type>
struct DepthSlices {
    const typename Values<Type>::In *values[3];
    const int32_t *positions[3];
    VI offsets[3];
};

// One output row of a 3-D plane: its Count slices' winners from `at` on combined window by window with the NaN
// rule; positions become the plane's by adding the slice's offset. Outputs are one contiguous run of `outputs`
// >= lanes elements from `outputStart`: a last vector that would leave it moves back.
template <ArgmaxValueType Type, int Count>
HWY_INLINE void combineSlices(const ThreeByThreeStride2Rows &out, int64_t outputStart, int64_t outputs,
                              const DepthSlices<Type> &slices, int64_t at) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t next = 0; next < outputs; next += lanes) {
        const int64_t from = at + std::min(next, outputs - lanes);
        VF best = Values<Type>::load(slices.values[0] + from);
        VI index = hn::Add(hn::LoadU(di, slices.positions[0] + from), slices.offsets[0]);
        for (int s = 1; s < Count; ++s) {
            const VF value = Values<Type>::load(slices.values[s] + from);
            const auto take = takes<true>(value, best);
            best = hn::IfThenElse(take, value, best);
            index = hn::IfThenElse(hn::RebindMask(di, take),
                                   hn::Add(hn::LoadU(di, slices.positions[s] + from), slices.offsets[s]), index);
        }
        storeChunk<Type>(out, outputStart + from - at, lanes, best, index);
    }
}

// One job of searchVolumes, with what its batch made.
template <ArgmaxValueType Type>
void searchVolume(const ThreeByThreeStride2Volume &job, const RowPlan &plan, int64_t blockRows,
                  ThreeByThreeStride2Rows slice, std::vector<KeptRows> &kept, typename Values<Type>::In *slotValues,
                  int32_t *slotPositions) {
    using In = typename Values<Type>::In;
    const In *plane = static_cast<const In *>(job.plane);
    const int64_t sliceElements = job.height * job.width;
    const int64_t sliceOutputs = job.outputHeight * job.outputWidth;
    const int64_t outW = job.outputWidth;
    // Output depths are taken block of output rows by block: in a block, each slice the depths read is searched
    // once for the block's rows (its row winners kept from block to block), into one of three slots of a block's
    // slice winners (values with the input's bits, positions within the slice); a slot is reused once the slice it
    // holds is before every slice still needed. The new slices of an output depth are searched output row by
    // output row, each row's windows combined as soon as their slices' rows are in: the outputs' stores (which
    // miss the caches) then spread among the searches' work instead of coming in bursts (measured: a third of
    // the time stalled on whole slices' bursts).
    const int64_t slotOutputs = blockRows * outW;
    ThreeByThreeStride2Rows out{};
    out.type = job.type;
    out.plane = job.plane;
    out.values = job.values;
    out.indices32 = job.indices32;
    out.indices64 = job.indices64;
    for (int64_t blockStart = 0; blockStart < job.outputHeight; blockStart += blockRows) {
        const int64_t blockEnd = std::min(blockStart + blockRows, job.outputHeight);
        int64_t held[3] = {-1, -1, -1};  // the slice each slot holds
        for (int64_t od = job.firstDepth; od < job.endDepth; ++od) {
            const int64_t front = 2 * od - job.padFront;
            const int64_t first = std::max<int64_t>(front, 0), last = std::min<int64_t>(front + 2, job.depth - 1);
            int64_t windowSlices[3];
            int slotOf[3];
            int64_t searched[3];  // the slices searched for this output depth
            int count = 0, searches = 0;
            for (int64_t s = first; s <= last; ++s, ++count) {
                int slot = 0;
                while (slot < 3 && held[slot] != s) ++slot;
                if (slot == 3) {
                    slot = 0;
                    while (held[slot] >= first) ++slot;
                    held[slot] = s;
                    searched[searches++] = s;
                }
                windowSlices[count] = s;
                slotOf[count] = slot;
            }
            DepthSlices<Type> depthSlices;
            for (int k = 0; k < count; ++k) {
                depthSlices.values[k] = slotValues + slotOf[k] * slotOutputs;
                depthSlices.positions[k] = slotPositions + slotOf[k] * slotOutputs;
                depthSlices.offsets[k] = hn::Set(IndexTag(), static_cast<int32_t>(windowSlices[k] * sliceElements));
            }
            for (int64_t oh = blockStart; oh < blockEnd; ++oh) {
                for (int k = 0; k < searches; ++k) {
                    const int64_t s = searched[k];
                    const int slot = slotOf[s - first];
                    slice.plane = plane + s * sliceElements;
                    slice.nextPlane = s + 1 < job.depth ? plane + (s + 1) * sliceElements : job.nextPlane;
                    slice.values = slotValues + slot * slotOutputs;
                    slice.indices32 = slotPositions + slot * slotOutputs;
                    slice.storedFromRow = blockStart;
                    searchRow<Type, Destination::Slots>(slice, plan, oh, kept[static_cast<size_t>(s)]);
                }
                const int64_t outputStart = od * sliceOutputs + oh * outW, at = (oh - blockStart) * outW;
                if (count == 3)
                    combineSlices<Type, 3>(out, outputStart, outW, depthSlices, at);
                else if (count == 2)
                    combineSlices<Type, 2>(out, outputStart, outW, depthSlices, at);
                else
                    combineSlices<Type, 1>(out, outputStart, outW, depthSlices, at);
            }
        }
    }
}

// The jobs of a batch share one geometry: what depends on it only (the row plan, the kept rows, the slots) is
// made once for all of them (per plane it was a sixth of B-fwd's instructions in cache, mostly allocations).
template <ArgmaxValueType Type>
void searchVolumes(std::span<const ThreeByThreeStride2Volume> jobs) {
    using In = typename Values<Type>::In;
    const ThreeByThreeStride2Volume &geometry = jobs.front();
    const int64_t outW = geometry.outputWidth;
    // The three slots of a block's slice winners stay in the L1 (kVolumeSlotBytes, 32 KiB): slices whose winners
    // fit are searched whole, so that the input is read slice after slice, in order (B-fwd, 32x32 windows a slice,
    // 2 threads, against blocks of 8 KiB of a slice's rows: 0.61 / 1.00 ms warm / cold against 0.65 / 1.16); larger
    // ones in blocks of output rows (2 threads, 2 planes of 3x1024x208: 0.25 ms, with 256 KiB of slots 0.35-0.41,
    // whole slices 0.80; 16 planes of 9x512x512: 8.6 ms against 10.5-11.8).
    const int64_t blockRows = std::clamp<int64_t>(
        kVolumeSlotBytes / (3 * outW * static_cast<int64_t>(sizeof(In) + sizeof(int32_t))), 1, geometry.outputHeight);
    ThreeByThreeStride2Rows slice{};
    slice.type = geometry.type;
    slice.height = geometry.height;
    slice.width = geometry.width;
    slice.outputHeight = geometry.outputHeight;
    slice.outputWidth = outW;
    slice.padTop = geometry.padTop;
    slice.padLeft = geometry.padLeft;
    const RowPlan plan = RowPlan::of<Type>(slice);
    const KeptRowsStorage keptStorage(plan.chunks.size(), static_cast<size_t>(geometry.depth));
    std::vector<KeptRows> kept;
    kept.reserve(static_cast<size_t>(geometry.depth));
    const int64_t slotOutputs = blockRows * outW;
    const hwy::AlignedFreeUniquePtr<In[]> slotValues = hwy::AllocateAligned<In>(3 * static_cast<size_t>(slotOutputs));
    const hwy::AlignedFreeUniquePtr<int32_t[]> slotPositions =
        hwy::AllocateAligned<int32_t>(3 * static_cast<size_t>(slotOutputs));
    for (const ThreeByThreeStride2Volume &job : jobs) {
        kept.clear();
        for (int64_t s = 0; s < job.depth; ++s) kept.push_back(keptStorage.of(static_cast<size_t>(s)));
        searchVolume<Type>(job, plan, blockRows, slice, kept, slotValues.get(), slotPositions.get());
    }
}

void ArgmaxThreeByThreeStride2Volumes(std::span<const ThreeByThreeStride2Volume> jobs) {
    if (jobs.empty()) return;
    switch (jobs.front().type) {
        case ArgmaxValueType::Float16:
            return searchVolumes<ArgmaxValueType::Float16>(jobs);
        case ArgmaxValueType::BFloat16:
            return searchVolumes<ArgmaxValueType::BFloat16>(jobs);
        default:
            return searchVolumes<ArgmaxValueType::Float32>(jobs);
    }
}

template <ArgmaxValueType Type>
void searchRowsOfPlanes(std::span<const ThreeByThreeStride2Rows> jobs) {
    const RowPlan plan = RowPlan::of<Type>(jobs.front());
    const KeptRowsStorage storage(plan.chunks.size(), 1);
    for (const ThreeByThreeStride2Rows &job : jobs) {
        KeptRows kept = storage.of(0);
        for (int64_t oh = job.firstRow; oh < job.endRow; ++oh)
            searchRow<Type, Destination::Outputs>(job, plan, oh, kept);
    }
}

void ArgmaxThreeByThreeStride2Rows(std::span<const ThreeByThreeStride2Rows> jobs) {
    if (jobs.empty()) return;
    switch (jobs.front().type) {
        case ArgmaxValueType::Float16:
            return searchRowsOfPlanes<ArgmaxValueType::Float16>(jobs);
        case ArgmaxValueType::BFloat16:
            return searchRowsOfPlanes<ArgmaxValueType::BFloat16>(jobs);
        default:
            return searchRowsOfPlanes<ArgmaxValueType::Float32>(jobs);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxThreeByThreeStride2Rows);
HWY_EXPORT(ArgmaxThreeByThreeStride2Volumes);

void argmaxThreeByThreeStride2Rows(std::span<const ThreeByThreeStride2Rows> jobs) {
    HWY_DYNAMIC_DISPATCH(ArgmaxThreeByThreeStride2Rows)(jobs);
}

void argmaxThreeByThreeStride2Volumes(std::span<const ThreeByThreeStride2Volume> jobs) {
    HWY_DYNAMIC_DISPATCH(ArgmaxThreeByThreeStride2Volumes)(jobs);
}

}  // namespace poolgrad::cpu
#endif
