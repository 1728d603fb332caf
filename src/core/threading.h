// Operator threading: a thread count owned by poolgrad (never the caller's OpenMP state) and a
// parallel loop in which each iteration owns a disjoint part of the output.
#pragma once

#include <cstdint>

namespace poolgrad {

int operatorThreadCount();

// Runs body(begin, end) over contiguous blocks of [0, count). Blocks are a pure function of count and
// the thread count, and each index is visited once; bodies must write only what their indices own.
template <typename Body>
void parallelForBlocks(int64_t count, const Body &body) {
    const int threads = operatorThreadCount();
    if (threads <= 1 || count <= 1) {
        body(int64_t{0}, count);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int t = 0; t < threads; ++t) {
        const int64_t begin = count * t / threads;
        const int64_t end = count * (t + 1) / threads;
        if (begin < end) body(begin, end);
    }
}

}  // namespace poolgrad
