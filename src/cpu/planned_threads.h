// The thread split a plan fixes in phase 1: how many threads share a problem's items is decided with the
// plan (and shown in its description), and phase 2 runs exactly that split.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/checked_arithmetic.h"
#include "core/threading.h"

namespace poolgrad::cpu {

// Threads worth using for `items` items of about workPerItem elements each (never more than items).
inline int plannedThreadCount(int64_t items, int64_t workPerItem) {
    const int64_t threads =
        threadsForWork(saturatingMul(std::max<int64_t>(items, 1), std::max<int64_t>(workPerItem, 1)));
    return static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(items, 1)));
}

// body(begin, end) over `threads` contiguous blocks of [0, count); each index is visited once.
template <typename Body>
void runBlocksOnThreads(int threads, int64_t count, const Body &body) {
    if (threads <= 1 || count <= 1) {
        body(int64_t{0}, count);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int t = 0; t < threads; ++t) {
        const auto begin = static_cast<int64_t>(static_cast<__int128>(count) * t / threads);
        const auto end = static_cast<int64_t>(static_cast<__int128>(count) * (t + 1) / threads);
        if (begin < end) body(begin, end);
    }
}

}  // namespace poolgrad::cpu
