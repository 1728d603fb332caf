// Software prefetch of a run of elements, one request per cache line: for data a kernel reads soon in an order
// the hardware prefetcher does not follow (the next output row's input rows, a plane read after another, a
// row walked once per group of channels with a stride of lines).
#pragma once

#include <cstdint>

namespace poolgrad {

inline constexpr int64_t kCacheLineBytes = 64;

// Where the lines should stay: every cache level, or the L2 and beyond (not the L1, for data first read
// after enough other loads that it would be evicted from the L1 by then).
enum class PrefetchInto { EveryLevel, SecondLevel };

// The lines of elements [start, start + count).
//
// The empty volatile asm is there for GCC: a function whose only effect is __builtin_prefetch counts as pure
// to its purity analysis, and a call to a pure function whose result goes unused is deleted. Called from a
// helper that was not inlined first, prefetchLines (and the helper) vanished without a trace: until this was
// found, GCC 12 -O3 compiled every prefetchLines call of the library to nothing but those of the slab scatter.
template <PrefetchInto kInto = PrefetchInto::EveryLevel, typename T>
inline void prefetchLines(const T *start, int64_t count) {
    const char *at = reinterpret_cast<const char *>(start);
    const int64_t bytes = count * static_cast<int64_t>(sizeof(T));
    for (int64_t b = 0; b < bytes; b += kCacheLineBytes) {
        if constexpr (kInto == PrefetchInto::EveryLevel)
            __builtin_prefetch(at + b, 0, 3);
        else
            __builtin_prefetch(at + b, 0, 2);
    }
    asm volatile("");
}

}  // namespace poolgrad
