/*
 * poolgrad — aclnnop/aclnn_adaptive_max_pool3d_backward.h: gradient of aclnnAdaptiveMaxPool3d.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 3-D adaptive max pooling backward: gradInput[n,c,i] = sum of gradOutput[n,c,o] over
 * the outputs o whose indices[n,c,o] == i, summed in float32 in increasing o order and rounded once.
 * self (shape and dtype only) is (N,C,D,H,W) or (C,D,H,W) in FLOAT/FLOAT16/BF16; gradOutput (any
 * spatial size) and gradInput share its dtype; indices are INT32 or INT64 with gradOutput's shape.
 * All four tensors have the same format. An index of -1 contributes nothing; any other index outside
 * [0, D*H*W) makes phase 2 fail with 161002 and leave gradInput all zeros. Exact for any size.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                    const aclTensor *self, const aclTensor *indices,
                                                                    aclTensor *gradInput, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_BACKWARD_H_ */
