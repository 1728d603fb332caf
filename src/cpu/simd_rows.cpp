// Highway implementation of the row helpers: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_rows.cpp"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"

#include <cstring>

#include "cpu/simd_rows.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Stores vector v at destination + i, streaming when asked and aligned (non-temporal stores need
// vector alignment), a plain unaligned store otherwise.
template <class D, class V, typename T>
HWY_INLINE void storeVector(D d, V v, T *HWY_RESTRICT destination, bool streaming) {
    if (streaming && reinterpret_cast<uintptr_t>(destination) % (hn::Lanes(d) * sizeof(T)) == 0)
        hn::Stream(v, d, destination);
    else
        hn::StoreU(v, d, destination);
}

void StoreFloat32Row(const float *HWY_RESTRICT source, float *HWY_RESTRICT destination, int64_t count,
                     bool streaming) {
    const hn::ScalableTag<float> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) storeVector(d, hn::LoadU(d, source + i), destination + i, streaming);
    for (; i < count; ++i) destination[i] = source[i];
}

// bfloat16 with round-to-nearest-even done on the integer bits (Highway's own demotion truncates):
// bits + 0x7fff + lsb, NaNs keep their top bits with the quiet bit set. 16-bit rows use plain stores.
void StoreBFloat16Row(const float *HWY_RESTRICT source, uint16_t *HWY_RESTRICT destination, int64_t count,
                      bool /*streaming*/) {
    const hn::ScalableTag<float> df;
    const hn::RebindToUnsigned<decltype(df)> d32;
    const hn::RebindToSigned<decltype(df)> di32;
    const hn::Rebind<uint16_t, decltype(df)> d16;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto roundingBase = hn::Set(d32, 0x7fffu);
    const auto one = hn::Set(d32, 1u);
    const auto quietBit = hn::Set(d32, 0x40u);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
        const auto value = hn::LoadU(df, source + i);
        const auto bits = hn::BitCast(d32, value);
        const auto rounded = hn::ShiftRight<16>(bits + roundingBase + (hn::ShiftRight<16>(bits) & one));
        const auto nan = hn::RebindMask(d32, hn::Ne(value, value));
        const auto result = hn::IfThenElse(nan, hn::ShiftRight<16>(bits) | quietBit, rounded);
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di32, result)), d16, destination + i);
    }
    for (; i < count; ++i) destination[i] = fromFloat<BFloat16>(source[i]).bits;
}

void StoreFloat16Row(const float *HWY_RESTRICT source, uint16_t *HWY_RESTRICT destination, int64_t count,
                     bool streaming) {
    int64_t i = 0;
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_ARCH_ARM
    // These targets convert with the hardware's IEEE rounding (F16C / NEON); older x86 targets
    // would get Highway's emulation, which truncates, so they keep the scalar loop below.
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    for (; i + lanes <= count; i += lanes) {
        const auto half = hn::DemoteTo(dh, hn::LoadU(df, source + i));
        hn::StoreU(half, dh, reinterpret_cast<hwy::float16_t *>(destination + i));
    }
    (void)streaming;
#else
    (void)streaming;
#endif
    for (; i < count; ++i) destination[i] = fromFloat<Float16>(source[i]).bits;
}

void AccumulateFirstMatches(const float *const *HWY_RESTRICT inputRows, float *const *HWY_RESTRICT sumRows,
                            int64_t positions, const float *HWY_RESTRICT target, const float *HWY_RESTRICT gradient,
                            int64_t channels) {
    const hn::ScalableTag<float> df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    int64_t c = 0;
    for (; c + lanes <= channels; c += lanes) {
        const auto wanted = hn::LoadU(df, target + c);
        const auto contribution = hn::LoadU(df, gradient + c);
        auto unmatched = hn::FirstN(df, static_cast<size_t>(lanes));
        for (int64_t p = 0; p < positions; ++p) {
            const auto hit = hn::And(unmatched, hn::Eq(hn::LoadU(df, inputRows[p] + c), wanted));
            if (hn::AllFalse(df, hit)) continue;
            if (float *sums = sumRows[p])
                hn::StoreU(hn::Add(hn::LoadU(df, sums + c), hn::IfThenElseZero(hit, contribution)), df, sums + c);
            unmatched = hn::AndNot(hit, unmatched);
            if (hn::AllFalse(df, unmatched)) break;
        }
    }
    for (; c < channels; ++c) {
        for (int64_t p = 0; p < positions; ++p) {
            if (!(inputRows[p][c] == target[c])) continue;
            if (sumRows[p]) sumRows[p][c] += gradient[c];
            break;
        }
    }
}

