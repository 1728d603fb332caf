/*
 * poolgrad — aclnnop/aclnn_adaptive_max_pool2d_backward.h: gradient of aclnnAdaptiveMaxPool2d.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 2-D adaptive max pooling backward: aclnnAdaptiveMaxPool3dBackward with D = 1 on
 * (N,C,H,W) or (C,H,W) tensors; indices (INT32 or INT64) hold h*W + w.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                    const aclTensor *self, const aclTensor *indices,
                                                                    aclTensor *gradInput, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_BACKWARD_H_ */
