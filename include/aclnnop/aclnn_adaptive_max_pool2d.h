/*
 * poolgrad — aclnnop/aclnn_adaptive_max_pool2d.h: 2-D adaptive max pooling with argmax.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_H_
#define POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 2-D adaptive max pooling forward: aclnnAdaptiveMaxPool3d with D = 1 on (N,C,H,W) or
 * (C,H,W) tensors (format ND or NCHW). outputSize is (Ho,Wo), one value for both, or empty. indices
 * are h*W + w within the plane.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                            aclTensor *outputOut, aclTensor *indicesOut,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL2D_H_ */
