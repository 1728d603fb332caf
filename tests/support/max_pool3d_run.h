// Two-phase calls of the 3-D max-pooling operators for tests: phase 1, a workspace from aclrtMalloc when
// one is asked for, phase 2, then aclrtSynchronizeStream so that the results can be read.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace test_support {

// Parameter lists exactly as passed to the operator (any of the allowed lengths).
struct MaxPool3dLists {
    std::vector<int64_t> kernel;
    std::vector<int64_t> stride;
    std::vector<int64_t> padding;
    std::vector<int64_t> dilation{1};
    bool ceilMode = false;
};

struct TwoPhaseStatus {
    aclnnStatus phaseOne = -1;
    aclnnStatus phaseTwo = -1;  // -1 when phase 2 was not reached
    uint64_t workspaceSize = 0;
    bool executorReturned = false;
};

TwoPhaseStatus runMaxPool3dWithArgmax(const aclTensor *self, const MaxPool3dLists &lists, aclTensor *out,
                                      aclTensor *indices, aclrtStream stream = nullptr);

TwoPhaseStatus runMaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *indices, const MaxPool3dLists &lists,
                                              aclTensor *gradInput, aclrtStream stream = nullptr);

// Phase 2 of an executor (workspace allocated here when workspaceSize > 0) plus synchronisation.
aclnnStatus runPhaseTwo(aclnnStatus (*phaseTwo)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                        uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream = nullptr);

}  // namespace test_support
