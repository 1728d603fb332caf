// The max-pool-with-indices operator family: aclnnMaxPool3dWithArgmax(+Backward) and the 2-D wrappers
// aclnnMaxPool2dWithIndices(+Backward) and aclnnMaxPool2dWithMask(+Backward), which SPEC §8 defines as
// the 3-D operators with D = 1. One description function per direction serves all of them.
#pragma once

#include "aclnn/aclnn_base.h"
#include "api/backward_tail.h"
#include "api/max_pool_attributes.h"
#include "core/pool_problem.h"

namespace poolgrad {

enum class IndicesEncoding {
    Tensor,  // INT32/INT64 tensor shaped like the output
    Mask,    // INT8 "mask" (N,C,kH*kW,(ceil(Ho*Wo/16)+1)*32) whose first bytes hold INT32 indices
};

struct MaxPoolVariant {
    const char *op;
    int spatialDims;  // 3: (N,)C,D,H,W tensors; 2: (N,)C,H,W tensors
    IndicesEncoding indices;
};

// The arguments of the operators' GetWorkspaceSize functions but workspaceSize and executor.
struct MaxPoolWithIndicesForwardArguments {
    const aclTensor *self;
    MaxPoolWindowArguments windows;
    const aclTensor *out;
    const aclTensor *indices;
};

struct MaxPoolWithIndicesBackwardArguments {
    IndexBackwardTensors tensors;    // gradOutput, self, indices, gradInput
    MaxPoolWindowArguments windows;  // kernelSize, stride, padding, dilation, ceilMode
};

aclnnStatus describeMaxPoolWithIndicesForward(const MaxPoolVariant &variant,
                                              const MaxPoolWithIndicesForwardArguments &arguments,
                                              PoolProblem &problem);

aclnnStatus describeMaxPoolWithIndicesBackward(const MaxPoolVariant &variant,
                                               const MaxPoolWithIndicesBackwardArguments &arguments,
                                               PoolProblem &problem);

}  // namespace poolgrad
