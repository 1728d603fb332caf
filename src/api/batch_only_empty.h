// The 2-D pooling operators' rule, as CANN's op_api (and PyTorch) state it: "expected tensor with optional
// 0 dim batch size" — only the batch of a (N,)C,H,W tensor may be 0; C, H and W must be >= 1 (a rank-3
// tensor has no batch, so none of its dims may be 0).
#pragma once

#include "api/argument_checks.h"
#include "core/error_message.h"

namespace poolgrad {

inline aclnnStatus requireOnlyBatchMayBeEmpty(const char *op, NamedTensor tensor) {
    const std::vector<int64_t> &shape = tensor.tensor->viewShape;
    const size_t firstNonBatch = shape.size() == 4 ? 1 : 0;
    for (size_t i = firstNonBatch; i < shape.size(); ++i)
        if (shape[i] < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": only the batch of ", tensor.name,
                        " may be 0; its C, H and W must be >= 1, got ", tensor.name, " ", shapeText(shape));
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad
