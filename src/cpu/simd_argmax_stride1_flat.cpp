// Highway implementation of simd_argmax_stride1_flat.h: one source compiled for every target (the scalar target
// searches one window per "vector").
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_stride1_flat.cpp"
#include "cpu/simd_argmax_stride1_flat.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/checked_arithmetic.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_store-inl.h"
#include "cpu/simd_stride1_search_rule-inl.h"
// clang-format on
#include "cpu/lambda_inline.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes, as the scratch slack assumes (kFlatSlack).
using FloatTag = hn::CappedTag<float, 16>;
using IndexTag = hn::RebindToSigned<FloatTag>;
using VF = hn::Vec<FloatTag>;
using VI = hn::Vec<IndexTag>;

// What a row's copy found (per row in job.rowFindings).
constexpr uint8_t kRowHasNaN = 1, kRowHasNegativeZero = 2;

template <bool WithPositions, class Run>
HWY_INLINE void withSearch(uint8_t findings, const Run &run) {
    if (findings & kRowHasNaN)
        run.template operator()<Search::NanRule>();
    else if (!WithPositions && !(findings & kRowHasNegativeZero))
        run.template operator()<Search::Max>();
    else
        run.template operator()<Search::Fast>();
}

// Copies input row h into its padded row and notes whether it holds a NaN or a -0.
HWY_INLINE void copyRow(const Stride1FlatJob &job, int64_t h) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const float *HWY_RESTRICT from = job.plane + h * job.width;
    float *HWY_RESTRICT to = job.padded + h * job.paddedWidth + job.padLeft;
    const int64_t width = job.width;
    if (width < lanes) {
        // Narrower than a vector: lane by lane, nothing past the row read or written (its next columns are padding).
        uint8_t findings = 0;
        for (int64_t w = 0; w < width; ++w) {
            to[w] = from[w];
            findings |= from[w] != from[w] ? kRowHasNaN : 0;
            findings |= std::bit_cast<uint32_t>(from[w]) == 0x80000000u ? kRowHasNegativeZero : 0;
        }
        job.rowFindings[h] = findings;
        return;
    }
    auto nan = hn::Zero(d);  // x - x is 0, or NaN for a NaN or an infinity; NaN then stays
    // -0's bits are the lowest int32.
    auto lowest = hn::Set(di, std::numeric_limits<int32_t>::max());
    // The last vector moves back to end at the row's end.
    for (int64_t at = 0;; at += lanes) {
        at = std::min(at, width - lanes);
        const VF values = hn::LoadU(d, from + at);
        nan = hn::Add(nan, hn::Sub(values, values));
        lowest = hn::Min(lowest, hn::BitCast(di, values));
        hn::StoreU(values, d, to + at);
        if (at == width - lanes) break;
    }
    // An infinity also gives NaN here (inf - inf): a false alarm that only costs the NaN rule's extra compare.
    const bool hasNaN = !hn::AllFalse(d, hn::IsNaN(nan));
    const bool hasNegativeZero = !hn::AllFalse(di, hn::Eq(lowest, hn::Set(di, std::numeric_limits<int32_t>::min())));
    job.rowFindings[h] = static_cast<uint8_t>((hasNaN ? kRowHasNaN : 0) | (hasNegativeZero ? kRowHasNegativeZero : 0));
}

