#include "api/mask_indices.h"

#include <cstdint>

#include "api/argument_checks.h"
#include "core/checked_arithmetic.h"
#include "core/error_message.h"

namespace poolgrad {

aclnnStatus requireMaskKernelElements(const char *op, int64_t kernelHeight, int64_t kernelWidth,
                                      int64_t &kernelElements) {
    const std::optional<int64_t> product = checkedMul(kernelHeight, kernelWidth);
    if (!product)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": kernelSize ", kernelHeight, "x", kernelWidth,
                    " has a volume kH*kW that overflows int64, so no mask shape (N, C, kH*kW, ...) can describe it");
    kernelElements = *product;
    return ACLNN_SUCCESS;
}

std::optional<std::vector<int64_t>> maskShape(const std::vector<int64_t> &leadingDims, int64_t kernelElements,
                                              int64_t outputHeight, int64_t outputWidth) {
    // ((ceil(Ho*Wo/16) + 1) * 32, exact.
    const std::optional<int64_t> outputs = checkedMul(outputHeight, outputWidth);
    if (!outputs) return std::nullopt;
    const std::optional<int64_t> lastDim = checkedMul<int64_t>(*outputs / 16 + (*outputs % 16 != 0) + 1, 32);
    if (!lastDim) return std::nullopt;
    std::vector<int64_t> shape = leadingDims;
    shape.push_back(kernelElements);
    shape.push_back(*lastDim);
    return shape;
}

aclnnStatus requireMaskShape(const char *op, const char *name, const aclTensor *mask,
                             const std::vector<int64_t> &leadingDims, int64_t kernelElements, int64_t outputHeight,
                             int64_t outputWidth, const char *why) {
    const std::optional<std::vector<int64_t>> expected =
        maskShape(leadingDims, kernelElements, outputHeight, outputWidth);
    if (!expected)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name,
                    " shape cannot be expressed: (ceil(Ho*Wo/16)+1)*32 for Ho ", outputHeight, " and Wo ", outputWidth,
                    " overflows int64");
    return requireShape(op, {name, mask}, *expected, why);
}

aclnnStatus requireDenseMask(const char *op, const char *name, const aclTensor *mask) {
    int64_t expected = 1;
    for (size_t i = mask->viewShape.size(); i-- > 0;) {
        if (mask->viewShape[i] != 1 && mask->strides[i] != expected)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name,
                        " is an opaque mask and must be a dense row-major view, got strides ", shapeText(mask->strides),
                        " for shape ", shapeText(mask->viewShape));
        const std::optional<int64_t> next = checkedMul(expected, mask->viewShape[i]);
        if (!next)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " shape ", shapeText(mask->viewShape),
                        " has more elements than int64 can count");
        expected = *next;
    }
    // Integer arithmetic: the address is only tested, never dereferenced, before requireAddressable.
    const uintptr_t start = reinterpret_cast<uintptr_t>(mask->data) + static_cast<uintptr_t>(mask->offset);
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
    // Exact: the mask holds at least N*C*Ho*Wo*4 bytes and its element count fits in int64.
    const int64_t planeOutputs = outputHeight * outputWidth;
    indices.stride = {channels * planeOutputs, planeOutputs, 0, outputWidth, 1};
    indices.base = firstElementAddress(*mask);  // the mask's elements are bytes
    return indices;
}

}  // namespace poolgrad
