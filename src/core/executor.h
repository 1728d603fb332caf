// aclOpExecutor: what phase 1 hands to phase 2 — the problem description and the implementation
// chosen for it. Callers hold a handle (core/handle_registry.h), so a run, destroyed or foreign executor is
// refused with 161001, never confused with another caller's executor.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"
#include "core/implementation.h"

namespace poolgrad {

// Ends phase 1 of every operator: picks an implementation and creates the executor.
aclnnStatus finishPhaseOne(const PoolProblem &problem, uint64_t *workspaceSize, aclOpExecutor **executor);

// Phase 2 of every operator: checks the executor, releases it unless repeatable, checks the other arguments
// and runs it. A null stream is the default stream; a destroyed one is refused (161001).
aclnnStatus runPhaseTwo(const char *operatorName, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream);

// Clears the phase-1 outputs of a failed call, as CANN does.
void clearPhaseOneOutputs(uint64_t *workspaceSize, aclOpExecutor **executor);

// Phase 1 of every operator: describe(problem) checks the arguments in contract order and fills the
// problem; a failure clears the outputs, a success picks an implementation and creates the executor.
template <typename Describe>
aclnnStatus planOperator(uint64_t *workspaceSize, aclOpExecutor **executor, Describe &&describe) {
    PoolProblem problem;
    if (const aclnnStatus status = describe(problem)) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return status;
    }
    return finishPhaseOne(problem, workspaceSize, executor);
}

}  // namespace poolgrad
