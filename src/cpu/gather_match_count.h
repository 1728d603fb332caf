// How every write-once gather knows it was complete. A gather makes each gradInput element from the few
// windows that can contain it, so an index outside its own window (scattered all the same, SPEC §3.6) or
// outside its plane (an error) is simply never matched. Each gather counts the indices that name an element
// (expected) and the (output, element) pairs its compares matched; the two agree exactly when no index was
// missed, and otherwise the run hands the whole problem to the scatter reference, which the run report names.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/implementation.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {

struct GatherMatchCount {
    int64_t expected = 0, matched = 0;
};

// Runs countedBlock(begin, end) -> GatherMatchCount over items [0, items) on `threads` (an even split, or
// turns of `itemsPerTurn` from a shared counter when it is positive), each thread fencing its streaming stores, and
// says whether every expected index was matched.
template <typename CountedBlock>
bool gatherOnThreads(int threads, int64_t items, int64_t itemsPerTurn, bool streaming,
                     const CountedBlock &countedBlock) {
    std::atomic<int64_t> expected{0}, matched{0};
    const auto block = [&](int64_t begin, int64_t end) {
        const GatherMatchCount count = countedBlock(begin, end);
        expected += count.expected;
        matched += count.matched;
    };
    runBlocksOnThreadsInTurnsOf(threads, items, itemsPerTurn, fencingStreamingStores(streaming, block));
    return expected.load() == matched.load();
}

// Runs typedGather(value, index) -> complete for the problem's gradient and index types; an incomplete
// gather hands the problem to the scatter reference (planned in phase 1 as `fallback`).
template <typename TypedGather>
RunResult gatherOrHandOver(const PoolProblem &problem, const ImplementationPlan &fallback,
                           const TypedGather &typedGather) {
    const bool complete = withValueType(problem.gradOutput.type, [&](auto value) {
        return withIndexType(problem.indices.type, [&](auto index) { return typedGather(value, index); });
    });
    if (complete) return {};
    return handOverToScatterReference(problem, fallback);
}

}  // namespace poolgrad::cpu