// The row winners of flat positions [begin, end) of the padded rows, a vector at a time.
// kFixedWidth: windows that many columns wide, the loop over the taps unrolled (0: any width).
template <Search Mode, bool WithPositions, int kFixedWidth>
HWY_INLINE void rowWinnersOfWidth(const Stride1FlatJob &job, int64_t begin, int64_t end) {
    const FloatTag d;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const int64_t kernelWidth = kFixedWidth > 0 ? kFixedWidth : job.kernelWidth;
    const VI one = hn::Set(di, 1);
    const float *HWY_RESTRICT padded = job.padded;
    for (int64_t p = begin; p < end; p += lanes) {
        // Tap 0 as it is, named by the window's first column inside the plane: a padding column's -inf is then
        // never replaced by another -inf, and a NaN there by a later one only.
        VF best = hn::LoadU(d, padded + p);
        VI winner, tap;
        if constexpr (WithPositions) {
            winner = hn::LoadU(di, job.firstPositions + p);
            tap = hn::Add(hn::LoadU(di, job.tapPositions + p), one);
        }
        for (int64_t j = 1; j < kernelWidth; ++j) {
            const VF value = hn::LoadU(d, padded + p + j);
            if constexpr (Mode == Search::Max) {
                best = hn::Max(best, value);
            } else {
                const auto take = takes<Mode>(value, best);
                best = hn::IfThenElse(take, value, best);
                if constexpr (WithPositions) {
                    winner = hn::IfThenElse(hn::RebindMask(di, take), tap, winner);
                    tap = hn::Add(tap, one);
                }
            }
        }
        hn::StoreU(best, d, job.rowValues + p);
        if constexpr (WithPositions) hn::StoreU(winner, di, job.rowPositions + p);
    }
}

// Windows 3 and 5 wide (Inception's 3x3, the 5x5 pyramid pooling) take the unrolled taps.
template <Search Mode, bool WithPositions>
HWY_INLINE void rowWinners(const Stride1FlatJob &job, int64_t begin, int64_t end) {
    if (job.kernelWidth == 3)
        rowWinnersOfWidth<Mode, WithPositions, 3>(job, begin, end);
    else if (job.kernelWidth == 5)
        rowWinnersOfWidth<Mode, WithPositions, 5>(job, begin, end);
    else
        rowWinnersOfWidth<Mode, WithPositions, 0>(job, begin, end);
}

using Winners = WindowWinners<FloatTag>;

// The row winners of padded row h at column c.
template <bool WithPositions>
HWY_INLINE Winners rowWinnersAt(const Stride1FlatJob &job, int64_t h, int64_t c) {
    Winners winners{hn::LoadU(FloatTag(), job.rowValues + h * job.paddedWidth + c), hn::Zero(IndexTag())};
    if constexpr (WithPositions) winners.position = hn::LoadU(IndexTag(), job.rowPositions + h * job.paddedWidth + c);
    return winners;
}

// The winners of rows [first, end) (first < end) at column c, in scan order.
template <Search Mode, bool WithPositions>
HWY_INLINE Winners foldRows(const Stride1FlatJob &job, int64_t first, int64_t end, int64_t c) {
    Winners winners = rowWinnersAt<WithPositions>(job, first, c);
    for (int64_t h = first + 1; h < end; ++h) takeLater<Mode, WithPositions>(winners, rowWinnersAt<WithPositions>(job, h, c));
    return winners;
}

// Stores the winners of output row oh's windows [c, c + lanes), or of its first outputWidth windows when the row is
// narrower than a vector (lane by lane).
template <bool WithPositions>
HWY_INLINE void storeWinners(const Stride1FlatJob &job, int64_t oh, int64_t c, const Winners &winners) {
    const FloatTag d;
    const IndexTag di;
    const int64_t outW = job.outputWidth;
    float *values = job.values + oh * outW + c;
    int32_t *indices32 = job.indices32 ? job.indices32 + oh * outW + c : nullptr;
    int64_t *indices64 = job.indices64 ? job.indices64 + oh * outW + c : nullptr;
    if (outW < static_cast<int64_t>(hn::Lanes(d))) {
        HWY_ALIGN float valueLanes[16];
        HWY_ALIGN int32_t positionLanes[16];
        hn::Store(winners.value, d, valueLanes);
        hn::Store(winners.position, di, positionLanes);
        std::memcpy(values, valueLanes, static_cast<size_t>(outW) * sizeof(float));
        for (int64_t w = 0; w < outW; ++w) {
            if (indices32) indices32[w] = positionLanes[w];
            if (indices64) indices64[w] = positionLanes[w];
        }
        return;
    }
    storeVector(d, winners.value, values, job.streaming);
    if constexpr (WithPositions) storeInt32Lanes(di, winners.position, indices32, indices64, job.streaming);
}

