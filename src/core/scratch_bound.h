// The one bound on the memory an implementation may allocate beyond the tensors. Every worker thread of
// a CPU implementation keeps its scratch (slabs of float32 sums, widened rows, window position lists)
// within kScratchBytesPerThread; a fast implementation whose scratch would exceed it declines (the
// reference takes the problem), and the references work on tiles of at most this size. Only the window
// tables (one AxisWindow per output coordinate of each axis, docs/architecture.md) grow with the problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace poolgrad {

inline constexpr int64_t kScratchBytesPerThread = int64_t{8} << 20;  // 8 MiB

// float32 sums that fit in one thread's scratch.
inline constexpr int64_t kScratchFloats = kScratchBytesPerThread / static_cast<int64_t>(sizeof(float));

// The reason an implementation declines a problem whose scratch would exceed the bound; bytes is
// nullopt when even the count overflows.
inline std::string scratchDeclineText(const char *what, std::optional<int64_t> bytes) {
    return std::string(what) + " needs " + (bytes ? std::to_string(*bytes) : std::string("more than 2^63")) +
           " bytes of scratch per thread, more than the bound of " + std::to_string(kScratchBytesPerThread);
}

}  // namespace poolgrad
