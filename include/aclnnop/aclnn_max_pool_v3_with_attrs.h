/*
 * poolgrad — aclnnop/aclnn_max_pool_v3_with_attrs.h: TensorFlow-style 2-D max pooling (MaxPoolV3) with
 * the attributes of aclnnMaxPoolV3Grad, so that the forward that produces its origOutput is available.
 * Defined by poolgrad (CANN has no such aclnn API).
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_WITH_ATTRS_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_WITH_ATTRS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the MaxPoolV3 forward: y[n,c,ho,wo] = maximum of x over the window of (ho, wo); padding
 * never contributes, a window lying wholly in padding gives -Inf, and any NaN in a window makes its
 * output NaN. Values are copied from x bit-exactly.
 *
 * Tensors (rank 4, one dtype FLOAT16, FLOAT or BF16; any strides and offset):
 *   x (N,C,H,W) or (N,H,W,C) when dataFormat is "NHWC";  y (N,C,Ho,Wo) or (N,Ho,Wo,C) (output)
 * The format tags must be public formats; the layout is given by dataFormat alone.
 *
 * Attributes: as aclnnMaxPoolV3GradGetWorkspaceSize (ksize, strides and pads of length 4 in dataFormat
 * order, N and C entries of ksize/strides equal to 1, paddingMode "CALCULATED" (nullptr) / "SAME" /
 * "VALID", pads nullptr = zeros and >= 0 for CALCULATED, dataFormat "NCHW" (nullptr) / "NHWC", ceilMode
 * only with CALCULATED), except that ksize and strides H/W need only be >= 1, and globalPooling IS
 * supported: the window is the whole H x W plane and Ho = Wo = 1 (the ksize, strides and pads values
 * are then not used, though they must still be well-formed).
 * y's shape must be the computed one; Ho or Wo == 0 for a non-empty x is an error; an empty x (then y
 * must be empty too) is a no-op.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPoolV3WithAttrsGetWorkspaceSize(const aclTensor *x, const aclIntArray *ksize,
                                                             const aclIntArray *strides, const char *paddingMode,
                                                             const aclIntArray *pads, const char *dataFormat,
                                                             bool globalPooling, bool ceilMode, aclTensor *y,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPoolV3WithAttrs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_V3_WITH_ATTRS_H_ */
