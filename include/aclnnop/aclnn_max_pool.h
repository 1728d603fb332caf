/*
 * poolgrad — aclnnop/aclnn_max_pool.h: ONNX MaxPool (2-D, values only), as CANN's aclnnMaxPool.
 */
#ifndef POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_H_
#define POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of ONNX MaxPool: out[n,c,ho,wo] = maximum of self over rows ho*sH - top + [0, kH) and columns
 * wo*sW - left + [0, kW) that lie inside the input (padding never contributes); any NaN in a window makes
 * its output NaN. Values are copied from self bit-exactly.
 *
 * Tensors (rank 3 (C,H,W) or 4 (N,C,H,W), always channels-first, any strides and offset):
 *   self  FLOAT16, FLOAT, BFLOAT16, INT32, INT64, UINT8, INT16, INT8 or UINT16; format ND, NCHW or NCL
 *   out   same dtype, format and rank as self; (N,)C,Ho,Wo (output)
 * Only the batch may be 0 (an empty self is then a no-op); C, H and W must be >= 1.
 *
 * kernelShape  length 1 (kH = kW) or 2 (kH, kW); values >= 1
 * strides      length 0 (1, 1), 1 or 2; values >= 1
 * autoPad      0 ("NOTSET"), the only mode supported
 * pads         length 0 (zeros), 1 (all four), 2 ({H, W}, each on both sides) or 4 {top, left, bottom,
 *              right} (the ONNX order); each 0 <= pad < its kernel and top + bottom <= kH, left + right <= kW
 * dilations    length 0, 1, 2 or 4; every value 1
 * ceilMode     0: Ho = floor((H + top + bottom - kH) / sH) + 1; non-zero: ceil, dropping a last window that
 *              would start in the bottom padding (Wo likewise)
 * Returns 0, 161001 (a null pointer) or 161002 (an invalid argument; see aclGetRecentErrMsg).
 */
ACLNN_API aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
                                                   const aclIntArray *strides, const int64_t autoPad,
                                                   const aclIntArray *pads, const aclIntArray *dilations,
                                                   const int64_t ceilMode, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

/** Phase 2: runs the executor made by phase 1 (released afterwards unless made repeatable). */
ACLNN_API aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNNOP_ACLNN_MAX_POOL_H_ */
