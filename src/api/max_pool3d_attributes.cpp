#include "api/max_pool3d_attributes.h"

#include <initializer_list>

#include "api/argument_checks.h"
#include "core/error_message.h"
#include "runtime/descriptors.h"

namespace poolgrad {
namespace {

constexpr const char *axisNames[3] = {"D", "H", "W"};

// Expands a list of length 1 or 3 (or 0 when emptyValue is given) to one value per axis.
aclnnStatus expandList(const char *op, const char *name, const aclIntArray *list,
                       std::initializer_list<size_t> allowedLengths, const std::array<int64_t, 3> *emptyValue,
                       std::array<int64_t, 3> &values) {
    const std::vector<int64_t> &given = list->values;
    bool allowed = false;
    for (size_t length : allowedLengths) allowed |= given.size() == length;
    if (!allowed) {
        std::string lengths;
        for (size_t length : allowedLengths) lengths += (lengths.empty() ? "" : ", ") + std::to_string(length);
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " must have length ", lengths, ", got length ",
                    given.size(), " ", shapeText(given));
    }
    if (given.empty())
        values = *emptyValue;
    else if (given.size() == 1)
        values = {given[0], given[0], given[0]};
    else
        values = {given[0], given[1], given[2]};
    return ACLNN_SUCCESS;
}

aclnnStatus requireAtLeastOne(const char *op, const char *name, const std::array<int64_t, 3> &values) {
    for (int a = 0; a < 3; ++a)
        if (values[a] < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every ", name, " value must be >= 1, got ", values[a],
                        " on axis ", axisNames[a]);
    return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus decodeMaxPool3dAttributes(const char *op, const aclIntArray *kernelSize, const aclIntArray *stride,
                                      const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                                      MaxPool3dAttributes &attributes) {
    attributes.ceilMode = ceilMode;
    if (auto status = expandList(op, "kernelSize", kernelSize, {1, 3}, nullptr, attributes.kernel)) return status;
    if (auto status = requireAtLeastOne(op, "kernelSize", attributes.kernel)) return status;
    if (auto status = expandList(op, "stride", stride, {0, 1, 3}, &attributes.kernel, attributes.stride))
        return status;
    if (auto status = requireAtLeastOne(op, "stride", attributes.stride)) return status;
    if (auto status = expandList(op, "padding", padding, {1, 3}, nullptr, attributes.padding)) return status;
    for (int a = 0; a < 3; ++a) {
        const int64_t limit = attributes.kernel[a] / 2;
        if (attributes.padding[a] < 0 || attributes.padding[a] > limit)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": padding on axis ", axisNames[a],
                        " must satisfy 0 <= padding <= kernelSize/2 = ", limit, " (kernelSize ",
                        attributes.kernel[a], "), got ", attributes.padding[a]);
    }
    if (auto status = expandList(op, "dilation", dilation, {1, 3}, nullptr, attributes.dilation)) return status;
    return requireAtLeastOne(op, "dilation", attributes.dilation);
}

std::array<int64_t, 3> maxPool3dOutputSize(const MaxPool3dAttributes &attributes,
                                           const std::array<int64_t, 3> &input) {
    std::array<int64_t, 3> output{};
    for (int a = 0; a < 3; ++a)
        output[a] = pooledOutputSize(input[a], attributes.kernel[a], attributes.stride[a], attributes.padding[a],
                                     attributes.padding[a], attributes.dilation[a], attributes.ceilMode);
    return output;
}

PoolGeometry maxPool3dGeometry(const MaxPool3dAttributes &attributes, int64_t batch, int64_t channels,
                               const std::array<int64_t, 3> &input, const std::array<int64_t, 3> &output) {
    PoolGeometry geometry;
    geometry.batch = batch;
    geometry.channels = channels;
    for (int a = 0; a < 3; ++a) {
        WindowAxis &axis = geometry.axes[a];
        axis.inputSize = input[a];
        axis.outputSize = output[a];
        axis.kernel = attributes.kernel[a];
        axis.stride = attributes.stride[a];
        axis.padBegin = attributes.padding[a];
        axis.dilation = attributes.dilation[a];
    }
    return geometry;
}

}  // namespace poolgrad
