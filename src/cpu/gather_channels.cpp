// Highway implementation of gather_channels.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_channels.cpp"
#include "cpu/gather_channels.h"

#include <algorithm>
#include <type_traits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// Per target, after highway.h:
#include "cpu/gather_sixteen_bit-inl.h"
#include "cpu/simd_match_count-inl.h"
#include "cpu/simd_ordered_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class DF>
HWY_INLINE void StoreSums(DF df, hn::Vec<DF> sums, float *HWY_RESTRICT at, size_t count, bool streaming) {
    const size_t lanes = hn::Lanes(df);
    if (count < lanes) {
        hn::BlendedStore(sums, hn::FirstN(df, count), df, at);
    } else if (streaming && reinterpret_cast<uintptr_t>(at) % (lanes * sizeof(float)) == 0) {
        streamStore(sums, df, at);
    } else {
        hn::StoreU(sums, df, at);
    }
}

int64_t GatherFloatChannelsRow(const int64_t *HWY_RESTRICT outputColumn, int64_t width, int64_t channels,
                               const int32_t *HWY_RESTRICT indexRow, const float *HWY_RESTRICT gradientRow,
                               int32_t rowStart, float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto zero = hn::Zero(df);
    // Each lane counts its matches as -1s: at most W * ceil(C / lanes) per row, far from int32 overflow
    // (rows have fewer than 2^31 positions).
    auto count = hn::Zero(di);
    for (int64_t w = 0; w < width; ++w) {
        float *at = destination + w * channels;
        const int64_t ow = indexRow == nullptr ? -1 : outputColumn[w];
        if (ow < 0) {
            for (int64_t c = 0; c < channels; c += lanes)
                StoreSums(df, zero, at + c, static_cast<size_t>(channels - c), streaming);
            continue;
        }
        const int32_t *indices = indexRow + ow * channels;
        const float *gradients = gradientRow + ow * channels;
        const auto position = hn::Set(di, rowStart + static_cast<int32_t>(w));
        int64_t c = 0;
        for (; c + lanes <= channels; c += lanes) {
            const auto match = hn::Eq(hn::LoadU(di, indices + c), position);
            count = CountMatch(di, match, count);
            // One window per position: +0 + gradient (a -0 gradient arrives as +0, a signalling NaN quiet,
            // as in the scatter's sum from +0) or +0.
            const auto sums =
                hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match), hn::LoadU(df, gradients + c)));
            StoreSums(df, sums, at + c, static_cast<size_t>(lanes), streaming);
        }
        if (c < channels) {
            const size_t rest = static_cast<size_t>(channels - c);
            const auto present = hn::FirstN(di, rest);
            const auto match = hn::And(hn::Eq(MaskedLoadUnaligned(present, di, indices + c), position), present);
            count = CountMatch(di, match, count);
            const auto sums =
                hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match),
                                                 MaskedLoadUnaligned(hn::RebindMask(df, present), df, gradients + c)));
            StoreSums(df, sums, at + c, rest, streaming);
        }
    }
    return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
}

// As GatherFloatChannelsRow, on the gradients' 16-bit patterns (SixteenBitSum).
template <GatherValue kValue>
int64_t GatherSixteenBitChannelsRow(const int64_t *HWY_RESTRICT outputColumn, int64_t width, int64_t channels,
                                    const int32_t *HWY_RESTRICT indexRow, const uint16_t *HWY_RESTRICT gradientRow,
                                    int32_t rowStart, uint16_t *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<int32_t, 16> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const SixteenBitSum<kValue, decltype(di)> sumOf(di);
    // Streaming stores only when every position's channels fill whole 64-byte lines: partial-line
    // streaming stores mixed with ordinary ones in the same lines took C = 24 from 2 ms to 19 ms.
    streaming = streaming && channels % 32 == 0;
#if HWY_TARGET <= HWY_AVX3
    const hn::Full512<int16_t> d16;
    const SixteenBitSum<kValue, decltype(d16)> sumOf16(d16);
#endif
    const auto zero = hn::Zero(di);
    auto count = hn::Zero(di);
    for (int64_t w = 0; w < width; ++w) {
        uint16_t *at = destination + w * channels;
        const int64_t ow = indexRow == nullptr ? -1 : outputColumn[w];
        if (ow < 0) {
            for (int64_t c = 0; c < channels; c += lanes)
                StoreSixteenBit(di, zero, at + c, static_cast<size_t>(channels - c), streaming);
            continue;
        }
        const int32_t *indices = indexRow + ow * channels;
        const uint16_t *gradients = gradientRow + ow * channels;
        const auto position = hn::Set(di, rowStart + static_cast<int32_t>(w));
        int64_t c = 0;
#if HWY_TARGET <= HWY_AVX3
        // 32 channels on 16-bit lanes: the two int32 compares' masks joined into one 32-lane mask, so the
        // gradients need no widening and the results no narrowing.
        for (; c + 32 <= channels; c += 32) {
            const auto lowMatch = hn::Eq(hn::LoadU(di, indices + c), position);
            const auto highMatch = hn::Eq(hn::LoadU(di, indices + c + 16), position);
            count = CountMatch(di, highMatch, CountMatch(di, lowMatch, count));
            const hn::Mask512<int16_t> match{static_cast<__mmask32>(_mm512_kunpackw(highMatch.raw, lowMatch.raw))};
            const auto sums = sumOf16(hn::LoadU(d16, reinterpret_cast<const int16_t *>(gradients + c)), match);
            int16_t *store = reinterpret_cast<int16_t *>(at + c);
            if (streaming && reinterpret_cast<uintptr_t>(store) % 64 == 0)
                streamStore(sums, d16, store);
            else
                hn::StoreU(sums, d16, store);
        }
#elif HWY_TARGET != HWY_SCALAR
        for (; c + 2 * lanes <= channels; c += 2 * lanes) {
            const auto lowMatch = hn::Eq(hn::LoadU(di, indices + c), position);
            const auto highMatch = hn::Eq(hn::LoadU(di, indices + c + lanes), position);
            count = CountMatch(di, highMatch, CountMatch(di, lowMatch, count));
            StoreSixteenBitPair(di, sumOf(LoadSixteenBit(di, gradients + c, static_cast<size_t>(lanes)), lowMatch),
                                sumOf(LoadSixteenBit(di, gradients + c + lanes, static_cast<size_t>(lanes)), highMatch),
                                at + c, streaming);
        }
#endif
        for (; c < channels; c += lanes) {
            const size_t present = static_cast<size_t>(std::min(lanes, channels - c));
            const auto presentMask = hn::FirstN(di, present);
            const auto loaded = present == static_cast<size_t>(lanes)
                                    ? hn::LoadU(di, indices + c)
                                    : MaskedLoadUnaligned(presentMask, di, indices + c);
            const auto match = hn::And(hn::Eq(loaded, position), presentMask);
            count = CountMatch(di, match, count);
            StoreSixteenBit(di, sumOf(LoadSixteenBit(di, gradients + c, present), match), at + c, present, streaming);
        }
    }
    return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
}

