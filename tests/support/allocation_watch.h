// The largest single allocation made through operator new (by the library too: the test binary replaces
// the global operator new, and libpoolgrad.so's calls bind to it) while a watch is alive, from any thread.
// Lets a test check poolgrad's bound on scratch memory without reading its sources.
#pragma once

#include <cstddef>

namespace test_support {

class LargestAllocationWatch {
public:
    LargestAllocationWatch();
    ~LargestAllocationWatch();
    LargestAllocationWatch(const LargestAllocationWatch &) = delete;
    LargestAllocationWatch &operator=(const LargestAllocationWatch &) = delete;
    size_t largestBytes() const;
};

}  // namespace test_support
