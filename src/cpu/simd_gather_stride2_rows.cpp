// Highway implementation of gatherStride2Row, compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_gather_stride2_rows.cpp"
#include "cpu/simd_gather_stride2_rows.h"

#include <cstdint>
#include <cstring>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_store-inl.h"
// clang-format on

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
    return hn::Add(sum, hn::IfThenElseZero(hn::RebindMask(FloatTag(), match), gradient));
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

// lower = even[0], odd[0], even[1], odd[1], ...; upper the same from the middle lane on.
HWY_INLINE void interleave(hn::Vec<FloatTag> even, hn::Vec<FloatTag> odd, hn::Vec<FloatTag> &lower,
                           hn::Vec<FloatTag> &upper) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    const __m512i lowerIndices = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i upperIndices = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    lower = hn::Vec<FloatTag>{_mm512_permutex2var_ps(even.raw, lowerIndices, odd.raw)};
    upper = hn::Vec<FloatTag>{_mm512_permutex2var_ps(even.raw, upperIndices, odd.raw)};
#else
    const FloatTag d;
    HWY_ALIGN float both[2 * 16];
    hn::StoreInterleaved2(even, odd, d, both);
    lower = hn::Load(d, both);
    upper = hn::Load(d, both + hn::Lanes(d));
#endif
}

// 0, 2, 4, ...: the even columns of a block (from a table: Iota builds its vector through memory, and the
// load right after those stores would wait for them).
HWY_ALIGN constexpr int32_t kEvenColumns[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};

// Block b makes columns [2bL, 2bL + 2L) from windows A = b*L + lane + padLeft - 1 and B = A + 1 (padded
// entries A + 1 and A + 2). padLeft 1: an even column 2j lies only in window j (A), an odd one in j (A)
// then j + 1 (B). padLeft 0: an even column 2j lies in j - 1 (A) then j (B), an odd one only in j (B).
template <int kPadLeft>
int64_t gatherRowWithPadding(const int32_t *const *HWY_RESTRICT indexRows,
                             const float *const *HWY_RESTRICT gradientRows, int64_t candidates, int64_t width,
                             int32_t rowStart, float *HWY_RESTRICT destination, bool streaming) {
    const FloatTag df;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int64_t blocks = (width + 2 * lanes - 1) / (2 * lanes);
    const auto zero = hn::Zero(df);
    const auto one = hn::Set(di, 1), blockStep = hn::Set(di, static_cast<int32_t>(2 * lanes));
    const auto rowEnd = hn::Set(di, rowStart + static_cast<int32_t>(width));
    auto evenPosition = hn::Add(hn::Load(di, kEvenColumns), hn::Set(di, rowStart));
    auto count = hn::Zero(di);
    for (int64_t b = 0; b < blocks; ++b, evenPosition = hn::Add(evenPosition, blockStep)) {
        const auto oddPosition = hn::Add(evenPosition, one);
        const int64_t column = 2 * b * lanes;
        // Columns past the row (last block only) hold positions of the next row: they must not match.
        const bool tail = column + 2 * lanes > width;
        const auto evenInside = hn::Lt(evenPosition, rowEnd), oddInside = hn::Lt(oddPosition, rowEnd);
        auto evenSums = zero, oddSums = zero;
        const int64_t entry = b * lanes + kPadLeft;
        for (int64_t c = 0; c < candidates; ++c) {
            const int32_t *indices = indexRows[c] + entry;
            const float *gradients = gradientRows[c] + entry;
            const auto indexA = hn::LoadU(di, indices), indexB = hn::LoadU(di, indices + 1);
            const auto gradientA = hn::LoadU(df, gradients), gradientB = hn::LoadU(df, gradients + 1);
            if constexpr (kPadLeft == 1) {
                auto evenA = hn::Eq(indexA, evenPosition), oddA = hn::Eq(indexA, oddPosition),
                     oddB = hn::Eq(indexB, oddPosition);
                if (tail) {
                    evenA = hn::And(evenA, evenInside);
                    oddA = hn::And(oddA, oddInside);
                    oddB = hn::And(oddB, oddInside);
                }
                evenSums = addMatched(evenSums, evenA, gradientA);
                oddSums = addMatched(addMatched(oddSums, oddA, gradientA), oddB, gradientB);
                count = countMatches(countMatches(countMatches(count, evenA), oddA), oddB);
            } else {
                auto evenA = hn::Eq(indexA, evenPosition), evenB = hn::Eq(indexB, evenPosition),
                     oddB = hn::Eq(indexB, oddPosition);
                if (tail) {
                    evenA = hn::And(evenA, evenInside);
                    evenB = hn::And(evenB, evenInside);
                    oddB = hn::And(oddB, oddInside);
                }
                evenSums = addMatched(addMatched(evenSums, evenA, gradientA), evenB, gradientB);
                oddSums = addMatched(oddSums, oddB, gradientB);
                count = countMatches(countMatches(countMatches(count, evenA), evenB), oddB);
            }
        }
        hn::Vec<FloatTag> lower, upper;
        interleave(evenSums, oddSums, lower, upper);
        float *at = destination + column;
        if (!tail) {
            storeVector(df, lower, at, streaming);
            storeVector(df, upper, at + lanes, streaming);
        } else {
            HWY_ALIGN float sums[2 * 16];
            hn::Store(lower, df, sums);
            hn::Store(upper, df, sums + lanes);
            std::memcpy(at, sums, static_cast<size_t>(width - column) * sizeof(float));
        }
    }
    return static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
}

int64_t GatherStride2Row(const int32_t *const *indexRows, const float *const *gradientRows, int64_t candidates,
                         int64_t width, int64_t padLeft, int32_t rowStart, float *destination, bool streaming) {
    return padLeft == 1
               ? gatherRowWithPadding<1>(indexRows, gradientRows, candidates, width, rowStart, destination, streaming)
               : gatherRowWithPadding<0>(indexRows, gradientRows, candidates, width, rowStart, destination, streaming);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherStride2LaneCount);
HWY_EXPORT(GatherStride2Row);

int64_t gatherStride2LaneCount() { return HWY_DYNAMIC_DISPATCH(GatherStride2LaneCount)(); }

int64_t gatherStride2Row(const int32_t *const *indexRows, const float *const *gradientRows, int64_t candidates,
                         int64_t width, int64_t padLeft, int32_t rowStart, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherStride2Row)(indexRows, gradientRows, candidates, width, padLeft, rowStart,
                                                  destination, streaming);
}

}  // namespace poolgrad::cpu
#endif
