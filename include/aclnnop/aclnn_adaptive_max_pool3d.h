/*
 * poolgrad — aclnnop/aclnn_adaptive_max_pool3d.h: 3-D adaptive max pooling with argmax.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_H_
#define POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 3-D adaptive max pooling forward. self is (N,C,D,H,W) or (C,D,H,W) in
 * FLOAT/FLOAT16/BF16 (format ND, NCDHW or NCHW); outputSize is (Do,Ho,Wo), one value for all three,
 * or empty (output size = input size). Output o of an axis of input size I and output size O covers
 * [floor(o*I/O), ceil((o+1)*I/O)); windows overlap when I % O != 0 and O may exceed I. outputOut has
 * self's dtype, indicesOut is INT32 or INT64, both of shape (N,C,Do,Ho,Wo) (or without N). Selection:
 * first maximum in (d,h,w) order, NaN wins (last NaN); indices are d*H*W + h*W + w within the plane.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                            aclTensor *outputOut, aclTensor *indicesOut,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnAdaptiveMaxPool3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_ADAPTIVE_MAX_POOL3D_H_ */
