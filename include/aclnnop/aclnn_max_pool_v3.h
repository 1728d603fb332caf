/*
 * poolgrad — aclnnop/aclnn_max_pool_v3.h: 2-D max pooling with explicit pads (NCHW), as CANN's
 * aclnnMaxPoolV3.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of MaxPoolV3: aclnnMaxPoolV3WithAttrs with paddingMode "CALCULATED", dataFormat "NCHW" and no
 * global pooling. out[n,c,ho,wo] = maximum of x over rows ho*sH - top + [0, kH) and columns
 * wo*sW - left + [0, kW) inside the input; a window lying wholly in padding gives -Inf; any NaN in a window
 * makes its output NaN. Values are copied from x bit-exactly.
 *
 * Tensors (rank 4, any strides and offset; the format tag must be a public format):
 *   x    (N,C,H,W) FLOAT16, FLOAT or BFLOAT16;  out (N,C,Ho,Wo), same dtype (output)
 * ksize, strides  length 4 [N, C, H, W]; the N and C entries 1, the H and W entries >= 1
 * pads            length 4 [top, bottom, left, right], each >= 0; nullptr = zeros
 * ceilMode        nullptr = false; otherwise any numeric scalar, non-zero = ceil (dropping a last window that
 *                 would start in the bottom / right padding)
 * Ho = floor((H + top + bottom - kH [+ sH - 1 with ceilMode]) / sH) + 1, Wo likewise; they must be >= 1
 * for a non-empty x. An empty x (then out must be empty too) is a no-op.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPoolV3GetWorkspaceSize(const aclTensor *x, const aclIntArray *ksize,
                                                     const aclIntArray *strides, const aclIntArray *pads,
                                                     const aclScalar *ceilMode, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPoolV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_H_ */
