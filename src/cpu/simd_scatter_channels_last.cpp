// Highway implementation of simd_scatter_channels_last.h: one source compiled for every target Highway
// supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_scatter_channels_last.cpp"
#include "cpu/simd_scatter_channels_last.h"

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_ordered_ops-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block of channels (a vector of them, or with Partial the last `present` lanes of C) of one output
// position scattered to every tap of its window inside the slab. Columns is the window's width when known
// at compile time (0: columns.count). Returns the lanes matched by a tap.
template <bool Partial, int Columns, class DF>
HWY_INLINE hn::Mask<hn::RebindToSigned<DF>> scatterBlock(DF df, hn::Vec<hn::RebindToSigned<DF>> indices,
                                                         hn::Vec<DF> gradients, hn::Mask<DF> present,
                                                         const int32_t *HWY_RESTRICT tapRowStarts, int64_t tapRows,
                                                         const AxisWindow &columns, float *HWY_RESTRICT sums,
                                                         int32_t sumsStart, int64_t channels) {
    const hn::RebindToSigned<DF> di;
    // Locals, not the window's fields: every store to the sums could alias them as far as the compiler knows.
    // A one-tap window's step may be huge (dilation INT64_MAX): unused, and multiplied out it would overflow.
    const int64_t count = Columns > 0 ? Columns : columns.count, stepFloats = count > 1 ? columns.step * channels : 0;
    const int32_t first = static_cast<int32_t>(columns.first), step = static_cast<int32_t>(columns.step);
    auto matched = hn::FirstN(di, 0);
    const auto tap = [&](hn::Vec<decltype(di)> offset, hn::Vec<decltype(di)> relative, float *HWY_RESTRICT at) {
        const auto match = hn::Eq(relative, offset);
        matched = hn::Or(matched, match);
        // sum + gradient where the tap matched, the sum's own bits elsewhere (even a NaN sum's payload).
        if constexpr (Partial) {
            const auto sum = MaskedLoadUnaligned(present, df, at);
            hn::BlendedStore(hn::IfThenElse(hn::RebindMask(df, match), AddInOrder(sum, gradients), sum), present, df,
                             at);
        } else {
            const auto sum = hn::LoadU(df, at);
            // Held in a register: GCC would otherwise make this a store masked by the match, from which the
            // next tap of the same sums (the next output's window overlaps this one) cannot read back through
            // store forwarding; it then waits for the store to reach the cache.
            hn::StoreU(inRegister(hn::IfThenElse(hn::RebindMask(df, match), AddInOrder(sum, gradients), sum)), df, at);
        }
    };
    for (int64_t r = 0; r < tapRows; ++r) {
        const int32_t start = tapRowStarts[r] + first;
        // Each lane's index relative to the row's first tap: the taps are then 0, step, 2*step, ...
        const auto relative = hn::Sub(indices, hn::Set(di, start));
        float *at = sums + static_cast<int64_t>(start - sumsStart) * channels;
        if constexpr (Columns > 0) {
            for (int j = 0; j < Columns; ++j, at += stepFloats) tap(hn::Set(di, j * step), relative, at);
        } else {
            for (int64_t j = 0; j < count; ++j, at += stepFloats)
                tap(hn::Set(di, static_cast<int32_t>(j) * step), relative, at);
        }
    }
    return matched;
}

// Channels [c, c + Lanes(df)) of one output position (with Partial: [c, channels)); adds to the counts.
template <bool Partial, int Columns, class DF>
HWY_INLINE void scatterChannels(DF df, int64_t c, const int32_t *HWY_RESTRICT tapRowStarts, int64_t tapRows,
                                const AxisWindow &columns, int64_t channels, const int32_t *HWY_RESTRICT indices,
                                const float *HWY_RESTRICT gradients, float *HWY_RESTRICT sums, int32_t sumsStart,
                                int64_t &indexed, int64_t &matchedLanes) {
    const hn::RebindToSigned<DF> di;
    const auto none = hn::Set(di, -1);
    hn::Vec<decltype(di)> index;
    hn::Vec<DF> gradient;
    hn::Mask<DF> present;
    if constexpr (Partial) {
        const auto lanes = hn::FirstN(di, static_cast<size_t>(channels - c));
        // Lanes past C read as -1: they match no tap and count as no index.
        index = hn::IfThenElse(lanes, MaskedLoadUnaligned(lanes, di, indices + c), none);
        present = hn::RebindMask(df, lanes);
        gradient = MaskedLoadUnaligned(present, df, gradients + c);
    } else {
        index = hn::LoadU(di, indices + c);
        gradient = hn::LoadU(df, gradients + c);
        present = hn::FirstN(df, hn::Lanes(df));
    }
    const auto matched = scatterBlock<Partial, Columns>(df, index, gradient, present, tapRowStarts, tapRows, columns,
                                                        sums + c, sumsStart, channels);
    indexed += static_cast<int64_t>(hn::CountTrue(di, hn::Ne(index, none)));
    matchedLanes += static_cast<int64_t>(hn::CountTrue(di, matched));
}