int64_t GatherChannelsRow(const int64_t *HWY_RESTRICT outputColumn, int64_t width, int64_t channels, GatherValue value,
                          const int32_t *HWY_RESTRICT indexRow, const void *gradientRow, int32_t rowStart,
                          void *HWY_RESTRICT destination, bool streaming) {
    switch (value) {
        case GatherValue::Float16:
            return GatherSixteenBitChannelsRow<GatherValue::Float16>(
                outputColumn, width, channels, indexRow, static_cast<const uint16_t *>(gradientRow), rowStart,
                static_cast<uint16_t *>(destination), streaming);
        case GatherValue::BFloat16:
            return GatherSixteenBitChannelsRow<GatherValue::BFloat16>(
                outputColumn, width, channels, indexRow, static_cast<const uint16_t *>(gradientRow), rowStart,
                static_cast<uint16_t *>(destination), streaming);
        default:
            return GatherFloatChannelsRow(outputColumn, width, channels, indexRow,
                                          static_cast<const float *>(gradientRow), rowStart,
                                          static_cast<float *>(destination), streaming);
    }
}

// One vector of a position's channels from c: the sum of the candidate outputs' gradients whose index is the
// position (present: the channels that exist).
template <bool kFull, class DF, class DI>
HWY_INLINE hn::Vec<DF> SumCandidates(DF df, DI di, const int32_t *const *HWY_RESTRICT indexRows,
                                     const float *const *HWY_RESTRICT gradientRows, int64_t rowCount,
                                     const int64_t *HWY_RESTRICT columns, int64_t columnCount, int64_t channels,
                                     int64_t c, hn::Vec<DI> position, hn::Mask<DI> present, hn::Vec<DI> &count) {
    // From +0 in increasing output order (rows, then columns), as the scatter adds: a lone -0 gives +0, and
    // adding +0 for a candidate that does not match changes no sum (none is -0).
    auto sums = hn::Zero(df);
    for (int64_t r = 0; r < rowCount; ++r) {
        const int32_t *indexRow = indexRows[r] + c;
        const float *gradientRow = gradientRows[r] + c;
        for (int64_t k = 0; k < columnCount; ++k) {
            const int64_t offset = columns[k] * channels;
            if constexpr (kFull) {
                const auto match = hn::Eq(hn::LoadU(di, indexRow + offset), position);
                count = CountMatch(di, match, count);
                sums = MaskedAddInOrder(sums, hn::RebindMask(df, match), hn::LoadU(df, gradientRow + offset));
            } else {
                const auto match =
                    hn::And(hn::Eq(MaskedLoadUnaligned(present, di, indexRow + offset), position), present);
                count = CountMatch(di, match, count);
                sums = AddInOrder(
                    sums, hn::IfThenElseZero(hn::RebindMask(df, match), MaskedLoadUnaligned(hn::RebindMask(df, present),
                                                                                            df, gradientRow + offset)));
            }
        }
    }
    return sums;
}

