// Seeds of the random tests: a fixed list plus one fresh seed per process (std::random_device), or
// POOLGRAD_TEST_SEED to reproduce a failure; every failure's trace names the seed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace test_support {

inline uint64_t freshSeed() {
    static const uint64_t seed = [] {
        if (const char *text = std::getenv("POOLGRAD_TEST_SEED"))
            return static_cast<uint64_t>(std::strtoull(text, nullptr, 0));
        std::random_device device;
        return (uint64_t(device()) << 32) ^ uint64_t(device());
    }();
    return seed;
}

// The fixed seeds followed by the fresh one.
inline std::vector<uint64_t> seedsWith(std::initializer_list<uint64_t> fixed) {
    std::vector<uint64_t> all(fixed);
    all.push_back(freshSeed());
    return all;
}

inline std::string seedTrace(uint64_t seed) {
    return "seed " + std::to_string(seed) + " (rerun with POOLGRAD_TEST_SEED=" + std::to_string(seed) + ")";
}

}  // namespace test_support
