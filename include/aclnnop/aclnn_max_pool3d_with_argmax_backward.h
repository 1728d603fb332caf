/*
 * poolgrad — aclnnop/aclnn_max_pool3d_with_argmax_backward.h: gradient of aclnnMaxPool3dWithArgmax.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 3-D max pooling backward: gradInput[n,c,i] = sum of gradOutput[n,c,o] over the
 * outputs o whose indices[n,c,o] == i, summed in float32 in increasing o order and rounded once.
 * self (shape and dtype only; its data is never read) is (N,C,D,H,W) or (C,D,H,W) in
 * FLOAT/FLOAT16/BF16; gradOutput and gradInput share its dtype; indices are INT32 or INT64 with
 * gradOutput's shape, which must equal the forward output shape for the given kernelSize, stride,
 * padding, dilation and ceilMode. An index of -1 contributes nothing; any other index outside
 * [0, D*H*W) makes phase 2 fail with 161002 and leave gradInput all zeros.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool3dWithArgmaxBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_BACKWARD_H_ */
