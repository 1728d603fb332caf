// The kernels' 5-D view of an operand of a 3-D operator ((N,)C,D,H,W) or of a channels-first 2-D
// operator ((N,)C,H,W, with D = 1).
#pragma once

#include "api/tensor_operand.h"

namespace poolgrad {

inline StridedTensor spatialOperand(int spatialDims, const aclTensor *tensor) {
    return spatialDims == 3 ? stridedOperand(tensor) : stridedOperand2d(tensor, PlaneLayout::ChannelsFirst);
}

}  // namespace poolgrad
