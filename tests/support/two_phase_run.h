// The outcome of one two-phase operator call in a test, and the runner that makes it: phase 1, a workspace
// from aclrtMalloc when one is asked for, phase 2, then aclrtSynchronizeStream so that the results can be read.
#pragma once

#include <cstdint>
#include <string>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace test_support {

struct TwoPhaseStatus {
    aclnnStatus phaseOne = -1;
    aclnnStatus phaseTwo = -1;  // -1: not reached; -2: no workspace; -3: the stream sync failed
    uint64_t workspaceSize = 0;
    bool executorReturned = false;
    std::string message;  // aclGetRecentErrMsg() after the last phase that ran
};

using PhaseTwoFunction = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// Phase 2 of an executor (workspace allocated here when workspaceSize > 0) plus synchronisation.
aclnnStatus runPhaseTwo(PhaseTwoFunction phaseTwo, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream = nullptr);

// `phaseOne(uint64_t *workspaceSize, aclOpExecutor **executor)`, then phase 2 when it succeeded.
template <typename PhaseOne>
TwoPhaseStatus runTwoPhase(PhaseOne phaseOne, PhaseTwoFunction phaseTwo, aclrtStream stream = nullptr) {
    TwoPhaseStatus result;
    aclOpExecutor *executor = nullptr;
    result.phaseOne = phaseOne(&result.workspaceSize, &executor);
    result.executorReturned = executor != nullptr;
    if (result.phaseOne == ACLNN_SUCCESS)
        result.phaseTwo = runPhaseTwo(phaseTwo, result.workspaceSize, executor, stream);
    result.message = aclGetRecentErrMsg();
    return result;
}

}  // namespace test_support
