// Highway implementation of gather_channels.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_channels.cpp"
#include "cpu/gather_channels.h"

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"

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
        hn::Stream(sums, df, at);
    } else {
        hn::StoreU(sums, df, at);
    }
}

int64_t GatherChannelsRow(const int64_t *HWY_RESTRICT outputColumn, int64_t width, int64_t channels,
                          const int32_t *HWY_RESTRICT indexRow, const float *HWY_RESTRICT gradientRow, int32_t rowStart,
                          float *HWY_RESTRICT destination, bool streaming) {
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
            count = hn::Add(count, hn::VecFromMask(di, match));
            // One window per position: +0 + gradient (a -0 gradient arrives as +0, a signalling NaN quiet,
            // as in the scatter's sum from +0) or +0.
            const auto sums =
                hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match), hn::LoadU(df, gradients + c)));
            StoreSums(df, sums, at + c, static_cast<size_t>(lanes), streaming);
        }
        if (c < channels) {
            const size_t rest = static_cast<size_t>(channels - c);
            const auto present = hn::FirstN(di, rest);
            const auto match = hn::And(hn::Eq(hn::MaskedLoad(present, di, indices + c), position), present);
            count = hn::Add(count, hn::VecFromMask(di, match));
            const auto sums =
                hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match),
                                                 hn::MaskedLoad(hn::RebindMask(df, present), df, gradients + c)));
            StoreSums(df, sums, at + c, rest, streaming);
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

int64_t gatherChannelsRow(const int64_t *outputColumn, int64_t width, int64_t channels, const int32_t *indexRow,
                          const float *gradientRow, int32_t rowStart, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherChannelsRow)(outputColumn, width, channels, indexRow, gradientRow, rowStart,
                                                   destination, streaming);
}

}  // namespace poolgrad::cpu
#endif
