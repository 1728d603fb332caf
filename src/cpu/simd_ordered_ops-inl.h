// Per-target helpers shared by the Highway sources whose results must match the scalar kernels bit for bit
// on every instruction set: an add whose operand order is pinned down, and a masked load that needs no
// alignment. Each source includes this after hwy/highway.h; foreach_target.h compiles it once per
// instruction set (the include guard toggles with HWY_TARGET_TOGGLE, as Highway's own -inl headers do).
#if defined(POOLGRAD_CPU_SIMD_ORDERED_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_ORDERED_OPS_INL_H_
#undef POOLGRAD_CPU_SIMD_ORDERED_OPS_INL_H_
#else
#define POOLGRAD_CPU_SIMD_ORDERED_OPS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// sum + value with the sum as the first operand, as the scalar scatter adds (core/gradient_sum.h): when
// both are NaN the result carries the sum's payload. Compilers treat the add as commutative and swap the
// operands when that saves a register or folds a load (seen with the sanitizers' register pressure, and in
// clang 14's SSE4 kernels: a float16 NaN 0xfe00 summed into 0x7e00), so the order is pinned down in assembly,
// for GCC and clang alike (clang defines __GNUC__ too). The AArch64 form is GCC's only: not compiled with clang here.
template <class V>
HWY_INLINE V AddInOrder(V sum, V value) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && defined(__GNUC__)
#if HWY_TARGET <= HWY_AVX2
    // AT&T order: vaddps second, first, result.
    asm("vaddps %[value], %[sum], %[sum]" : [sum] "+v"(sum.raw) : [value] "v"(value.raw));
#else
    asm("addps %[value], %[sum]" : [sum] "+x"(sum.raw) : [value] "x"(value.raw));
#endif
    return sum;
#elif HWY_ARCH_ARM_A64 && HWY_TARGET == HWY_NEON && defined(__GNUC__) && !defined(__clang__)
    asm("fadd %0.4s, %0.4s, %1.4s" : "+w"(sum.raw) : "w"(value.raw));
    return sum;
#else
    return hwy::HWY_NAMESPACE::Add(sum, value);
#endif
}

// sum + value in the lanes `mask` selects, sum elsewhere, with the sum as the first operand (AddInOrder). With
// AVX-512 one merge-masked add (a select and an add elsewhere); the add's second operand may come straight
// from memory.
template <class V, class M>
HWY_INLINE V MaskedAddInOrder(V sum, M mask, V value) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && defined(__GNUC__)
    if constexpr (sizeof(sum.raw) == 64 && sizeof(hwy::HWY_NAMESPACE::TFromV<V>) == 4) {
        // AT&T order: vaddps second, first, result{mask}.
        asm("vaddps %[value], %[sum], %[sum]%{%[mask]%}"
            : [sum] "+v"(sum.raw)
            : [value] "vm"(value.raw), [mask] "Yk"(mask.raw));
        return sum;
    }
#endif
    return AddInOrder(sum, hwy::HWY_NAMESPACE::IfThenElseZero(mask, value));
}

// IfThenElse(Gt(value, best), value, best): value where it is greater than best (an ordered compare: never for a
// NaN on either side; ties, -0 against +0 included, keep best). x86's maxps computes exactly that (its result is
// the first source when that is greater, else the second, NaNs and signed zeros included). The operand order is
// pinned down in assembly: compilers may otherwise treat max as commutative.
template <class V>
HWY_INLINE V GreaterOf(V value, V best) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && defined(__GNUC__)
    if constexpr (sizeof(hn::TFromV<V>) == 4 && hwy::IsFloat<hn::TFromV<V>>()) {
#if HWY_TARGET <= HWY_AVX2
        // AT&T order: vmaxps second, first, result (result = first > second ? first : second).
        asm("vmaxps %[best], %[value], %[value]" : [value] "+v"(value.raw) : [best] "v"(best.raw));
#else
        asm("maxps %[best], %[value]" : [value] "+x"(value.raw) : [best] "x"(best.raw));
#endif
        return value;
    }
#endif
    return hn::IfThenElse(hn::Gt(value, best), value, best);
}

// The fast step of a forward search (no NaN may be present): best and label take value and valueLabel in the
// lanes where value > best (ties, -0 against +0 included, keep the earlier). Below AVX-512: the value by a max
// (GreaterOf) and the label where the max changed best's bits, that is a max, an integer compare and one blend
// instead of a compare and two blends. AMD Zen 3 runs blends on one pair of its vector pipes and compares, adds
// and maxes on the other, so the two blends made their pair the bottleneck, and each chain waited on a compare
// and a blend per tap where it now waits on a max. Measured there in the channels-last search, whose chains run
// a whole window (simd_argmax_channels_last.cpp: 13-18 % faster); in the 3x3 stride-2 planar search, whose row
// winners are chains of two taps and whose NaN detector is a multiply-add on the blends' pipes, it was 18 %
// slower, and that search keeps the compare and blends. AVX-512 keeps them too (the max form was not measured
// there).
template <class V, class VI>
HWY_INLINE void TakeGreater(V value, VI valueLabel, V &best, VI &label) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET <= HWY_AVX3
    const auto take = hn::Gt(value, best);
    best = hn::IfThenElse(take, value, best);
    label = hn::IfThenElse(hn::RebindMask(hn::DFromV<VI>(), take), valueLabel, label);
#else
    const V previous = best;
    best = GreaterOf(value, previous);
    const hn::DFromV<VI> di;
    label = hn::IfThenElse(hn::Eq(hn::BitCast(di, best), hn::BitCast(di, previous)), label, valueLabel);
#endif
}

// The lanes of p that mask selects (others zero), reading no other lane and needing no alignment. AVX-512's
// masked loads and AVX2's 32/64-bit ones do that; elsewhere Highway's MaskedLoad loads a whole aligned
// vector (SSE4) or reads every lane (AVX2's 16-bit lanes), so the selected lanes go through a buffer.
template <class D, class M>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> MaskedLoadUnaligned(M mask, D d, const hwy::HWY_NAMESPACE::TFromD<D> *p) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET <= HWY_AVX3
    return hn::MaskedLoad(mask, d, p);
#else
    using T = hn::TFromD<D>;
    if constexpr (HWY_TARGET == HWY_AVX2 && sizeof(T) >= 4) {
        return hn::MaskedLoad(mask, d, p);
    } else {
        constexpr size_t kMostLanes = 64 / sizeof(T);
        alignas(64) T buffer[kMostLanes] = {};
        uint8_t bits[(kMostLanes + 7) / 8] = {};
        hn::StoreMaskBits(d, mask, bits);
        const size_t lanes = hn::Lanes(d);
        for (size_t i = 0; i < lanes; ++i)
            if ((bits[i / 8] >> (i % 8)) & 1) buffer[i] = p[i];
        return hn::Load(d, buffer);
    }
#endif
}

// The value in a register the compiler cannot see through: otherwise GCC folds a load into the instruction that
// uses it (a detector's add, a blend), loading a tap twice or turning the load into a masked one, which cannot
// take its data from stores just made to the same lines (measured: the channels-last search 2x slower, the
// stride-1 forward's combine 1.3x).
template <class V>
HWY_INLINE V inRegister(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && defined(__GNUC__) && !defined(__clang__)
    asm("" : "+v"(v.raw));
#endif
    return v;
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_ORDERED_OPS_INL_H_
