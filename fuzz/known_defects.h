// POOLGRAD_FUZZ_AVOID_KNOWN_DEFECTS=1 steers the harness away from the defects of issue #13 that the
// library had when the fuzzer was written (double destroys, reused handles, aclrtMalloc sizes that wrap,
// offsets whose byte address overflows a pointer (found by this fuzzer),
// element counts that overflow int64, self-overlapping and aliased outputs; and, found later, aclnnMaxPoolV3
// ceilMode scalars that are NaN, infinite or beyond int64), so that a campaign on a
// library without their fixes can look for other defects. Unset (the default, and what scripts/fuzz.sh
// and the test command use), every path is fuzzed.
#pragma once

#include <cstdlib>

namespace poolgrad_fuzz {

inline bool knownDefectsAvoided() {
    static const bool avoided = [] {
        const char *value = std::getenv("POOLGRAD_FUZZ_AVOID_KNOWN_DEFECTS");
        return value != nullptr && value[0] == '1';
    }();
    return avoided;
}

}  // namespace poolgrad_fuzz