// Calls body(c) for the vectors of an output row's windows: from column 0, the last moved back to end at the row's
// end (windows computed twice agree), or one vector for a row narrower than it (its other lanes read scratch and
// are never stored).
template <class Body>
HWY_INLINE void forEachOutputVector(int64_t outW, const Body &body) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(FloatTag()));
    if (outW < lanes) {
        body(int64_t{0});
        return;
    }
    for (int64_t at = 0;; at += lanes) {
        at = std::min(at, outW - lanes);
        body(at);
        if (at == outW - lanes) break;
    }
}

// Output row oh, whose window rows inside the plane are [first, end): their row winners in scan order.
template <Search Mode, bool WithPositions>
HWY_INLINE void outputRow(const Stride1FlatJob &job, int64_t oh, int64_t first, int64_t end) {
    forEachOutputVector(job.outputWidth, [&](int64_t c) POOLGRAD_LAMBDA_INLINE {
        storeWinners<WithPositions>(job, oh, c, foldRows<Mode, WithPositions>(job, first, end, c));
    });
}

// Output rows oh and oh + 1, whose window rows [first, end) and [nextFirst, nextEnd) share [nextFirst, end): the
// shared rows are folded once, then taken into the first row's earlier rows and followed by the second row's later
// ones (the rule is associative: it orders winners by NaN-ness, value and scan position). Two output rows at a time
// also give the compare chains of two independent rows to overlap.
template <Search Mode, bool WithPositions>
HWY_INLINE void outputRowPair(const Stride1FlatJob &job, int64_t oh, int64_t first, int64_t end, int64_t nextFirst,
                              int64_t nextEnd) {
    forEachOutputVector(job.outputWidth, [&](int64_t c) POOLGRAD_LAMBDA_INLINE {
        const Winners shared = foldRows<Mode, WithPositions>(job, nextFirst, end, c);
        Winners upper = shared;
        if (first < nextFirst) {
            upper = foldRows<Mode, WithPositions>(job, first, nextFirst, c);
            takeLater<Mode, WithPositions>(upper, shared);
        }
        Winners lower = shared;
        for (int64_t h = end; h < nextEnd; ++h)
            takeLater<Mode, WithPositions>(lower, rowWinnersAt<WithPositions>(job, h, c));
        storeWinners<WithPositions>(job, oh, c, upper);
        storeWinners<WithPositions>(job, oh + 1, c, lower);
    });
}

