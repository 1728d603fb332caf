// The float32 lanes of the vectors the library's run-time dispatch takes on this CPU (or under a
// HighwayTargetMock): 16 with AVX-512, 8 with AVX2, 4 with SSE4/SSSE3, 1 otherwise. Some entries were measured
// on AVX-512 and take fewer problems, or none, with narrower vectors; their tests ask this instead of assuming
// the CPU they were written on (an AVX2 host ran the suite red on them, 2026-12-02).
#pragma once

#include <cstdint>

#include "hwy/targets.h"

namespace test_support {

// Whether the dispatch can take `targets` (any of them): this CPU has it and this build compiles it.
inline bool targetDispatchable(int64_t targets) { return (hwy::SupportedTargets() & HWY_TARGETS & targets) != 0; }

inline int64_t hostFloatLanes() {
    // HWY_TARGETS: what this build compiles (a sanitizer build leaves some instruction sets out, and the dispatch
    // then takes the best one compiled; the library's SupportedTargets() still reports the CPU's).
    const int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
    if (targets & HWY_AVX3) return 16;
    if (targets & HWY_AVX2) return 8;
    if (targets & (HWY_SSE4 | HWY_SSSE3)) return 4;
    return 1;
}

}  // namespace test_support
