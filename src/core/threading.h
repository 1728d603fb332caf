// Operator threading: a thread count owned by poolgrad (never the caller's OpenMP state) and a
// parallel loop in which each iteration owns a disjoint part of the output.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

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

// Threads a plan uses for `items` items of about workPerItem elements each: threadsForWork's rule, never
// more than there are items. Plans fix this in phase 1, so a thread count changed between the phases does
// not change a planned run.
inline int plannedThreadCount(int64_t items, int64_t workPerItem) {
    const int64_t threads =
        threadsForWork(saturatingMul(std::max<int64_t>(items, 1), std::max<int64_t>(workPerItem, 1)));
    return static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(items, 1)));
}

// Work items of a plane-by-plane kernel that may split planes into blocks of output rows: the planes alone when
// they give every thread four items, else as many row blocks per plane as make up four per thread (at most one
// per output row); planeWork elements per plane decide the threads.
struct PlaneRowBlocks {
    int64_t rowBlocks = 1;  // work items per plane
    int64_t items = 0;
    int threads = 1;
};
inline PlaneRowBlocks planeRowBlocks(int64_t planes, int64_t outputRows, int64_t planeWork) {
    PlaneRowBlocks split;
    const int64_t wanted = saturatingMul<int64_t>(operatorThreadCount(), 4);
    split.rowBlocks =
        std::clamp<int64_t>((wanted + planes - 1) / std::max<int64_t>(planes, 1), 1, std::max<int64_t>(outputRows, 1));
    split.items = saturatingMul(planes, split.rowBlocks);
    split.threads = plannedThreadCount(split.items, std::max<int64_t>(1, planeWork / split.rowBlocks));
    return split;
}

// Runs body(begin, end) over `threads` contiguous blocks of [0, count) (the calling thread alone for one
// thread or one item). Each index is visited once; bodies must write only what their indices own, which
// makes results independent of how many threads run.
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

// Like runBlocksOnThreads, but the threads take blocks of `grain` consecutive items in turn from a shared
// counter until none is left, so a thread that starts late (woken from sleep, or delayed by another process
// on its processor) does less, instead of the whole call waiting for its fixed share. For bodies whose items are
// independent: which thread takes an item must not change what it writes.
template <typename Body>
void runBlocksOnThreadsTakingTurns(int threads, int64_t count, int64_t grain, const Body &body) {
    if (threads <= 1 || count <= 1) {
        body(int64_t{0}, count);
        return;
    }
    grain = std::max<int64_t>(grain, 1);
    // The counter passes count by at most threads * grain: keep that inside int64.
    if (grain > (std::numeric_limits<int64_t>::max() - count) / threads) {
        runBlocksOnThreads(threads, count, body);
        return;
    }
    std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(threads)
    for (;;) {
        const int64_t begin = next.fetch_add(grain, std::memory_order_relaxed);
        if (begin >= count) break;
        body(begin, count - begin > grain ? begin + grain : count);
    }
}

// Problems that move more than this many bytes (every operand once) take their work items in turns. On the
// Zen 4 VM one of two threads often ran a whole call at half the other's speed (timed per thread: 2.7 to 7.5
// ms for the same half of D-fwd, both starting within microseconds), so a call of fixed halves waited for
// the slower; in turns D-fwd took 3.7-6.0 / 4.8-5.9 ms warm / cold against 6.0-7.3 / 5.8-7.2, D-v3-nhwc
// 5.2 / 5.4 against 6.7 / 6.5, D 1.93 / 2.11 against 2.10 / 2.26 (medians, interleaved rounds). The short,
// cache-resident cases (21 MB and less) measured level or slower in turns (B-fwd-cl 0.94 against 0.68 ms
// warm), so they keep fixed contiguous shares.
inline constexpr int64_t kTurnsFromBytes = int64_t{32} << 20;

// Items per turn for `items` work items on `threads` in a problem moving `bytes`: about sixteen turns per
// thread past kTurnsFromBytes, else 0 (fixed contiguous shares, runBlocksOnThreads).
inline int64_t itemsPerTurnFor(int threads, int64_t items, int64_t bytes) {
    if (threads <= 1 || bytes <= kTurnsFromBytes) return 0;
    return std::max<int64_t>(1, items / (16 * static_cast<int64_t>(threads)));
}

// What a plan's describe() adds for itemsPerTurnFor's answer: " in turns of N", or nothing for fixed shares.
inline std::string turnsText(int64_t itemsPerTurn) {
    return itemsPerTurn > 0 ? " in turns of " + std::to_string(itemsPerTurn) : std::string();
}

// runBlocksOnThreadsTakingTurns in turns of itemsPerTurn items when it is positive, else runBlocksOnThreads.
template <typename Body>
void runBlocksOnThreadsInTurnsOf(int threads, int64_t count, int64_t itemsPerTurn, const Body &body) {
    if (itemsPerTurn > 0)
        runBlocksOnThreadsTakingTurns(threads, count, itemsPerTurn, body);
    else
        runBlocksOnThreads(threads, count, body);
}

// Unplanned kernels: runBlocksOnThreads with the threads `count` items of `workPerItem` elements are worth now.
template <typename Body>
void parallelForBlocks(int64_t count, int64_t workPerItem, const Body &body) {
    runBlocksOnThreads(plannedThreadCount(count, workPerItem), count, body);
}

}  // namespace poolgrad
