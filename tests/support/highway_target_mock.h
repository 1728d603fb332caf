// Highway's run-time dispatch held to one instruction set for a scope, so that a test can run the paths a
// CPU below this one would take (hwy::SetSupportedTargetsForTest; 0 restores the CPU's own).
#pragma once

#include <cstdint>

#include "hwy/targets.h"

namespace test_support {

class HighwayTargetMock {
public:
    explicit HighwayTargetMock(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
    ~HighwayTargetMock() { hwy::SetSupportedTargetsForTest(0); }
    HighwayTargetMock(const HighwayTargetMock &) = delete;
    HighwayTargetMock &operator=(const HighwayTargetMock &) = delete;
};

}  // namespace test_support
