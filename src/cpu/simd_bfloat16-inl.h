// float32 to bfloat16, two vectors at a time, as CANN rounds: to nearest even, NaNs keeping their top
// bits with the quiet bit set, subnormals exact (the library runs without flush-to-zero). Per target, as
// simd_store-inl.h is.
#if defined(POOLGRAD_CPU_SIMD_BFLOAT16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_BFLOAT16_INL_H_
#undef POOLGRAD_CPU_SIMD_BFLOAT16_INL_H_
#else
#define POOLGRAD_CPU_SIMD_BFLOAT16_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// bits + 0x7fff + lsb on the integer bits (Highway's own demotion truncates); NaNs keep their top bits with
// the quiet bit set. The bfloat16 bits are the upper half of each lane. kLookForNaNs false: the caller knows
// that any NaN among the values is already quiet with its lower 16 bits zero (a sum of widened bfloat16
// values from +0), which the rounding keeps as it is, and the look, four of the eight operations, is left out.
template <bool kLookForNaNs = true, class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::RebindToUnsigned<DF>> BFloat16InUpperHalves(
    DF df, hwy::HWY_NAMESPACE::Vec<DF> values) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::RebindToUnsigned<DF> du;
    const auto bits = hn::BitCast(du, values);
    const auto rounded =
        hn::Add(hn::Add(bits, hn::Set(du, 0x7fffu)), hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u)));
    (void)df;
    if constexpr (!kLookForNaNs) return rounded;
    return hn::IfThenElse(hn::RebindMask(du, hn::Ne(values, values)), hn::Or(bits, hn::Set(du, 0x400000u)), rounded);
}

#undef POOLGRAD_BFLOAT16_INSTRUCTION
#if (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && (defined(__GNUC__) || defined(__clang__))
#define POOLGRAD_BFLOAT16_INSTRUCTION 1
// AVX512_BF16's vcvtne2ps2bf16: the bfloat16 bits of `low`'s lanes, then of `high`'s, rounded as CANN
// rounds, in one instruction in place of about fifteen integer operations. It reads subnormals as zero,
// so it declines (false) a pair that holds one; a caller that knows its values hold none (subnormalsPossible
// false) skips the look. Emitted as assembly: the target attributes Highway gives these functions do not
// name AVX512_BF16, and only bfloat16HardwareRounding() says whether it may run.
HWY_INLINE bool HardwareBFloat16Pair(__m512 low, __m512 high, __m512i &packed, bool subnormalsPossible = true) {
    constexpr int kSubnormal = 0x20;  // vfpclassps category
    if (subnormalsPossible && (_mm512_fpclass_ps_mask(low, kSubnormal) | _mm512_fpclass_ps_mask(high, kSubnormal)) != 0)
        return false;
    __asm__("vcvtne2ps2bf16 %2, %1, %0" : "=v"(packed) : "v"(high), "v"(low));  // AT&T: last source, lower half
    return true;
}
#else
#define POOLGRAD_BFLOAT16_INSTRUCTION 0
#endif

#if HWY_TARGET != HWY_SCALAR  // one lane cannot hold two values' bits
// The bfloat16 bits of `low`'s lanes, then of `high`'s: one full vector of 16-bit lanes in memory order.
// `hardware`: bfloat16HardwareRounding(), read once by the caller.
template <class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<uint16_t, DF>> BFloat16Pair(
    DF df, hwy::HWY_NAMESPACE::Vec<DF> low, hwy::HWY_NAMESPACE::Vec<DF> high, bool hardware) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::Repartition<uint16_t, DF> d16;
#if POOLGRAD_BFLOAT16_INSTRUCTION
    if constexpr (hn::MaxLanes(DF()) == 16) {
        __m512i packed;
        if (hardware && HardwareBFloat16Pair(low.raw, high.raw, packed)) return hn::Vec<decltype(d16)>{packed};
    }
#endif
    (void)hardware;
    return hn::ConcatOdd(d16, hn::BitCast(d16, BFloat16InUpperHalves(df, high)),
                         hn::BitCast(d16, BFloat16InUpperHalves(df, low)));
}

// The bfloat16 bits of `even`'s and `odd`'s lanes interleaved: even[0], odd[0], even[1], ... (a row whose
// even and odd columns were summed apart). The integer rounding needs no permute for it: lane i's upper
// half takes odd[i]'s bits, its lower half even[i]'s. subnormalsPossible: as for HardwareBFloat16Pair;
// kLookForNaNs: as for BFloat16InUpperHalves.
template <bool kLookForNaNs = true, class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<uint16_t, DF>> BFloat16Interleaved(
    DF df, hwy::HWY_NAMESPACE::Vec<DF> even, hwy::HWY_NAMESPACE::Vec<DF> odd, bool hardware,
    bool subnormalsPossible = true) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::Repartition<uint16_t, DF> d16;
#if POOLGRAD_BFLOAT16_INSTRUCTION
    if constexpr (hn::MaxLanes(DF()) == 16) {
        __m512i packed;
        if (hardware && HardwareBFloat16Pair(even.raw, odd.raw, packed, subnormalsPossible)) {
            alignas(64) static constexpr uint16_t kInterleave[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                                     21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                                     11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
            return hn::Vec<decltype(d16)>{_mm512_permutexvar_epi16(_mm512_load_si512(kInterleave), packed)};
        }
    }
#endif
    (void)hardware, (void)subnormalsPossible;
    // Odd 16-bit lanes (upper halves) from odd's rounding, even ones from even's shifted down: one blend.
    return hn::OddEven(hn::BitCast(d16, BFloat16InUpperHalves<kLookForNaNs>(df, odd)),
                       hn::BitCast(d16, hn::ShiftRight<16>(BFloat16InUpperHalves<kLookForNaNs>(df, even))));
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_BFLOAT16_INL_H_
