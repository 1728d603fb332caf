// aclOpExecutor: what phase 1 hands to phase 2 — the problem description, the implementation chosen for
// it and the plan it made. Callers hold a handle (core/handle_registry.h), so a run, destroyed or foreign executor is
// refused with 161001, never confused with another caller's executor.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "aclnn/aclnn_base.h"
#include "core/implementation.h"
#include "runtime/descriptor_handles.h"

namespace poolgrad {

// Ends phase 1 of every operator: records the current device's backend in the problem, plans it with the
// first implementation of that backend that accepts it, and creates the executor holding problem and plan.
aclnnStatus finishPhaseOne(PoolProblem &problem, uint64_t *workspaceSize, aclOpExecutor **executor);

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
// implementation and creates the executor. describe must capture the listed variables by reference.
template <typename Describe>
aclnnStatus planOperator(const char *op, std::initializer_list<LiveDescriptors::Argument> handles,
                         uint64_t *workspaceSize, aclOpExecutor **executor, Describe &&describe) {
    PoolProblem problem;
    LiveDescriptors live;
    aclnnStatus status = live.resolve(op, handles);
    if (status == ACLNN_SUCCESS) status = describe(problem);
    if (status != ACLNN_SUCCESS) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return status;
    }
    return finishPhaseOne(problem, workspaceSize, executor);
}

}  // namespace poolgrad
