#include "api/mask_indices.h"

#include <cstdint>

#include "api/argument_checks.h"
#include "core/error_message.h"

namespace poolgrad {

std::vector<int64_t> maskShape(const std::vector<int64_t> &leadingDims, int64_t kernelElements, int64_t outputHeight,
                               int64_t outputWidth) {
    std::vector<int64_t> shape = leadingDims;
    shape.push_back(kernelElements);
    shape.push_back(((outputHeight * outputWidth + 15) / 16 + 1) * 32);
    return shape;
}

aclnnStatus requireDenseMask(const char *op, const char *name, const aclTensor *mask) {
    int64_t expected = 1;
    for (size_t i = mask->viewShape.size(); i-- > 0;) {
        if (mask->viewShape[i] != 1 && mask->strides[i] != expected)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name,
                        " is an opaque mask and must be a dense row-major view, got strides ", shapeText(mask->strides),
                        " for shape ", shapeText(mask->viewShape));
        expected *= mask->viewShape[i];
    }
    const auto start = reinterpret_cast<uintptr_t>(static_cast<unsigned char *>(mask->data) + mask->offset);
    if (mask->data != nullptr && start % alignof(int32_t) != 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " holds INT32 indices, so its first byte (data + offset ",
                    mask->offset, ") must be 4-byte aligned");
    return ACLNN_SUCCESS;
}

StridedTensor maskIndicesOperand(const aclTensor *mask, int64_t kernelElements, int64_t batch, int64_t channels,
                                 int64_t outputHeight, int64_t outputWidth) {
    StridedTensor indices;
    if (kernelElements == 1) return indices;  // absent: indices are implied by single-element windows
    indices.type = ElementType::Int32;
    indices.rank = static_cast<int>(mask->viewShape.size());
    indices.size = {batch, channels, 1, outputHeight, outputWidth};
    indices.stride = {channels * outputHeight * outputWidth, outputHeight * outputWidth, 0, outputWidth, 1};
    indices.base = mask->data == nullptr ? nullptr : static_cast<unsigned char *>(mask->data) + mask->offset;
    return indices;
}

}  // namespace poolgrad
