/*
 * poolgrad — aclnnop/aclnn_max_pool_v3_grad.h: gradient of TensorFlow-style 2-D max pooling (MaxPoolV3).
 *
 * CANN has this operator only as the graph op MaxPoolV3Grad; this two-phase aclnn form is defined by
 * poolgrad and keeps the graph op's attribute order.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_GRAD_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the MaxPoolV3 gradient. For every output position (ho, wo) of every (n, c) plane, in
 * row-major order, the window is scanned row-major and the FIRST in-range input element whose value
 * equals origOutput[n,c,ho,wo] (IEEE equality: NaN equals nothing, +0 == -0, Inf == Inf) receives
 * grad[n,c,ho,wo]; when no element matches, that gradient is dropped. Contributions to one outGrad
 * element are summed in float32 in (ho, wo) order starting from +0 and rounded once; every element no
 * window sends a gradient to is +0. The argmax is recomputed from origInput and origOutput, so
 * origOutput need not be the true forward output.
 *
 * Tensors (all rank 4, FLOAT16 or FLOAT, one dtype; any strides and offset):
 *   origInput  (N,C,H,W)   or (N,H,W,C) when dataFormat is "NHWC"
 *   origOutput (N,C,Ho,Wo) or (N,Ho,Wo,C)
 *   grad       the shape of origOutput
 *   outGrad    the shape of origInput (output)
 * The format tags must be public formats; the layout is given by dataFormat alone.
 *
 * Attributes (lists are INT64, length 4, in dataFormat order; N and C entries of ksize/strides are 1):
 *   ksize        kernel; H and W in [1, 255]
 *   strides      H and W in [1, 63]
 *   paddingMode  "CALCULATED" (nullptr = default), "SAME" or "VALID"; exact, case-sensitive
 *   pads         [top, bottom, left, right] (nullptr = {0,0,0,0}); used by CALCULATED only, each >= 0
 *                (pads >= kernel are allowed: windows lying wholly in padding send nothing)
 *   dataFormat   "NCHW" (nullptr = default) or "NHWC"
 *   globalPooling  must be false
 *   ceilMode     CALCULATED only (true with SAME or VALID is an error)
 * Output size: VALID Ho = floor((H - kh) / sh) + 1 (at least 0), no padding;
 *   SAME Ho = ceil(H / sh), total padding max((Ho-1)*sh + kh - H, 0) of which top = half rounded down;
 *   CALCULATED Ho = floor((H + top + bottom - kh) / sh) + 1, with ceilMode rounded up instead and then
 *   reduced by one when the last window would start at or beyond H + top. Wo likewise. origOutput's
 *   H and W must equal (Ho, Wo).
 * An empty origInput is a no-op; Ho*Wo == 0 with a non-empty origInput writes zeros to outGrad.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPoolV3GradGetWorkspaceSize(const aclTensor *origInput, const aclTensor *origOutput,
                                                        const aclTensor *grad, const aclIntArray *ksize,
                                                        const aclIntArray *strides, const char *paddingMode,
                                                        const aclIntArray *pads, const char *dataFormat,
                                                        bool globalPooling, bool ceilMode, aclTensor *outGrad,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPoolV3Grad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_GRAD_H_ */
