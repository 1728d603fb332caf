// Operator threading: a thread count owned by poolgrad (never the caller's OpenMP state) and a
// parallel loop in which each iteration owns a disjoint part of the output.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/checked_arithmetic.h"

namespace poolgrad {

int operatorThreadCount();
int64_t minimumWorkPerThread();

// Threads worth using for `work` elements: a thread costs more to wake than a few thousand
// elements take, so small problems run on the calling thread alone.
inline int threadsForWork(int64_t work) {
    const int64_t useful = std::max<int64_t>(1, work / minimumWorkPerThread());
    return static_cast<int>(std::min<int64_t>(operatorThreadCount(), useful));
}

// Runs body(begin, end) over contiguous blocks of [0, count), each item touching about workPerItem
// elements. Each index is visited once; bodies must write only what their indices own, which makes
// results independent of how many threads run.
template <typename Body>
void parallelForBlocks(int64_t count, int64_t workPerItem, const Body &body) {
    const int threads = threadsForWork(saturatingMul(count, std::max<int64_t>(workPerItem, 1)));
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

}  // namespace poolgrad
