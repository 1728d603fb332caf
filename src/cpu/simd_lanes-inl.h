// Per-target lane movements across a whole vector, shared by the Highway sources that take rows apart into
// even and odd columns and put them back (the stride-2 gathers and first-match sums). Highway's portable
// shuffles work within 128-bit blocks, so each target gets its own one- or two-instruction form, and
// others go through memory. Each source includes this after hwy/highway.h; foreach_target.h compiles it
// once per instruction set (the include guard toggles with HWY_TARGET_TOGGLE, as Highway's own -inl
// headers do).
#if defined(POOLGRAD_CPU_SIMD_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_LANES_INL_H_
#undef POOLGRAD_CPU_SIMD_LANES_INL_H_
#else
#define POOLGRAD_CPU_SIMD_LANES_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// lower = even[0], odd[0], even[1], odd[1], ...; upper the same from the middle lane on (float lanes).
template <class D>
HWY_INLINE void interleaveLanes(D d, hwy::HWY_NAMESPACE::Vec<D> even, hwy::HWY_NAMESPACE::Vec<D> odd,
                                hwy::HWY_NAMESPACE::Vec<D> &lower, hwy::HWY_NAMESPACE::Vec<D> &upper) {
    namespace hn = hwy::HWY_NAMESPACE;
    [[maybe_unused]] constexpr size_t kBytes = hn::MaxLanes(d) * sizeof(float);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kBytes == 64) {
        // Two two-source permutes; Highway's generic version takes three shuffles more.
        const __m512i lowerIndices = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const __m512i upperIndices = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        lower = hn::Vec<D>{_mm512_permutex2var_ps(even.raw, lowerIndices, odd.raw)};
        upper = hn::Vec<D>{_mm512_permutex2var_ps(even.raw, upperIndices, odd.raw)};
        return;
    }
#elif HWY_TARGET == HWY_AVX2
    if constexpr (kBytes == 32) {
        // Within blocks first (e0 o0 e1 o1 | e4 o4 e5 o5 and e2 o2 e3 o3 | e6 o6 e7 o7), then the blocks.
        const __m256 low = _mm256_unpacklo_ps(even.raw, odd.raw), high = _mm256_unpackhi_ps(even.raw, odd.raw);
        lower = hn::Vec<D>{_mm256_permute2f128_ps(low, high, 0x20)};
        upper = hn::Vec<D>{_mm256_permute2f128_ps(low, high, 0x31)};
        return;
    }
#endif
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kBytes == 16) {
        lower = hn::InterleaveLower(d, even, odd);
        upper = hn::InterleaveUpper(d, even, odd);
        return;
    }
#endif
    HWY_ALIGN float both[2 * hn::MaxLanes(d)];
    hn::StoreInterleaved2(even, odd, d, both);
    lower = hn::Load(d, both);
    upper = hn::Load(d, both + hn::Lanes(d));
}

#if HWY_TARGET != HWY_SCALAR
// Lanes lower[N..] followed by upper[0..N): the vector that starts N lanes into `lower` (float lanes,
// 0 < N < the vector's lanes).
template <int N, class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> lanesFrom(D d, hwy::HWY_NAMESPACE::Vec<D> lower,
                                                hwy::HWY_NAMESPACE::Vec<D> upper) {
    namespace hn = hwy::HWY_NAMESPACE;
    static_assert(N > 0 && static_cast<size_t>(N) < hn::MaxLanes(D()));
    [[maybe_unused]] constexpr size_t kBytes = hn::MaxLanes(d) * sizeof(float);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kBytes == 64)
        return hn::Vec<D>{_mm512_castsi512_ps(
            _mm512_alignr_epi32(_mm512_castps_si512(upper.raw), _mm512_castps_si512(lower.raw), N))};
#elif HWY_TARGET == HWY_AVX2
    if constexpr (kBytes == 32) {
        // (lower's upper block, upper's lower block), then byte shifts within each block.
        const __m256 straddle = _mm256_permute2f128_ps(lower.raw, upper.raw, 0x21);
        if constexpr (N < 4)
            return hn::Vec<D>{_mm256_castsi256_ps(
                _mm256_alignr_epi8(_mm256_castps_si256(straddle), _mm256_castps_si256(lower.raw), 4 * N))};
        else if constexpr (N == 4)
            return hn::Vec<D>{straddle};
        else
            return hn::Vec<D>{_mm256_castsi256_ps(
                _mm256_alignr_epi8(_mm256_castps_si256(upper.raw), _mm256_castps_si256(straddle), 4 * (N - 4)))};
    }
#endif
    if constexpr (kBytes == 16) {
        return hn::CombineShiftRightBytes<4 * N>(d, upper, lower);
    } else {
        HWY_ALIGN float both[2 * hn::MaxLanes(d)];
        hn::Store(lower, d, both);
        hn::Store(upper, d, both + hn::Lanes(d));
        return hn::LoadU(d, both + N);
    }
}

// current moved up N lanes, its first N lanes taken from the end of `previous`.
template <int N, class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> shiftUpLanes(D d, hwy::HWY_NAMESPACE::Vec<D> current,
                                                   hwy::HWY_NAMESPACE::Vec<D> previous) {
    return lanesFrom<static_cast<int>(hwy::HWY_NAMESPACE::MaxLanes(D())) - N>(d, previous, current);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_LANES_INL_H_
