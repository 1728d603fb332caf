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

// Calls visit(target) with the dispatch held to each of AVX-512, AVX2, SSE4 and the scalar code that this CPU has,
// until visit returns false.
template <class Visit>
void forEachInstructionSet(const Visit &visit) {
    for (const int64_t target : {int64_t{HWY_AVX3}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        const HighwayTargetMock mock(target);
        if (!visit(target)) return;
    }
}

}  // namespace test_support
