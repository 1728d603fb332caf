// Two-phase calls of the 3-D max-pooling operators for tests (support/two_phase_run.h).
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "support/two_phase_run.h"

namespace test_support {

// Parameter lists exactly as passed to the operator (any of the allowed lengths).
struct MaxPool3dLists {
    std::vector<int64_t> kernel;
    std::vector<int64_t> stride;
    std::vector<int64_t> padding;
    std::vector<int64_t> dilation{1};
    bool ceilMode = false;
};

TwoPhaseStatus runMaxPool3dWithArgmax(const aclTensor *self, const MaxPool3dLists &lists, aclTensor *out,
                                      aclTensor *indices, aclrtStream stream = nullptr);

TwoPhaseStatus runMaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *indices, const MaxPool3dLists &lists,
                                              aclTensor *gradInput, aclrtStream stream = nullptr);

}  // namespace test_support
