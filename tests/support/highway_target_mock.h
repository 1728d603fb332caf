// Highway's run-time dispatch held to one instruction set for a scope, so that a test can run the paths a
// CPU below this one would take (hwy::SetSupportedTargetsForTest; 0 restores the CPU's own).
#pragma once

#include <cstdint>

#include "hwy/targets.h"
#include "support/host_vectors.h"

namespace test_support {

class HighwayTargetMock {
public:
    explicit HighwayTargetMock(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
    ~HighwayTargetMock() { hwy::SetSupportedTargetsForTest(0); }
    HighwayTargetMock(const HighwayTargetMock &) = delete;
    HighwayTargetMock &operator=(const HighwayTargetMock &) = delete;
};

inline constexpr int64_t kVisitedInstructionSets[] = {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR};

// Calls visit(target) with the dispatch held to each of AVX-512, AVX2, SSE4 and the scalar code that this CPU has,
// until visit returns false.
template <class Visit>
void forEachInstructionSet(const Visit &visit) {
    for (const int64_t target : kVisitedInstructionSets) {
        if (!test_support::targetDispatchable(target)) continue;
        const HighwayTargetMock mock(target);
        if (!visit(target)) return;
    }
}

// How many instruction sets forEachInstructionSet visits on this CPU with this build (the ThreadSanitizer
// build compiles SSE4 and below only, so it may visit one).
inline int64_t visitedInstructionSetCount() {
    int64_t count = 0;
    for (const int64_t target : kVisitedInstructionSets) count += test_support::targetDispatchable(target) ? 1 : 0;
    return count;
}

}  // namespace test_support
