// How the write-once gathers count their matches (gather_match_count.h says why they count) in one
// instruction a compare on every instruction set. Each source includes this after hwy/highway.h;
// foreach_target.h compiles it once per instruction set (the include guard toggles with HWY_TARGET_TOGGLE,
// as Highway's own -inl headers do).
#if defined(POOLGRAD_CPU_SIMD_MATCH_COUNT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_MATCH_COUNT_INL_H_
#undef POOLGRAD_CPU_SIMD_MATCH_COUNT_INL_H_
#else
#define POOLGRAD_CPU_SIMD_MATCH_COUNT_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// count - 1 in the lanes that matched: the lanes count their matches as -1s (the sum of lanes, negated, is
// the number of matches). With AVX-512 a compare gives a mask register, and turning it into a vector to add
// (vpmovm2d) takes the one port the compares also need: a merge-masked add takes another port and one
// instruction fewer (the channels-last gather on 3x3 windows at stride 1 ran 1.05 ms against 0.88). Where
// masks are vectors (AVX2, SSE4) the mask itself is the -1 to add.
template <class DI>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DI> CountMatch(DI di, hwy::HWY_NAMESPACE::Mask<DI> match,
                                                  hwy::HWY_NAMESPACE::Vec<DI> count) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET <= HWY_AVX3
    return hn::IfThenElse(match, hn::Add(count, hn::Set(di, -1)), count);
#else
    return hn::Add(count, hn::VecFromMask(di, match));
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_MATCH_COUNT_INL_H_
