#include "core/plan_cache.h"

#include <hwy/targets.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>

#include "core/streaming_stores.h"
#include "core/threading.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad {
namespace {

struct OperandKey {
    ElementType type = ElementType::Float32;
    int rank = 0;
    std::array<int64_t, 5> size{}, stride{};
    uintptr_t alignment = 0;  // address modulo 64

    static OperandKey of(const StridedTensor &tensor) {
        return {tensor.type, tensor.rank, tensor.size, tensor.stride, reinterpret_cast<uintptr_t>(tensor.base) % 64};
    }
    bool operator==(const OperandKey &) const = default;
};

bool sameAxis(const WindowAxis &a, const WindowAxis &b) {
    return std::tie(a.inputSize, a.outputSize, a.adaptive, a.kernel, a.stride, a.padBegin, a.dilation) ==
           std::tie(b.inputSize, b.outputSize, b.adaptive, b.kernel, b.stride, b.padBegin, b.dilation);
}

struct PlanKey {
    const char *operatorName = "";
    PoolTask task = PoolTask::ZeroFill;
    Backend backend = Backend::Cpu;
    int64_t batch = 0, channels = 0;
    std::array<WindowAxis, 3> axes{};
    std::array<OperandKey, 5> operands{};
    int threads = 0;
    int64_t minimumWork = 0;
    StreamingStores streaming = StreamingStores::Automatic;
    size_t simdTarget = 0;

    static PlanKey of(const PoolProblem &problem) {
        return {problem.operatorName,
                problem.task,
                problem.backend,
                problem.geometry.batch,
                problem.geometry.channels,
                problem.geometry.axes,
                {OperandKey::of(problem.input), OperandKey::of(problem.output), OperandKey::of(problem.indices),
                 OperandKey::of(problem.gradOutput), OperandKey::of(problem.gradInput)},
                operatorThreadCount(),
                minimumWorkPerThread(),
                streamingStoresChoice(),
                hwy::GetChosenTarget().GetIndex()};
    }
    bool operator==(const PlanKey &other) const {
        return std::strcmp(operatorName, other.operatorName) == 0 && task == other.task && backend == other.backend &&
               batch == other.batch && channels == other.channels && sameAxis(axes[0], other.axes[0]) &&
               sameAxis(axes[1], other.axes[1]) && sameAxis(axes[2], other.axes[2]) && operands == other.operands &&
               threads == other.threads && minimumWork == other.minimumWork && streaming == other.streaming &&
               simdTarget == other.simdTarget;
    }
};

struct CacheEntry {
    PlanKey key;
    std::shared_ptr<const PlannedSelection> selection;
};

// Most recently used first.
struct PlanCache {
    std::array<CacheEntry, kPlanCacheEntries> entries;
    int used = 0;
};
thread_local PlanCache cache;

// Highway's dispatch target is read from its chosen-target mask, which hwy::SetSupportedTargetsForTest resets
// until the next dispatched call; a plan made meanwhile may be for either target. (hwy::SupportedTargets()
// asks CPUID, which took 15 us per call in a VM.)
bool cacheable(const PoolProblem &problem) {
    return !implementationForced() && hwy::GetChosenTarget().IsInitialized() &&
           problem.geometry.inputPlaneElements() <= kMaxCachedPlaneElements &&
           problem.geometry.outputPlaneElements() <= kMaxCachedPlaneElements;
}

std::shared_ptr<const PlannedSelection> planAfresh(const PoolProblem &problem) {
    Selection selection = selectImplementation(problem);
    auto planned = std::make_shared<PlannedSelection>();
    planned->chosen = selection.chosen;
    planned->plan = std::move(selection.plan);
    if (planned->plan) planned->planText = planned->plan->describe();
    planned->declined = std::move(selection.declined);
    return planned;
}

}  // namespace

std::shared_ptr<const PlannedSelection> plannedSelection(const PoolProblem &problem) {
    if (!cacheable(problem)) return planAfresh(problem);
    const PlanKey key = PlanKey::of(problem);
    for (int i = 0; i < cache.used; ++i) {
        if (!(cache.entries[static_cast<size_t>(i)].key == key)) continue;
        std::rotate(cache.entries.begin(), cache.entries.begin() + i, cache.entries.begin() + i + 1);
        return cache.entries[0].selection;
    }
    std::shared_ptr<const PlannedSelection> planned = planAfresh(problem);
    // A problem no implementation accepts is an error path: its message is built afresh each time.
    if (planned->chosen == nullptr) return planned;
    cache.used = std::min(cache.used + 1, kPlanCacheEntries);
    std::rotate(cache.entries.begin(), cache.entries.begin() + cache.used - 1, cache.entries.begin() + cache.used);
    cache.entries[0] = {key, planned};
    return planned;
}

void clearPlanCache() {
    cache.entries = {};
    cache.used = 0;
}

}  // namespace poolgrad

extern "C" void poolgradClearPlanCache(void) { poolgrad::clearPlanCache(); }
