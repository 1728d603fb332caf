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
#include "core/verbose.h"
#include "runtime/streams.h"

struct aclOpExecutor {
    poolgrad::PoolProblem problem;
    const poolgrad::Implementation *implementation = nullptr;
    std::string declined;
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

aclnnStatus notLive(const char *function, const aclOpExecutor *executor) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, function, ": executor ", explainDeadHandle(executor, HandleKind::Executor));
}

}  // namespace

void clearPhaseOneOutputs(uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (workspaceSize) *workspaceSize = 0;
    if (executor) *executor = nullptr;
}

aclnnStatus finishPhaseOne(const PoolProblem &problem, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const Selection selection = selectImplementation(problem);
    if (selection.chosen == nullptr) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, problem.operatorName, ": no implementation accepts ",
                    problem.describe(), " (", selection.declined, ")");
    }
    aclOpExecutor *handle = nullptr;
    try {
        auto created = std::make_shared<aclOpExecutor>();
        created->problem = problem;
        created->implementation = selection.chosen;
        created->declined = selection.declined;
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
        result = live->implementation->run(problem);
    } catch (const std::bad_alloc &) {
        // Kernels allocate their tables and scratch before they write (and within the scratch bound), so
        // the outputs are untouched: e.g. a window table for an absurd padding of a broadcast input.
        result = RunResult{ACLNN_ERR_INNER, "out of memory for the implementation's tables or scratch (" +
                                                std::string(live->implementation->name) + ")"};
    }
    const double milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (verboseEnabled()) {
        std::fprintf(stderr, "poolgrad: %s impl=%s time=%.3fms status=%d%s%s\n", problem.describe().c_str(),
                     live->implementation->name, milliseconds, result.status,
                     live->declined.empty() ? "" : " declined=", live->declined.c_str());
    }
    if (result.status != 0) return fail(result.status, operatorName, ": ", result.message);
    clearRecentError();
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad

extern "C" {

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
