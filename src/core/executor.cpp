#include "core/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
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
    // The problem and the implementation and plan chosen for it, in phase 1 (or taken from the thread's plan
    // cache) and again by the first run after an address changed. A run takes both under the lock and runs
    // them outside it, so a refresh on another thread never changes what a run in progress reads.
    const char *operatorName = "";  // fixed in phase 1
    std::mutex mutex;
    std::shared_ptr<const poolgrad::PoolProblem> problem;
    std::shared_ptr<const poolgrad::PlannedSelection> selection;
    poolgrad::BoundTensors tensors;  // inputs and outputs in parameter order
    poolgrad::BoundMemoryRules memoryRules = nullptr;
    bool addressesChanged = false;
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

// Whether a tensor the memory rules check was given null data in phase 1 (which leaves that for the run, as
// CANN lets a program set the addresses with aclSetInputTensorAddr before it): the first run checks them.
bool awaitsAnAddress(const BoundTensors &tensors) {
    for (const BoundTensor &bound : tensors) {
        if (!memoryRulesCover(bound)) continue;
        const aclTensor *tensor = bound.descriptor.get();
        if (tensor == nullptr || tensor->data != nullptr) continue;
        if (std::find(tensor->viewShape.begin(), tensor->viewShape.end(), 0) == tensor->viewShape.end()) return true;
    }
    return false;
}

// After aclSetInputTensorAddr / aclSetOutputTensorAddr: the operands re-pointed, the operator's memory rules
// checked again on the new addresses, and the problem planned again (a plan may depend on the operands'
// alignment; the thread's plan cache makes this cheap). Called with the executor's lock held; on a failure
// the executor keeps its old problem and stays marked, so every run refuses until the addresses are fixed.
aclnnStatus rebindOperands(aclOpExecutor &executor) {
    const char *op = executor.operatorName;
    if (aclnnStatus s = executor.memoryRules(op, executor.tensors)) return s;
    try {
        auto problem = std::make_shared<PoolProblem>(*executor.problem);
        for (const BoundTensor &bound : executor.tensors) {
            StridedTensor *operand = operandInRole(*problem, bound.role.operand);
            if (operand == nullptr || !operand->present() || bound.descriptor == nullptr) continue;
            const aclTensor &tensor = *bound.descriptor;
            // As phase 1 made it (api/tensor_operand.cpp); the memory rules just checked the new address.
            operand->base = firstElementAddress(tensor);
            // The rules above align data + offset to the tensor's element size; an operand read as wider
            // elements (a mask's INT32 indices) needs its own alignment, which phase 1 checked for its address.
            const size_t bytes = elementSize(operand->type);
            if (operand->base != nullptr && reinterpret_cast<uintptr_t>(operand->base) % bytes != 0)
                return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", bound.name, " (data ", tensor.data, " + offset ",
                            tensor.offset, ") holds ", elementTypeName(operand->type),
                            " elements, so its first must be ", bytes, "-byte aligned");
        }
        std::shared_ptr<const PlannedSelection> selection = plannedSelection(*problem);
        if (selection->chosen == nullptr)
            return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, op, ": no implementation accepts ", problem->describe(),
                        " at the new addresses (", selection->declined, ")");
        executor.problem = std::move(problem);
        executor.selection = std::move(selection);
    } catch (const std::bad_alloc &) {
        return fail(ACLNN_ERR_INNER, op, ": out of memory planning the problem at its new addresses");
    }
    executor.addressesChanged = false;
    return ACLNN_SUCCESS;
}

// aclSetInputTensorAddr / aclSetOutputTensorAddr.
aclnnStatus setTensorAddress(const char *function, aclOpExecutor *executor, bool output, size_t index,
                             aclTensor *tensor, void *address) {
    if (executor == nullptr) return fail(ACLNN_ERR_INNER_NULLPTR, function, ": executor is null");
    if (tensor == nullptr) return fail(ACLNN_ERR_INNER_NULLPTR, function, ": tensor is null");
    const std::shared_ptr<aclOpExecutor> live = executors().find(executor);
    if (live == nullptr) return notLive(function, executor);
    const char *kind = output ? "output" : "input";
    std::lock_guard lock(live->mutex);
    BoundTensor *bound = nullptr;
    size_t count = 0;
    std::string names;
    for (BoundTensor &candidate : live->tensors) {
        if (candidate.role.output != output) continue;
        if (count == index) bound = &candidate;
        names += joinText(count == 0 ? "" : ", ", candidate.name);
        ++count;
    }
    const char *op = live->operatorName;
    if (bound == nullptr)
        return fail(ACLNN_ERR_PARAM_INVALID, function, ": index ", index, " is out of range: ", op, " has ", count,
                    " tensor ", kind, count == 1 ? "" : "s", " (", names, ")");
    if (bound->descriptor == nullptr)
        return fail(ACLNN_ERR_PARAM_INVALID, function, ": ", kind, " ", index, " (", bound->name, ") of ", op,
                    " was null in phase 1; only a tensor passed there can be given a new address");
    if (bound->handle != tensor)
        return fail(ACLNN_ERR_PARAM_INVALID, function, ": tensor is not the aclTensor passed to ", op, " as ", kind,
                    " ", index, " (", bound->name, ") in phase 1");
    std::shared_ptr<aclTensor> repointed;
    try {
        repointed = std::make_shared<aclTensor>(*bound->descriptor);
    } catch (const std::bad_alloc &) {
        return fail(ACLNN_ERR_INNER, function, ": out of memory");
    }
    repointed->data = address;
    bound->descriptor = repointed;
    live->addressesChanged = true;
    // CANN records the address in the tensor too (aclGetRawTensorAddr reads it back); a tensor destroyed
    // since phase 1 has nothing to record it in.
    descriptorHandles<aclTensor>().replace(tensor, std::move(repointed));
    clearRecentError();
    return ACLNN_SUCCESS;
}

}  // namespace

void clearPhaseOneOutputs(uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (workspaceSize) *workspaceSize = 0;
    if (executor) *executor = nullptr;
}

aclnnStatus finishPhaseOne(PoolProblem &problem, BoundTensors tensors, BoundMemoryRules memoryRules,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
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
        created->operatorName = problem.operatorName;
        created->problem = std::make_shared<const PoolProblem>(problem);
        created->selection = std::move(selection);
        created->addressesChanged = awaitsAnAddress(tensors);
        created->tensors = std::move(tensors);
        created->memoryRules = memoryRules;
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
    if (std::strcmp(live->operatorName, operatorName) != 0)
        return fail(ACLNN_ERR_PARAM_INVALID, operatorName, ": executor was made by ", live->operatorName,
                    "GetWorkspaceSize");
    if (workspaceSize > 0 && workspace == nullptr)
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": workspace is null but workspaceSize is ", workspaceSize);
    if (stream != nullptr && !isLiveStream(stream))
        return fail(ACLNN_ERR_PARAM_NULLPTR, operatorName, ": stream ", explainDeadHandle(stream, HandleKind::Stream));
    std::shared_ptr<const PoolProblem> problemHeld;
    std::shared_ptr<const PlannedSelection> selectionHeld;
    {
        std::lock_guard lock(live->mutex);
        if (live->addressesChanged)
            if (aclnnStatus s = rebindOperands(*live)) return s;
        problemHeld = live->problem;
        selectionHeld = live->selection;
    }
    const PoolProblem &problem = *problemHeld;
    const PlannedSelection &selection = *selectionHeld;
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
    lastRun.selection = selectionHeld;
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

aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    return poolgrad::setTensorAddress("aclSetInputTensorAddr", executor, false, index, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    return poolgrad::setTensorAddress("aclSetOutputTensorAddr", executor, true, index, tensor, addr);
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == nullptr)
        return poolgrad::fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
    if (poolgrad::executors().remove(executor) == nullptr)
        return poolgrad::notLive("aclDestroyAclOpExecutor", executor);
    return ACLNN_SUCCESS;
}

}  // extern "C"
