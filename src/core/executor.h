// aclOpExecutor: what phase 1 hands to phase 2 — the problem description, the implementation chosen for
// it and the plan it made. Callers hold a handle (core/handle_registry.h), so a run, destroyed or foreign executor is
// refused with 161001, never confused with another caller's executor.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/error_message.h"
#include "core/implementation.h"
#include "runtime/descriptor_handles.h"

namespace poolgrad {

// One input or output tensor of a phase-1 call as the executor keeps it, so that aclSetInputTensorAddr /
// aclSetOutputTensorAddr can point it at new memory before a run.
struct BoundTensor {
    const char *name = "";
    TensorRole role;
    const void *handle = nullptr;                 // the caller's handle: compared, never dereferenced
    std::shared_ptr<const aclTensor> descriptor;  // as phase 1 saw it (then re-pointed); null: passed null
};
using BoundTensors = std::vector<BoundTensor>;

// Whether the operator's memory rules check this tensor: every output, and the inputs phase 1 reads (not
// those it takes only the shape of, such as a backward's self).
inline bool memoryRulesCover(const BoundTensor &bound) {
    return bound.role.output || bound.role.operand != OperandRole::None;
}

// The operator's memory rules (api/operand_memory.h) over its bound tensors, rerun by the first phase 2
// after an address changed.
using BoundMemoryRules = aclnnStatus (*)(const char *op, const BoundTensors &tensors);

// Ends phase 1 of every operator: records the current device's backend in the problem, plans it with the
// first implementation of that backend that accepts it, and creates the executor holding problem, plan and
// the operator's input and output tensors.
aclnnStatus finishPhaseOne(PoolProblem &problem, BoundTensors tensors, BoundMemoryRules memoryRules,
                           uint64_t *workspaceSize, aclOpExecutor **executor);

// Phase 2 of every operator: checks the executor, releases it unless repeatable, checks the other arguments
// and runs it. A null stream is the default stream; a destroyed one is refused (161001).
aclnnStatus runPhaseTwo(const char *operatorName, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream);

// Clears the phase-1 outputs of a failed call, as CANN does.
void clearPhaseOneOutputs(uint64_t *workspaceSize, aclOpExecutor **executor);

// Phase 1 of every operator. First every descriptor argument listed in `handles` is replaced, in the
// caller's own variable, by the descriptor its handle names (a destroyed or foreign handle: 161001; see
// runtime/descriptor_handles.h), and stays alive until phase 1 returns. Then describe(problem) checks the
// arguments in contract order and fills the problem. A failure clears the outputs; a success picks an
// implementation and creates the executor, which keeps the descriptors of the arguments with a tensor role.
// describe must capture the listed variables by reference.
template <typename Describe>
aclnnStatus planOperator(const char *op, std::initializer_list<LiveDescriptors::Argument> handles,
                         BoundMemoryRules memoryRules, uint64_t *workspaceSize, aclOpExecutor **executor,
                         Describe &&describe) {
    PoolProblem problem;
    LiveDescriptors live;
    aclnnStatus status = live.resolve(op, handles);
    if (status == ACLNN_SUCCESS) status = describe(problem);
    if (status != ACLNN_SUCCESS) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return status;
    }
    BoundTensors tensors;
    try {
        tensors.reserve(handles.size());
        for (const LiveDescriptors::Argument &argument : handles)
            if (argument.hasTensorRole())
                tensors.push_back({argument.name(), argument.tensorRole(), argument.callerHandle(),
                                   live.pinnedTensor(argument.resolvedTensor())});
    } catch (const std::bad_alloc &) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return fail(ACLNN_ERR_INNER_NULLPTR, op, ": out of memory recording the tensor arguments");
    }
    return finishPhaseOne(problem, std::move(tensors), memoryRules, workspaceSize, executor);
}

}  // namespace poolgrad