// All kVectors whole vectors of a position's channels at once (C = kVectors x lanes): the candidates' loop
// overhead is shared by the vectors, whose sums stay in registers.
template <int kVectors, class DF, class DI>
HWY_INLINE void GatherWholeVectorPositions(DF df, DI di, const int64_t *HWY_RESTRICT columnStart,
                                           const int64_t *HWY_RESTRICT columnOutputs, int64_t width,
                                           const int32_t *const *HWY_RESTRICT indexRows,
                                           const float *const *HWY_RESTRICT gradientRows, int64_t rowCount,
                                           int32_t rowStart, float *HWY_RESTRICT destination, bool streaming,
                                           hn::Vec<DI> &count) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df)), channels = kVectors * lanes;
    for (int64_t w = 0; w < width; ++w) {
        const int64_t *columns = columnOutputs + columnStart[w];
        const int64_t columnCount = rowCount == 0 ? 0 : columnStart[w + 1] - columnStart[w];
        const auto position = hn::Set(di, rowStart + static_cast<int32_t>(w));
        hn::Vec<DF> sums[kVectors];
        for (int v = 0; v < kVectors; ++v) sums[v] = hn::Zero(df);
        for (int64_t r = 0; r < rowCount; ++r)
            for (int64_t k = 0; k < columnCount; ++k) {
                const int64_t offset = columns[k] * channels;
                const int32_t *indices = indexRows[r] + offset;
                const float *gradients = gradientRows[r] + offset;
                for (int v = 0; v < kVectors; ++v) {
                    const auto match = hn::Eq(hn::LoadU(di, indices + v * lanes), position);
                    count = CountMatch(di, match, count);
                    sums[v] = MaskedAddInOrder(sums[v], hn::RebindMask(df, match), hn::LoadU(df, gradients + v * lanes));
                }
            }
        for (int v = 0; v < kVectors; ++v)
            StoreSums(df, sums[v], destination + w * channels + v * lanes, static_cast<size_t>(lanes), streaming);
    }
}

int64_t GatherOverlappingChannelsRow(const int64_t *HWY_RESTRICT columnStart, const int64_t *HWY_RESTRICT columnOutputs,
                                     int64_t width, int64_t channels, const int32_t *const *HWY_RESTRICT indexRows,
                                     const float *const *HWY_RESTRICT gradientRows, int64_t rowCount, int32_t rowStart,
                                     float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto all = hn::FirstN(di, static_cast<size_t>(lanes));
    // Each lane counts its matches as -1s: at most 8 W ceil(C / lanes) per row, far from int32 overflow.
    auto count = hn::Zero(di);
    const auto wholeVectors = [&](auto vectors) {
        GatherWholeVectorPositions<decltype(vectors)::value>(df, di, columnStart, columnOutputs, width, indexRows,
                                                             gradientRows, rowCount, rowStart, destination, streaming,
                                                             count);
        return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
    };
    if (channels == lanes) return wholeVectors(std::integral_constant<int, 1>{});
    if (channels == 2 * lanes) return wholeVectors(std::integral_constant<int, 2>{});
    if (channels == 3 * lanes) return wholeVectors(std::integral_constant<int, 3>{});
    if (channels == 4 * lanes) return wholeVectors(std::integral_constant<int, 4>{});
    if (channels == 6 * lanes) return wholeVectors(std::integral_constant<int, 6>{});
    if (channels == 8 * lanes) return wholeVectors(std::integral_constant<int, 8>{});
    for (int64_t w = 0; w < width; ++w) {
        float *at = destination + w * channels;
        const int64_t *columns = columnOutputs + columnStart[w];
        const int64_t columnCount = rowCount == 0 ? 0 : columnStart[w + 1] - columnStart[w];
        const auto position = hn::Set(di, rowStart + static_cast<int32_t>(w));
        int64_t c = 0;
        for (; c + lanes <= channels; c += lanes)
            StoreSums(df,
                      SumCandidates<true>(df, di, indexRows, gradientRows, rowCount, columns, columnCount, channels, c,
                                          position, all, count),
                      at + c, static_cast<size_t>(lanes), streaming);
        if (c < channels) {
            const size_t rest = static_cast<size_t>(channels - c);
            StoreSums(df,
                      SumCandidates<false>(df, di, indexRows, gradientRows, rowCount, columns, columnCount, channels, c,
                                           position, hn::FirstN(di, rest), count),
                      at + c, rest, streaming);
        }
    }
    return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherChannelsRow);
HWY_EXPORT(GatherOverlappingChannelsRow);

int64_t gatherChannelsRow(const int64_t *outputColumn, int64_t width, int64_t channels, GatherValue value,
                          const int32_t *indexRow, const void *gradientRow, int32_t rowStart, void *destination,
                          bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherChannelsRow)(outputColumn, width, channels, value, indexRow, gradientRow,
                                                   rowStart, destination, streaming);
}

int64_t gatherOverlappingChannelsRow(const int64_t *columnStart, const int64_t *columnOutputs, int64_t width,
                                     int64_t channels, const int32_t *const *indexRows,
                                     const float *const *gradientRows, int64_t rowCount, int32_t rowStart,
                                     float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherOverlappingChannelsRow)(columnStart, columnOutputs, width, channels, indexRows,
                                                              gradientRows, rowCount, rowStart, destination, streaming);
}

}  // namespace poolgrad::cpu
#endif