// The output positions [begin, end) of one row, with Columns as in scatterBlock. Channels go in vectors
// of 16 lanes (AVX-512; fewer on narrower targets), then one of 8 and one of 4 where that many remain,
// then the last 1-3 with a masked vector: only that one stores less than whole vectors, whose footprint
// overlaps the next position's channels (a masked store there stalls the next loads, measured 10x slower
// with C = 8 in masked 16-lane vectors).
template <int Columns>
HWY_INLINE void scatterPositions(const int32_t *HWY_RESTRICT tapRowStarts, int64_t tapRows,
                                 const AxisWindow *HWY_RESTRICT columnWindows, int64_t begin, int64_t end,
                                 int64_t channels, const int32_t *HWY_RESTRICT indexRow,
                                 const float *HWY_RESTRICT gradientRow, float *HWY_RESTRICT sums, int32_t sumsStart,
                                 ChannelsScatterCounts &counts) {
    const hn::CappedTag<float, 16> d16;
    const hn::CappedTag<float, 8> d8;
    const hn::CappedTag<float, 4> d4;
    const int64_t lanes16 = static_cast<int64_t>(hn::Lanes(d16)), lanes8 = static_cast<int64_t>(hn::Lanes(d8)),
                  lanes4 = static_cast<int64_t>(hn::Lanes(d4));
    int64_t indexed = 0, matchedLanes = 0;
    for (int64_t ow = begin; ow < end; ++ow) {
        const AxisWindow columns = columnWindows[ow];
        const int32_t *indices = indexRow + ow * channels;
        const float *gradients = gradientRow + ow * channels;
        int64_t c = 0;
        for (; c + lanes16 <= channels; c += lanes16)
            scatterChannels<false, Columns>(d16, c, tapRowStarts, tapRows, columns, channels, indices, gradients, sums,
                                            sumsStart, indexed, matchedLanes);
        if (lanes8 < lanes16 && c + lanes8 <= channels) {
            scatterChannels<false, Columns>(d8, c, tapRowStarts, tapRows, columns, channels, indices, gradients, sums,
                                            sumsStart, indexed, matchedLanes);
            c += lanes8;
        }
        if (lanes4 < lanes8 && c + lanes4 <= channels) {
            scatterChannels<false, Columns>(d4, c, tapRowStarts, tapRows, columns, channels, indices, gradients, sums,
                                            sumsStart, indexed, matchedLanes);
            c += lanes4;
        }
        if (c < channels)
            scatterChannels<true, Columns>(d4, c, tapRowStarts, tapRows, columns, channels, indices, gradients, sums,
                                           sumsStart, indexed, matchedLanes);
    }
    counts.indexed += indexed;
    counts.matched += matchedLanes;
}

ChannelsScatterCounts ScatterChannelsRow(const int32_t *HWY_RESTRICT tapRowStarts, int64_t tapRows,
                                         const AxisWindow *HWY_RESTRICT columnWindows, int64_t outputColumns,
                                         int64_t channels, const int32_t *HWY_RESTRICT indexRow,
                                         const float *HWY_RESTRICT gradientRow, float *HWY_RESTRICT sums,
                                         int32_t sumsStart) {
    ChannelsScatterCounts counts;
    // Runs of outputs whose windows have 3 (the common kernel) or 2 columns take loops unrolled at compile
    // time; windows clipped at the edges or of other sizes take the general one.
    for (int64_t begin = 0; begin < outputColumns;) {
        const int64_t columns = columnWindows[begin].count;
        int64_t end = begin + 1;
        while (end < outputColumns && columnWindows[end].count == columns) ++end;
        if (columns == 3)
            scatterPositions<3>(tapRowStarts, tapRows, columnWindows, begin, end, channels, indexRow, gradientRow, sums,
                                sumsStart, counts);
        else if (columns == 2)
            scatterPositions<2>(tapRowStarts, tapRows, columnWindows, begin, end, channels, indexRow, gradientRow, sums,
                                sumsStart, counts);
        else
            scatterPositions<0>(tapRowStarts, tapRows, columnWindows, begin, end, channels, indexRow, gradientRow, sums,
                                sumsStart, counts);
        begin = end;
    }
    return counts;
}

int64_t ChannelVectorsPerPosition(int64_t channels) {
    const int64_t lanes16 = static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 16>())),
                  lanes8 = static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 8>())),
                  lanes4 = static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 4>()));
    int64_t vectors = channels / lanes16, rest = channels % lanes16;
    if (lanes8 < lanes16 && rest >= lanes8) ++vectors, rest -= lanes8;
    if (lanes4 < lanes8 && rest >= lanes4) ++vectors, rest -= lanes4;
    return vectors + (rest > 0 ? 1 : 0);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ScatterChannelsRow);
HWY_EXPORT(ChannelVectorsPerPosition);

int64_t channelVectorsPerPosition(int64_t channels) {
    return HWY_DYNAMIC_DISPATCH(ChannelVectorsPerPosition)(channels);
}

ChannelsScatterCounts scatterChannelsRow(const int32_t *tapRowStarts, int64_t tapRows, const AxisWindow *columnWindows,
                                         int64_t outputColumns, int64_t channels, const int32_t *indexRow,
                                         const float *gradientRow, float *sums, int32_t sumsStart) {
    return HWY_DYNAMIC_DISPATCH(ScatterChannelsRow)(tapRowStarts, tapRows, columnWindows, outputColumns, channels,
                                                    indexRow, gradientRow, sums, sumsStart);
}

}  // namespace poolgrad::cpu
#endif
