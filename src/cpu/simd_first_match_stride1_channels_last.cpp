// Highway implementation of accumulateFirstMatchesStride1, compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_first_match_stride1_channels_last.cpp"
#include "cpu/simd_first_match_stride1_channels_last.h"

#include <cstdint>

#include "core/gradient_sum.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_ordered_ops-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Eq(a, b) in the lanes of `among`, false elsewhere: with AVX-512 one compare under a mask register, not a
// compare and a mask AND on the one port that also takes the mask ANDN of the search.
template <class D, class M>
HWY_INLINE M EqAmong([[maybe_unused]] D d, M among, hn::Vec<D> a, hn::Vec<D> b) {
#if HWY_TARGET <= HWY_AVX3
    if constexpr (sizeof(a.raw) == 64) {
        return M{_mm512_mask_cmp_ps_mask(among.raw, a.raw, b.raw, _CMP_EQ_OQ)};
    }
#endif
    return hn::And(among, hn::Eq(a, b));
}

// One vector of channels from c. The sums of the KW columns the current window covers stay in registers
// (sums[row][column]); per window the column that enters is loaded and the one that leaves stored, so a sum
// is read and written once per window that covers it leaving, not once per tap.
template <int KH, int KW, class D>
HWY_INLINE void slideWindows(D d, const float *const *HWY_RESTRICT inputRows, float *const *HWY_RESTRICT sumRows,
                             const float *HWY_RESTRICT targets, const float *HWY_RESTRICT gradients,
                             int64_t outputBegin, int64_t outputEnd, int64_t firstColumn, int64_t channels,
                             int64_t c) {
    using V = hn::Vec<D>;
    const float *input[KH];
    float *sumsAt[KH];
    for (int r = 0; r < KH; ++r) {
        input[r] = inputRows[r] + c;
        sumsAt[r] = sumRows[r] + c;
    }
    const int64_t x0 = outputBegin + firstColumn;
    V sums[KH][KW];
    for (int r = 0; r < KH; ++r)
        for (int j = 0; j + 1 < KW; ++j) sums[r][j] = hn::LoadU(d, sumsAt[r] + (x0 + j) * channels);
    for (int64_t ow = outputBegin; ow < outputEnd; ++ow) {
        const int64_t x = ow + firstColumn;
        for (int r = 0; r < KH; ++r) sums[r][KW - 1] = hn::LoadU(d, sumsAt[r] + (x + KW - 1) * channels);
        const V wanted = hn::LoadU(d, targets + ow * channels + c);
        const V gradient = hn::LoadU(d, gradients + ow * channels + c);
        auto unmatched = hn::FirstN(d, hn::Lanes(d));
        for (int r = 0; r < KH; ++r)
            for (int j = 0; j < KW; ++j) {
                const auto hit = EqAmong(d, unmatched, hn::LoadU(d, input[r] + (x + j) * channels), wanted);
                // Merging leaves an unmatched lane's sum as it is, where adding +0 would too: a sum from +0
                // is never -0.
                sums[r][j] = MaskedAddInOrder(sums[r][j], hit, gradient);
                unmatched = hn::AndNot(hit, unmatched);
            }
        for (int r = 0; r < KH; ++r) {
            hn::StoreU(sums[r][0], d, sumsAt[r] + x * channels);
            for (int j = 0; j + 1 < KW; ++j) sums[r][j] = sums[r][j + 1];
        }
    }
    const int64_t xEnd = outputEnd + firstColumn;
    for (int r = 0; r < KH; ++r)
        for (int j = 0; j + 1 < KW; ++j) hn::StoreU(sums[r][j], d, sumsAt[r] + (xEnd + j) * channels);
}

template <int KH, int KW>
HWY_INLINE void slideAllChannels(const float *const *HWY_RESTRICT inputRows, float *const *HWY_RESTRICT sumRows,
                      const float *HWY_RESTRICT targets, const float *HWY_RESTRICT gradients, int64_t outputBegin,
                      int64_t outputEnd, int64_t firstColumn, int64_t channels) {
    const hn::ScalableTag<float> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t c = 0;
    for (; c + lanes <= channels; c += lanes)
        slideWindows<KH, KW>(d, inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn, channels,
                             c);
    // The channels after the last whole vector, one at a time in the same order.
    for (; c < channels; ++c)
        for (int64_t ow = outputBegin; ow < outputEnd; ++ow) {
            const float wanted = targets[ow * channels + c];
            const int64_t x = ow + firstColumn;
            bool found = false;
            for (int r = 0; r < KH && !found; ++r)
                for (int j = 0; j < KW && !found; ++j) {
                    const int64_t at = (x + j) * channels + c;
                    if (!(inputRows[r][at] == wanted)) continue;
                    sumRows[r][at] = addToSum(sumRows[r][at], gradients[ow * channels + c]);
                    found = true;
                }
        }
}

void AccumulateFirstMatchesStride1(int64_t kernelHeight, int64_t kernelWidth, const float *const *HWY_RESTRICT inputRows,
                                   float *const *HWY_RESTRICT sumRows, const float *HWY_RESTRICT targets,
                                   const float *HWY_RESTRICT gradients, int64_t outputBegin, int64_t outputEnd,
                                   int64_t firstColumn, int64_t channels) {
    if (outputBegin >= outputEnd) return;
    if (kernelHeight == 3 && kernelWidth == 3)
        return slideAllChannels<3, 3>(inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn,
                                      channels);
    if (kernelHeight == 3 && kernelWidth == 5)
        return slideAllChannels<3, 5>(inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn,
                                      channels);
    if (kernelHeight == 5 && kernelWidth == 3)
        return slideAllChannels<5, 3>(inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn,
                                      channels);
    if (kernelHeight == 5 && kernelWidth == 5)
        return slideAllChannels<5, 5>(inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn,
                                      channels);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(AccumulateFirstMatchesStride1);

void accumulateFirstMatchesStride1(int64_t kernelHeight, int64_t kernelWidth, const float *const *inputRows,
                                   float *const *sumRows, const float *targets, const float *gradients,
                                   int64_t outputBegin, int64_t outputEnd, int64_t firstColumn, int64_t channels) {
    HWY_DYNAMIC_DISPATCH(AccumulateFirstMatchesStride1)
    (kernelHeight, kernelWidth, inputRows, sumRows, targets, gradients, outputBegin, outputEnd, firstColumn, channels);
}

}  // namespace poolgrad::cpu
#endif
