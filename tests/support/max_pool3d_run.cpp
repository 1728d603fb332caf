#include "support/max_pool3d_run.h"

#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/test_tensor.h"

namespace test_support {

TwoPhaseStatus runMaxPool3dWithArgmax(const aclTensor *self, const MaxPool3dLists &lists, aclTensor *out,
                                      aclTensor *indices, aclrtStream stream) {
    IntArray kernel(lists.kernel), stride(lists.stride), padding(lists.padding), dilation(lists.dilation);
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernel, stride, padding, dilation, lists.ceilMode,
                                                            out, indices, workspaceSize, executor);
        },
        aclnnMaxPool3dWithArgmax, stream);
}

TwoPhaseStatus runMaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *indices, const MaxPool3dLists &lists,
                                              aclTensor *gradInput, aclrtStream stream) {
    IntArray kernel(lists.kernel), stride(lists.stride), padding(lists.padding), dilation(lists.dilation);
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                                    dilation, lists.ceilMode, gradInput, workspaceSize,
                                                                    executor);
        },
        aclnnMaxPool3dWithArgmaxBackward, stream);
}

}  // namespace test_support
