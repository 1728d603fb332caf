// The thread split a plan decides in phase 1, and the parallel loop that runs a plan on exactly those
// threads in phase 2 (a thread count changed between the phases does not change a planned run).
#pragma once

#include <cstdint>

#include "core/threading.h"

namespace poolgrad::cpu {

// Runs body(begin, end) over `threads` contiguous blocks of [0, count) (the calling thread alone for
// one thread or one item). Each index is visited once; bodies write only what their indices own.
template <typename Body>
void runBlocksOnThreads(int threads, int64_t count, const Body &body) {
    if (threads <= 1 || count <= 1) {
        body(int64_t{0}, count);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int t = 0; t < threads; ++t) {
        // 128-bit: count * (t + 1) may exceed int64 for absurd counts.
        const auto begin = static_cast<int64_t>(static_cast<__int128>(count) * t / threads);
        const auto end = static_cast<int64_t>(static_cast<__int128>(count) * (t + 1) / threads);
        if (begin < end) body(begin, end);
    }
}

// Threads a plan uses for `count` items of about `workPerItem` elements each (core/threading.h's rule).
inline int plannedThreads(int64_t count, int64_t workPerItem) {
    const int threads = threadsForWork(saturatingMul(count, std::max<int64_t>(workPerItem, 1)));
    return count <= 1 ? 1 : static_cast<int>(std::min<int64_t>(threads, count));
}

}  // namespace poolgrad::cpu
