// The gathers' result for 16-bit gradients, on their bit patterns (gather_rows.cpp, gather_channels.cpp;
// compiled once per instruction set as simd_store-inl.h is). With one window per element the scatter's
// sum is +0 + g in float32, rounded back once: widening is exact, so is +0 + g for every finite or infinite
// g other than -0, and so is the rounding back. What changes: -0 becomes +0, and a signalling NaN comes
// out quiet with its payload (the float32 quiet bit lands on the 16-bit type's own: 0x0200 for float16,
// 0x0040 for bfloat16). Subnormals stay as they are (the library runs without flush-to-zero).
#if defined(POOLGRAD_CPU_GATHER_SIXTEEN_BIT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_GATHER_SIXTEEN_BIT_INL_H_
#undef POOLGRAD_CPU_GATHER_SIXTEEN_BIT_INL_H_
#else
#define POOLGRAD_CPU_GATHER_SIXTEEN_BIT_INL_H_
#endif

#include <cstdint>

#include "cpu/gather_rows.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// Works on 16-bit patterns zero-extended to 32-bit lanes (DI: int32 lanes, as the indices' compares).
template <GatherValue kValue, class DI>
struct SixteenBitSum {
    static_assert(kValue == GatherValue::Float16 || kValue == GatherValue::BFloat16);
    using V = hwy::HWY_NAMESPACE::Vec<DI>;
    using M = hwy::HWY_NAMESPACE::Mask<DI>;
    V magnitudeBits, infinity, quietBit;

    explicit SixteenBitSum(DI di)
        : magnitudeBits(hwy::HWY_NAMESPACE::Set(di, 0x7fff)),
          infinity(hwy::HWY_NAMESPACE::Set(di, kValue == GatherValue::Float16 ? 0x7c00 : 0x7f80)),
          quietBit(hwy::HWY_NAMESPACE::Set(di, kValue == GatherValue::Float16 ? 0x0200 : 0x0040)) {}

    // What one gradient gives wherever it is summed: the pattern, quieted if a NaN; and whether it is a
    // zero of either sign (then +0, like no match).
    struct Prepared {
        V quieted;
        M nonzero;
    };
    HWY_INLINE Prepared prepare(V bits) const {
        namespace hn = hwy::HWY_NAMESPACE;
        const V magnitude = hn::And(bits, magnitudeBits);
        return {hn::Or(bits, hn::IfThenElseZero(hn::Gt(magnitude, infinity), quietBit)),
                hn::Ne(magnitude, hn::Zero(DI()))};
    }
    // The pattern of +0 + g where `match`, +0 elsewhere.
    HWY_INLINE V select(const Prepared &prepared, M match) const {
        namespace hn = hwy::HWY_NAMESPACE;
        return hn::IfThenElseZero(hn::And(match, prepared.nonzero), prepared.quieted);
    }
    HWY_INLINE V operator()(V bits, M match) const { return select(prepare(bits), match); }
};

// `count` 16-bit patterns from source, zero-extended into int32 lanes; lanes from count on are 0. Whole
// vectors are loaded directly; a partial one under a mask with AVX-512, else through a local copy (below
// AVX-512, Highway's masked 16-bit load reads the whole vector).
template <class DI>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DI> LoadSixteenBit(DI di, const uint16_t *HWY_RESTRICT source, size_t count) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::RebindToUnsigned<DI> du;
    const hn::Rebind<uint16_t, DI> d16;
    if (count >= hn::Lanes(di)) return hn::BitCast(di, hn::PromoteTo(du, hn::LoadU(d16, source)));
#if HWY_TARGET <= HWY_AVX3
    // AVX-512 loads 16-bit lanes under a mask (the local copy costs a store-forwarding stall per vector).
    return hn::BitCast(di, hn::PromoteTo(du, MaskedLoadUnaligned(hn::FirstN(d16, count), d16, source)));
#endif
    alignas(64) uint16_t part[hn::MaxLanes(d16)] = {};
    for (size_t i = 0; i < count; ++i) part[i] = source[i];
    return hn::BitCast(di, hn::PromoteTo(du, hn::Load(d16, part)));
}

// Stores the low 16 bits of the first `count` lanes of `bits` at destination (all lanes: streaming when asked
// and aligned). A partial vector: storeFirstLanes.
template <class DI>
HWY_INLINE void StoreSixteenBit(DI di, hwy::HWY_NAMESPACE::Vec<DI> bits, uint16_t *HWY_RESTRICT destination,
                                size_t count, bool streaming) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::RebindToUnsigned<DI> du;
    const hn::Rebind<uint16_t, DI> d16;
    const auto narrow = hn::TruncateTo(d16, hn::BitCast(du, bits));
    if (count >= hn::Lanes(di)) {
        if (streaming && reinterpret_cast<uintptr_t>(destination) % (hn::Lanes(d16) * sizeof(uint16_t)) == 0)
            streamStore(narrow, d16, destination);
        else
            hn::StoreU(narrow, d16, destination);
        return;
    }
    storeFirstLanes(d16, narrow, destination, count);
}

#if HWY_TARGET != HWY_SCALAR
// Stores the low 16 bits of every lane of `low`, then of `high`: one full vector of 16-bit values (a whole
// cache line with AVX-512; streaming stores of half a line measured twice the time).
template <class DI>
HWY_INLINE void StoreSixteenBitPair(DI /* di: selects the overload */, hwy::HWY_NAMESPACE::Vec<DI> low,
                                    hwy::HWY_NAMESPACE::Vec<DI> high, uint16_t *HWY_RESTRICT destination,
                                    bool streaming) {
    namespace hn = hwy::HWY_NAMESPACE;
    const hn::RebindToUnsigned<DI> du;
    const hn::Rebind<uint16_t, DI> d16;
    const hn::Repartition<uint16_t, DI> dWide;
    const auto wide =
        hn::Combine(dWide, hn::TruncateTo(d16, hn::BitCast(du, high)), hn::TruncateTo(d16, hn::BitCast(du, low)));
    if (streaming && reinterpret_cast<uintptr_t>(destination) % (hn::Lanes(dWide) * sizeof(uint16_t)) == 0)
        streamStore(wide, dWide, destination);
    else
        hn::StoreU(wide, dWide, destination);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_GATHER_SIXTEEN_BIT_INL_H_
