/*
 * poolgrad — aclnnop/aclnn_max_pool2d_with_indices.h: 2-D max pooling with indices or with an Ascend mask.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of the 2-D max pooling forward (PyTorch max_pool2d_with_indices): aclnnMaxPool3dWithArgmax
 * with D = 1 on (N,C,H,W) or (C,H,W) tensors in FLOAT/FLOAT16/BF16 (format ND or NCHW).
 * kernelSize: length 1 or 2, values >= 1. stride: length 0 (= kernel), 1 or 2. padding: length 1 or
 * 2, 0 <= p <= k/2. dilation: length 1 or 2, values >= 1. indices: INT32 or INT64 holding h*W + w.
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                               const aclIntArray *stride, const aclIntArray *padding,
                                                               const aclIntArray *dilation, bool ceilMode,
                                                               aclTensor *out, aclTensor *indices,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool2dWithIndices(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of the 2-D max pooling forward with Ascend "mask" indices: as aclnnMaxPool2dWithIndices, but
 * indices is an INT8 tensor of shape (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32) (without N for 3-D self),
 * dense row-major. Its content is opaque and only meaningful to aclnnMaxPool2dWithMaskBackward; poolgrad
 * stores the INT32 indices h*W + w in its first N*C*Ho*Wo*4 bytes (nothing for a 1x1 kernel, whose
 * windows hold a single element).
 */
ACLNN_API aclnnStatus aclnnMaxPool2dWithMaskGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                            const aclIntArray *stride, const aclIntArray *padding,
                                                            const aclIntArray *dilation, bool ceilMode,
                                                            aclTensor *out, aclTensor *indices,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool2dWithMask(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL2D_WITH_INDICES_H_ */