void FirstMatchPositions(const float *HWY_RESTRICT plane, int64_t width, int64_t firstRow, int64_t rowCount,
                         int64_t firstColumn, int64_t stride, int64_t kernelWidth, const float *HWY_RESTRICT targets,
                         int32_t *HWY_RESTRICT positions, int64_t count) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto laneColumns = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(stride)));
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
        const int64_t chunkColumn = firstColumn + i * stride;
        // Stride 2 reads the even elements of two vectors; it may read one column past the last window.
        const bool interleaved = stride == 2 && chunkColumn + kernelWidth - 2 + 2 * lanes < width;
        const auto wanted = hn::LoadU(df, targets + i);
        auto unmatched = hn::FirstN(df, static_cast<size_t>(lanes));
        auto found = hn::Set(di, -1);
        for (int64_t r = firstRow; r < firstRow + rowCount && !hn::AllFalse(df, unmatched); ++r) {
            const float *row = plane + r * width;
            for (int64_t j = 0; j < kernelWidth; ++j) {
                const int64_t column = chunkColumn + j;
                hn::Vec<decltype(df)> values;
                if (stride == 1) {
                    values = hn::LoadU(df, row + column);
                } else if (interleaved) {
                    hn::Vec<decltype(df)> odd;
                    hn::LoadInterleaved2(df, row + column, values, odd);
                } else {
                    values = hn::GatherIndex(df, row + column, laneColumns);
                }
                const auto hit = hn::And(unmatched, hn::Eq(values, wanted));
                const auto flat = hn::Add(laneColumns, hn::Set(di, static_cast<int32_t>(r * width + column)));
                found = hn::IfThenElse(hn::RebindMask(di, hit), flat, found);
                unmatched = hn::AndNot(hit, unmatched);
            }
        }
        hn::StoreU(found, di, positions + i);
    }
    for (; i < count; ++i) {
        positions[i] = -1;
        const int64_t column = firstColumn + i * stride;
        for (int64_t r = firstRow; r < firstRow + rowCount && positions[i] < 0; ++r)
            for (int64_t j = 0; j < kernelWidth; ++j)
                if (plane[r * width + column + j] == targets[i]) {
                    positions[i] = static_cast<int32_t>(r * width + column + j);
                    break;
                }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(StoreFloat32Row);
HWY_EXPORT(StoreBFloat16Row);
HWY_EXPORT(StoreFloat16Row);
HWY_EXPORT(AccumulateFirstMatches);
HWY_EXPORT(FirstMatchPositions);

void firstMatchPositions(const float *plane, int64_t width, int64_t firstRow, int64_t rowCount, int64_t firstColumn,
                         int64_t stride, int64_t kernelWidth, const float *targets, int32_t *positions,
                         int64_t count) {
    HWY_DYNAMIC_DISPATCH(FirstMatchPositions)(plane, width, firstRow, rowCount, firstColumn, stride, kernelWidth,
                                              targets, positions, count);
}

void accumulateFirstMatches(const float *const *inputRows, float *const *sumRows, int64_t positions,
                            const float *target, const float *gradient, int64_t channels) {
    HWY_DYNAMIC_DISPATCH(AccumulateFirstMatches)(inputRows, sumRows, positions, target, gradient, channels);
}

void storeFloatRow(ElementType type, const float *source, void *destination, int64_t count, bool streaming) {
    switch (type) {
        case ElementType::Float16:
            HWY_DYNAMIC_DISPATCH(StoreFloat16Row)(source, static_cast<uint16_t *>(destination), count, streaming);
            return;
        case ElementType::BFloat16:
            HWY_DYNAMIC_DISPATCH(StoreBFloat16Row)(source, static_cast<uint16_t *>(destination), count, streaming);
            return;
        default:
            HWY_DYNAMIC_DISPATCH(StoreFloat32Row)(source, static_cast<float *>(destination), count, streaming);
            return;
    }
}

void streamingStoreFence() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

}  // namespace poolgrad::cpu
#endif
