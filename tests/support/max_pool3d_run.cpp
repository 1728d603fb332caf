#include "support/max_pool3d_run.h"

#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/test_tensor.h"

namespace test_support {

aclnnStatus runPhaseTwo(aclnnStatus (*phaseTwo)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                        uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    void *workspace = nullptr;
    if (workspaceSize > 0 && aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return -2;
    const aclnnStatus status = phaseTwo(workspace, workspaceSize, executor, stream);
    const aclError synchronised = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    if (status == 0 && synchronised != ACL_SUCCESS) return -3;
    return status;
}

TwoPhaseStatus runMaxPool3dWithArgmax(const aclTensor *self, const MaxPool3dLists &lists, aclTensor *out,
                                      aclTensor *indices, aclrtStream stream) {
    IntArray kernel(lists.kernel), stride(lists.stride), padding(lists.padding), dilation(lists.dilation);
    TwoPhaseStatus result;
    aclOpExecutor *executor = nullptr;
    result.phaseOne = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernel, stride, padding, dilation,
                                                               lists.ceilMode, out, indices, &result.workspaceSize,
                                                               &executor);
    result.executorReturned = executor != nullptr;
    if (result.phaseOne != 0) return result;
    result.phaseTwo = runPhaseTwo(aclnnMaxPool3dWithArgmax, result.workspaceSize, executor, stream);
    return result;
}

TwoPhaseStatus runMaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *indices, const MaxPool3dLists &lists,
                                              aclTensor *gradInput, aclrtStream stream) {
    IntArray kernel(lists.kernel), stride(lists.stride), padding(lists.padding), dilation(lists.dilation);
    TwoPhaseStatus result;
    aclOpExecutor *executor = nullptr;
    result.phaseOne = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride,
                                                                       padding, dilation, lists.ceilMode, gradInput,
                                                                       &result.workspaceSize, &executor);
    result.executorReturned = executor != nullptr;
    if (result.phaseOne != 0) return result;
    result.phaseTwo = runPhaseTwo(aclnnMaxPool3dWithArgmaxBackward, result.workspaceSize, executor, stream);
    return result;
}

}  // namespace test_support
