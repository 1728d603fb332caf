#include "core/executor.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "core/error_message.h"
#include "core/verbose.h"

struct aclOpExecutor {
    poolgrad::PoolProblem problem;
    const poolgrad::Implementation *implementation = nullptr;
    std::string declined;
    bool repeatable = false;
};

namespace poolgrad {
namespace {

std::mutex liveExecutorsMutex;
std::unordered_set<const aclOpExecutor *> &liveExecutors() {
    static std::unordered_set<const aclOpExecutor *> executors;
    return executors;
}

bool isLive(const aclOpExecutor *executor) {
    std::lock_guard lock(liveExecutorsMutex);
    return liveExecutors().count(executor) != 0;
}

// Removes and frees an executor; false when it was not live (double free or foreign pointer).
bool release(aclOpExecutor *executor) {
    {
        std::lock_guard lock(liveExecutorsMutex);
        if (liveExecutors().erase(executor) == 0) return false;
    }
    delete executor;
    return true;
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
    auto *created = new (std::nothrow) aclOpExecutor{problem, selection.chosen, selection.declined, false};
    if (created == nullptr) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER_NULLPTR, problem.operatorName, ": out of memory creating the executor");
    }
    {
        std::lock_guard lock(liveExecutorsMutex);
        liveExecutors().insert(created);
    }
    *workspaceSize = 0;  // the CPU kernels need no device workspace
    *executor = created;
    clearRecentError();
    return ACLNN_SUCCESS;
}

aclnnStatus runPhaseTwo(const char *operatorName, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream /*stream: the CPU backend runs synchronously*/) {
    if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": executor is null");
    if (!isLive(executor))
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName,
                    ": executor is not live (already run, destroyed, or not made by phase 1)");
    if (std::strcmp(executor->problem.operatorName, operatorName) != 0) {
        const std::string owner = executor->problem.operatorName;
        if (!executor->repeatable) release(executor);
        return fail(ACLNN_ERR_PARAM_INVALID, operatorName, ": executor was made by ", owner, "GetWorkspaceSize");
    }
    if (workspaceSize > 0 && workspace == nullptr) {
        if (!executor->repeatable) release(executor);
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": workspace is null but workspaceSize is ",
                    workspaceSize);
    }
    const auto start = std::chrono::steady_clock::now();
    const RunResult result = executor->implementation->run(executor->problem);
    const double milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (verboseEnabled()) {
        std::fprintf(stderr, "poolgrad: %s impl=%s time=%.3fms status=%d%s%s\n", executor->problem.describe().c_str(),
                     executor->implementation->name, milliseconds, result.status,
                     executor->declined.empty() ? "" : " declined=", executor->declined.c_str());
    }
    if (!executor->repeatable) release(executor);
    if (result.status != 0) return fail(result.status, operatorName, ": ", result.message);
    clearRecentError();
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    if (executor == nullptr) return poolgrad::fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
    if (!poolgrad::isLive(executor))
        return poolgrad::fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is not live");
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == nullptr) return poolgrad::fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
    if (!poolgrad::release(executor))
        return poolgrad::fail(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor: executor is not live");
    return ACLNN_SUCCESS;
}

}  // extern "C"