template <bool WithPositions>
HWY_INLINE void argmaxFlat(const Stride1FlatJob &job) {
    const int64_t H = job.height, kh = job.kernelHeight, stride = job.paddedWidth;
    // The input rows the block's windows reach.
    const int64_t inFirst = std::max<int64_t>(job.firstRow - job.padTop, 0);
    const int64_t inEnd = std::min<int64_t>(job.endRow - 1 - job.padTop + kh, H);
    const auto copyRows = [&](int64_t from, int64_t to) POOLGRAD_LAMBDA_INLINE {
        for (int64_t h = from; h < to; ++h) copyRow(job, h);
    };
    const auto windowRows = [&](int64_t oh, int64_t &first, int64_t &end) POOLGRAD_LAMBDA_INLINE {
        first = std::max<int64_t>(oh - job.padTop, 0);
        end = std::min<int64_t>(oh - job.padTop + kh, H);
    };
    int64_t oh = job.firstRow;
    // Output rows whose window rows all lie before row `before`, two at a time where their windows share rows.
    const auto outputRowsBefore = [&](int64_t before) POOLGRAD_LAMBDA_INLINE {
        while (oh < job.endRow) {
            int64_t first, end, nextFirst = 0, nextEnd = 0;
            windowRows(oh, first, end);
            if (end > before) return;
            bool pair = oh + 1 < job.endRow;
            if (pair) {
                windowRows(oh + 1, nextFirst, nextEnd);
                pair = nextEnd <= before && nextFirst < end;
            }
            uint8_t findings = 0;
            for (int64_t h = first; h < (pair ? nextEnd : end); ++h) findings |= job.rowFindings[h];
            withSearch<WithPositions>(findings, [&]<Search Mode>() POOLGRAD_LAMBDA_INLINE {
                if (pair)
                    outputRowPair<Mode, WithPositions>(job, oh, first, end, nextFirst, nextEnd);
                else
                    outputRow<Mode, WithPositions>(job, oh, first, end);
            });
            oh += pair ? 2 : 1;
        }
    };
    // Rows are copied a band ahead of their search, and searched a band ahead of the output rows that read them:
    // loads straight after stores at other offsets would wait for the stores to reach the cache.
    const int64_t band = std::max<int64_t>(job.bandRows, 1);
    copyRows(inFirst, std::min(inFirst + band, inEnd));
    for (int64_t h0 = inFirst; h0 < inEnd; h0 += band) {
        const int64_t h1 = std::min(h0 + band, inEnd);
        copyRows(h1, std::min(h1 + band, inEnd));
        uint8_t findings = 0;
        for (int64_t h = h0; h < h1; ++h) findings |= job.rowFindings[h];
        withSearch<WithPositions>(findings, [&]<Search Mode>() POOLGRAD_LAMBDA_INLINE {
            rowWinners<Mode, WithPositions>(job, h0 * stride, h1 * stride);
        });
        outputRowsBefore(h0);
    }
    outputRowsBefore(inEnd);
}

void ArgmaxStride1Flat(const Stride1FlatJob &caller) {
    // A copy whose address stays in the inlined search: vector stores may alias any memory (the intrinsics' types
    // are may_alias), so the fields of the caller's job would be read again after every store.
    const Stride1FlatJob job = caller;
    if (job.indices32 || job.indices64)
        argmaxFlat<true>(job);
    else
        argmaxFlat<false>(job);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

// Past the last padded row: the taps of the last vector (16 lanes at most) read up to 16 + kernelWidth - 1
// floats further, the output rows' vectors up to 16 winners further.
constexpr int64_t kFlatSlack = 16;

HWY_EXPORT(ArgmaxStride1Flat);

void argmaxStride1Flat(const Stride1FlatJob &job) { HWY_DYNAMIC_DISPATCH(ArgmaxStride1Flat)(job); }

std::optional<int64_t> stride1FlatPaddedFloats(int64_t height, int64_t paddedWidth, int64_t kernelWidth) {
    const std::optional<int64_t> rows = checkedMul(height, paddedWidth);
    return rows ? checkedAdd(*rows, kFlatSlack + kernelWidth) : std::nullopt;
}

std::optional<int64_t> stride1FlatWinnerFloats(int64_t height, int64_t paddedWidth) {
    const std::optional<int64_t> rows = checkedMul(height, paddedWidth);
    return rows ? checkedAdd(*rows, kFlatSlack) : std::nullopt;
}

void stride1FlatTables(int64_t height, int64_t width, int64_t paddedWidth, int64_t padLeft, int32_t *tapPositions,
                       int32_t *firstPositions) {
    const int64_t entries = height * paddedWidth + kFlatSlack;
    for (int64_t p = 0; p < entries; ++p) {
        const int64_t h = std::min(p / paddedWidth, height - 1), c = p - h * paddedWidth;
        // Columns past the row (windows nobody reads, the slack) get positions inside the plane all the same.
        const int64_t column = std::clamp<int64_t>(c - padLeft, -padLeft, width - 1);
        tapPositions[p] = static_cast<int32_t>(h * width + column);
        firstPositions[p] = static_cast<int32_t>(h * width + std::clamp<int64_t>(c - padLeft, 0, width - 1));
    }
}

}  // namespace poolgrad::cpu
#endif  // HWY_ONCE
