/*
 * poolgrad — aclnnop/aclnn_max_pool3d_with_argmax.h: 3-D max pooling that also returns the argmax.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 3-D max pooling forward. self is (N,C,D,H,W) or (C,D,H,W), FLOAT/FLOAT16/BF16; out
 * (same dtype) and indices (INT32 or INT64) have shape (N,C,Do,Ho,Wo) or (C,Do,Ho,Wo) with
 *   Do = floor((D + 2p - (d*(k-1)+1)) / s) + 1   (ceilMode: rounded up, and the last window must
 *                                                  start inside the input plus the left padding).
 * kernelSize: length 1 or 3, values >= 1. stride: length 0 (= kernel), 1 or 3, values >= 1.
 * padding: length 1 or 3, 0 <= p <= k/2. dilation: length 1 or 3, values >= 1.
 * Each output is the maximum of its window (padding never selected); ties keep the first element in
 * (d,h,w) order; any NaN makes the output NaN with the index of the last NaN. indices hold the flat
 * position d*H*W + h*W + w inside the element's own (n,c) plane.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPool3dWithArgmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                              const aclIntArray *stride, const aclIntArray *padding,
                                                              const aclIntArray *dilation, bool ceilMode,
                                                              aclTensor *out, aclTensor *indices,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool3dWithArgmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL3D_WITH_ARGMAX_H_ */
