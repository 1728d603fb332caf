/*
 * poolgrad — aclnnop/aclnn_max_pool2d_with_indices_backward.h: gradients of aclnnMaxPool2dWithIndices and aclnnMaxPool2dWithMask.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 2-D max pooling backward: aclnnMaxPool3dWithArgmaxBackward with D = 1 on (N,C,H,W) or
 * (C,H,W) tensors; indices (INT32 or INT64, shape of gradOutput) hold h*W + w. gradOutput's shape must
 * equal the forward output shape for the given attributes.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool2dWithIndicesBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of the 2-D max pooling backward with an Ascend mask made by aclnnMaxPool2dWithMask (INT8,
 * shape (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32), dense row-major).
 */
ACLNN_API aclnnStatus aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool2dWithMaskBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_BACKWARD_H_ */
