// Per-target pieces of the selection rule shared by the two stride-1 forward searches (simd_argmax_stride1.cpp,
// simd_argmax_stride1_flat.cpp): which compare a search takes, and how winners of later rows are taken into
// those of earlier rows. Each source includes this after hwy/highway.h; foreach_target.h compiles it once per
// instruction set (the include guard toggles with HWY_TARGET_TOGGLE, as Highway's own -inl headers do).
#if defined(POOLGRAD_CPU_SIMD_STRIDE1_SEARCH_RULE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_STRIDE1_SEARCH_RULE_INL_H_
#undef POOLGRAD_CPU_SIMD_STRIDE1_SEARCH_RULE_INL_H_
#else
#define POOLGRAD_CPU_SIMD_STRIDE1_SEARCH_RULE_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// How a search takes a candidate: NanRule (a NaN over anything, so the last one in scan order stays) where the
// rows hold a NaN; Fast (one compare: a NaN is never taken) where they hold none; Max (values only) where they
// hold neither a NaN nor a -0, so that the maximum has the rule winner's bits (equal values then have equal bits).
enum class Search { Max, Fast, NanRule };

template <Search Mode, class V>
HWY_INLINE auto takes(V value, V best) {
    namespace hn = hwy::HWY_NAMESPACE;
    if constexpr (Mode == Search::NanRule)
        return hn::Or(hn::Gt(value, best), hn::IsNaN(value));
    else
        return hn::Gt(value, best);
}

// A vector of windows' winners so far: values and plane positions (the positions unused without them).
template <class DF>
struct WindowWinners {
    hwy::HWY_NAMESPACE::Vec<DF> value;
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::RebindToSigned<DF>> position;
};

// `later` (windows' winners from later rows in scan order) taken into `earlier` where the rule says. The rule
// orders winners by NaN-ness, value and scan position, so taking rows in groups gives the same winners.
template <Search Mode, bool WithPositions, class DF>
HWY_INLINE void takeLater(WindowWinners<DF> &earlier, const WindowWinners<DF> &later) {
    namespace hn = hwy::HWY_NAMESPACE;
    if constexpr (Mode == Search::Max) {
        earlier.value = hn::Max(earlier.value, later.value);
    } else {
        const auto take = takes<Mode>(later.value, earlier.value);
        earlier.value = hn::IfThenElse(take, later.value, earlier.value);
        if constexpr (WithPositions)
            earlier.position =
                hn::IfThenElse(hn::RebindMask(hn::RebindToSigned<DF>(), take), later.position, earlier.position);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_STRIDE1_SEARCH_RULE_INL_H_
