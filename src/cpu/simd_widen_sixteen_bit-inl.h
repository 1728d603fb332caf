// 16-bit float bits widened to float32 exactly, for the kernels that compute on float32 lanes: float16 (kHalf)
// or bfloat16. Compiled once per instruction set, as simd_store-inl.h is.
#if defined(POOLGRAD_CPU_SIMD_WIDEN_SIXTEEN_BIT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_WIDEN_SIXTEEN_BIT_INL_H_
#undef POOLGRAD_CPU_SIMD_WIDEN_SIXTEEN_BIT_INL_H_
#else
#define POOLGRAD_CPU_SIMD_WIDEN_SIXTEEN_BIT_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// float16 is converted in hardware only on these targets.
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
inline constexpr bool kHardwareFloat16 = true;
#else
inline constexpr bool kHardwareFloat16 = false;
#endif

// bits (one 16-bit pattern per float32 lane of DF) as float32. Without the hardware conversion float16 is widened
// on the bits: the library's emulation (Highway 1.0) reads exponent 31 as a finite 2^16, not as Inf / NaN. The
// hardware conversion quiets a signalling NaN; the bit path keeps it.
template <bool kHalf, class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DF> widenSixteenBit(
    DF df, hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Rebind<uint16_t, DF>> bits) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::RebindToSigned<DF> di;
    if constexpr (kHalf && kHardwareFloat16) {
        const hn::Rebind<hwy::float16_t, DF> dh;
        return hn::PromoteTo(df, hn::BitCast(dh, bits));
    } else if constexpr (kHalf) {
        const hn::RebindToUnsigned<DF> du;
        const auto wide = hn::PromoteTo(du, bits);
        const auto sign = hn::ShiftLeft<16>(hn::And(wide, hn::Set(du, 0x8000u)));
        const auto exponent = hn::And(hn::ShiftRight<10>(wide), hn::Set(du, 0x1fu));
        const auto mantissa = hn::And(wide, hn::Set(du, 0x3ffu));
        const auto normal =
            hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 127u - 15u))), hn::ShiftLeft<13>(mantissa));
        const auto infinityOrNaN = hn::Or(hn::Set(du, 0x7f800000u), hn::ShiftLeft<13>(mantissa));
        // mantissa * 2^-24 is exact in float32.
        const auto subnormal =
            hn::BitCast(du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)), hn::Set(df, 1.0f / 16777216.0f)));
        const auto magnitude =
            hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), subnormal,
                           hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x1fu)), infinityOrNaN, normal));
        return hn::BitCast(df, hn::Or(sign, magnitude));
    } else {
        return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(di, bits)));
    }
}

// The inverse where it gives the input's bits back: values (each widened from a 16-bit element by
// widenSixteenBit) narrowed into bits and true, or false and bits untouched. Bfloat16 always narrows (its
// widening was a shift); float16 in hardware for every value but a NaN (the conversion quiets a signalling
// one); otherwise the caller copies the elements themselves.
template <bool kHalf, class DF>
HWY_INLINE bool narrowSixteenBitExactly(DF df, hwy::HWY_NAMESPACE::Vec<DF> values,
                                        hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Rebind<uint16_t, DF>> &bits) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::Rebind<uint16_t, DF> d16;
#if HWY_TARGET == HWY_SCALAR
    (void)df, (void)values, (void)bits, (void)d16;
    return false;
#else
    if constexpr (!kHalf) {
        bits = hn::TruncateTo(d16, hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<DF>(), values)));
        return true;
    } else if constexpr (kHardwareFloat16) {
        if (!hn::AllFalse(df, hn::IsNaN(values))) return false;
        bits = hn::BitCast(d16, hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), values));
        return true;
    } else {
        (void)df, (void)values, (void)bits, (void)d16;
        return false;
    }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_WIDEN_SIXTEEN_BIT_INL_H_
