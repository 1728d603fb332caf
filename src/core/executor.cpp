#include "core/executor.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "core/error_message.h"
#include "core/handle_registry.h"
#include "core/plan_cache.h"
#include "core/verbose.h"
#include "poolgrad/poolgrad.h"
#include "runtime/device.h"
#include "runtime/streams.h"

struct aclOpExecutor {
    poolgrad::PoolProblem problem;
    // Implementation and plan, chosen once in phase 1 (or taken from the thread's plan cache) and run as
    // they are every time.
    std::shared_ptr<const poolgrad::PlannedSelection> selection;
    std::atomic<bool> repeatable{false};
};

namespace poolgrad {
namespace {

// Executors live behind handles, like the descriptors: a run, destroyed or released executor's handle is
// never issued again, so using it again is always detected, whatever phase 1 creates meanwhile.
HandleRegistry<aclOpExecutor> &executors() {
    static auto *registry = new HandleRegistry<aclOpExecutor>(HandleKind::Executor);  // see handle_registry.h
    return *registry;
}

// What the last phase 2 on this thread ran (poolgradGetLastRunReport).
struct LastRun {
    std::shared_ptr<const PlannedSelection> selection;  // keeps the report's plan text alive
    std::string fallback;
    int32_t status = 0;
};
thread_local LastRun lastRun;

aclnnStatus notLive(const char *function, const aclOpExecutor *executor) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, function, ": executor ", explainDeadHandle(executor, HandleKind::Executor));
}

}  // namespace

void clearPhaseOneOutputs(uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (workspaceSize) *workspaceSize = 0;
    if (executor) *executor = nullptr;
}

aclnnStatus finishPhaseOne(PoolProblem &problem, uint64_t *workspaceSize, aclOpExecutor **executor) {
    // The implementations considered are those of the backend of the caller's current device.
    problem.backend = deviceById(currentDeviceId()).backend();
    std::shared_ptr<const PlannedSelection> selection;
    try {
        selection = plannedSelection(problem);
    } catch (const std::bad_alloc &) {
        // Plans hold window tables sized by the output extents: an absurd geometry of a broadcast input
        // may not get them. Nothing has been written yet.
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER, problem.operatorName, ": out of memory planning ", problem.describe());
    }
    if (selection->chosen == nullptr) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, problem.operatorName, ": no implementation accepts ",
                    problem.describe(), " (", selection->declined, ")");
    }
    aclOpExecutor *handle = nullptr;
    try {
        auto created = std::make_shared<aclOpExecutor>();
        created->problem = problem;
        created->selection = std::move(selection);
        handle = executors().add(std::move(created));
    } catch (const std::bad_alloc &) {
    }
    if (handle == nullptr) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER_NULLPTR, problem.operatorName, ": out of memory creating the executor");
    }
    *workspaceSize = 0;  // the CPU kernels need no device workspace
    *executor = handle;
    clearRecentError();
    return ACLNN_SUCCESS;
}

aclnnStatus runPhaseTwo(const char *operatorName, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream) {
    if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": executor is null");
    // A single-use executor is taken out of the registry before it runs: of two threads running it, one
    // gets it, the other 161001. Every failure below has thus released it, as phase 2 must.
    const std::shared_ptr<aclOpExecutor> live =
        executors().findAndRelease(executor, [](const aclOpExecutor &found) { return !found.repeatable; });
    if (live == nullptr) return notLive(operatorName, executor);
    const PoolProblem &problem = live->problem;
    const PlannedSelection &selection = *live->selection;
    if (std::strcmp(problem.operatorName, operatorName) != 0)
        return fail(ACLNN_ERR_PARAM_INVALID, operatorName, ": executor was made by ", problem.operatorName,
                    "GetWorkspaceSize");
    if (workspaceSize > 0 && workspace == nullptr)
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": workspace is null but workspaceSize is ", workspaceSize);
    if (stream != nullptr && !isLiveStream(stream))
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": stream ", explainDeadHandle(stream, HandleKind::Stream));
    const auto start = std::chrono::steady_clock::now();
    RunResult result;
    try {
        result = selection.chosen->run(problem, *selection.plan);
    } catch (const std::bad_alloc &) {
        // Kernels allocate their tables and scratch before they write (and within the scratch bound), so
        // the outputs are untouched: e.g. a window table for an absurd padding of a broadcast input.
        result = RunResult::failure(ACLNN_ERR_INNER, "out of memory for the implementation's tables or scratch (" +
                                                         std::string(selection.chosen->name) + ")");
    }
    const double milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    lastRun.selection = live->selection;
    lastRun.fallback = std::move(result.fallback);
    lastRun.status = result.status;
    if (verboseEnabled()) {
        std::fprintf(stderr, "poolgrad: %s impl=%s plan={%s} time=%.3fms status=%d%s%s%s%s\n",
                     problem.describe().c_str(), selection.chosen->name, selection.planText.c_str(), milliseconds,
                     result.status, lastRun.fallback.empty() ? "" : " fallback=", lastRun.fallback.c_str(),
                     selection.declined.empty() ? "" : " declined=", selection.declined.c_str());
    }
    if (result.status != 0) return fail(result.status, operatorName, ": ", result.message);
    clearRecentError();
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad

extern "C" {

aclError poolgradGetLastRunReport(poolgradRunReport *report) {
    if (report == nullptr) {
        poolgrad::setRecentError("poolgradGetLastRunReport: report is null");
        return ACL_ERROR_INVALID_PARAM;
    }
    const poolgrad::LastRun &last = poolgrad::lastRun;
    if (last.selection == nullptr) {
        *report = {"", "", "", last.status};
    } else {
        *report = {last.selection->chosen->name, last.selection->planText.c_str(), last.fallback.c_str(), last.status};
    }
    return ACL_SUCCESS;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    if (executor == nullptr)
        return poolgrad::fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
    const std::shared_ptr<aclOpExecutor> live = poolgrad::executors().find(executor);
    if (live == nullptr) return poolgrad::notLive("aclSetAclOpExecutorRepeatable", executor);
    live->repeatable = true;
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == nullptr)
        return poolgrad::fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
    if (poolgrad::executors().remove(executor) == nullptr)
        return poolgrad::notLive("aclDestroyAclOpExecutor", executor);
    return ACLNN_SUCCESS;
}

}  // extern "C"
