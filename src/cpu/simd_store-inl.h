// Per-target store helpers shared by the Highway sources (simd_rows.cpp, simd_argmax.cpp): each includes
// this after hwy/highway.h, and foreach_target.h compiles it once per instruction set (the include guard
// toggles with HWY_TARGET_TOGGLE, as Highway's own -inl headers do).
#if defined(POOLGRAD_CPU_SIMD_STORE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POOLGRAD_CPU_SIMD_STORE_INL_H_
#undef POOLGRAD_CPU_SIMD_STORE_INL_H_
#else
#define POOLGRAD_CPU_SIMD_STORE_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {

// hn::Stream for every vector the library streams (every streaming store goes through it): Highway writes a
// whole 16-byte register for an x86 vector of fewer bytes (an SSE4 vector of four 16-bit lanes is 8 bytes, and
// its non-temporal store wrote the 8 after them too, and faulted where they did not start on 16 bytes: the
// ThreadSanitizer build, which compiles SSE4 kernels only, crashed on it), so such vectors take an ordinary
// store. The destination must be aligned to the vector's bytes.
template <class D>
HWY_INLINE void streamStore(hwy::HWY_NAMESPACE::Vec<D> v, D d, hwy::HWY_NAMESPACE::TFromD<D> *HWY_RESTRICT aligned) {
    namespace hn = hwy::HWY_NAMESPACE;
    if constexpr (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) < 16)
        hn::Store(v, d, aligned);
    else
        hn::Stream(v, d, aligned);
}

// Stores vector v at destination, streaming when asked and aligned (non-temporal stores need vector
// alignment), a plain unaligned store otherwise.
template <class D, class V, typename T>
HWY_INLINE void storeVector(D d, V v, T *HWY_RESTRICT destination, bool streaming) {
    namespace hn = hwy::HWY_NAMESPACE;
    if (streaming && reinterpret_cast<uintptr_t>(destination) % (hn::Lanes(d) * sizeof(T)) == 0)
        streamStore(v, d, destination);
    else
        hn::StoreU(v, d, destination);
}

// The first `count` lanes of v to `to`, writing nothing past them (a row's end may end the tensor, or
// its next element belong to another thread): one masked store where the target has the instruction
// (AVX-512 for every lane size, AVX2 for 32- and 64-bit lanes), else through a local copy (Highway's
// BlendedStore there writes lane by lane, no faster). Never streaming.
template <class D>
HWY_INLINE void storeFirstLanes(D d, hwy::HWY_NAMESPACE::Vec<D> v, hwy::HWY_NAMESPACE::TFromD<D> *HWY_RESTRICT to,
                                size_t count) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET <= HWY_AVX3
    hn::BlendedStore(v, hn::FirstN(d, count), d, to);
#else
    using T = hn::TFromD<D>;
    if constexpr (HWY_TARGET == HWY_AVX2 && sizeof(T) >= 4) {
        hn::BlendedStore(v, hn::FirstN(d, count), d, to);
    } else {
        HWY_ALIGN T lanes[hn::MaxLanes(d)];
        hn::Store(v, d, lanes);
        std::memcpy(to, lanes, count * sizeof(T));
    }
#endif
}

// Stores one vector of int32 winners (plane positions, labels) as int32 or as int64 (two half vectors widened),
// whichever pointer is non-null; neither: nothing. With streaming, aligned vectors bypass the caches.
template <class DI>
HWY_INLINE void storeInt32Lanes(DI di, hwy::HWY_NAMESPACE::Vec<DI> lanes, int32_t *HWY_RESTRICT to32,
                                int64_t *HWY_RESTRICT to64, bool streaming) {
    namespace hn = hwy::HWY_NAMESPACE;
    if (to32) {
        storeVector(di, lanes, to32, streaming);
    } else if (to64) {
#if HWY_TARGET == HWY_SCALAR
        to64[0] = hn::GetLane(lanes);
#else
        const hn::Half<DI> dh;
        const hn::Repartition<int64_t, DI> d64;
        storeVector(d64, hn::PromoteTo(d64, hn::LowerHalf(dh, lanes)), to64, streaming);
        storeVector(d64, hn::PromoteTo(d64, hn::UpperHalf(dh, lanes)), to64 + hn::Lanes(d64), streaming);
#endif
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#endif  // POOLGRAD_CPU_SIMD_STORE_INL_H_
