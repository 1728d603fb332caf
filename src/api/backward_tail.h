// The checks every indices-based backward ends with (aclnnMaxPool3dWithArgmaxBackward, the 2-D indices
// and mask backwards, the adaptive backwards), once each has checked its dtypes, formats, ranks and shapes.
#pragma once

#include "aclnn/aclnn_base.h"
#include "core/pool_problem.h"
#include "runtime/descriptors.h"

namespace poolgrad {

struct IndexBackwardTensors {
    const aclTensor *gradOutput;
    const aclTensor *self;  // only its shape is used
    const aclTensor *indices;
    const aclTensor *gradInput;
};

// gradOutput's N and C equal self's; gradOutput, indices and gradInput addressable, gradInput reaching no
// element twice and sharing no memory with gradOutput or indices (self, which is never read, may share
// gradInput's). Then gradInput's view goes into the problem, and the task becomes ZeroFill when an operand
// is empty (no window: every gradient is 0) or IndexScatterBackward with gradOutput's view — the caller then
// adds the geometry and the indices' view.
aclnnStatus describeIndexBackwardTail(const char *op, int spatialDims, const IndexBackwardTensors &tensors,
                                      PoolProblem &problem);

}  // namespace poolgrad
