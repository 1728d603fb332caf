#include "api/max_pool_attributes.h"

#include <vector>

#include "api/argument_checks.h"
#include "core/error_message.h"
#include "runtime/descriptors.h"

namespace poolgrad {
namespace {

constexpr const char *axisNames[3] = {"D", "H", "W"};

// Expands a list of length 1 or spatialDims (or 0 when emptyValue is given) to (D,H,W) values; with
// two spatial dims D gets depthValue.
aclnnStatus expandList(const char *op, const char *name, const aclIntArray *list, int spatialDims, bool allowEmpty,
                       const std::array<int64_t, 3> *emptyValue, int64_t depthValue, std::array<int64_t, 3> &values) {
    std::vector<size_t> allowedLengths{1, static_cast<size_t>(spatialDims)};
    if (allowEmpty) allowedLengths.insert(allowedLengths.begin(), 0);
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
    else if (spatialDims == 3)
        values = {given[0], given[1], given[2]};
    else
        values = {depthValue, given[0], given[1]};
    if (spatialDims == 2 && given.size() == 1) values[0] = depthValue;
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

aclnnStatus decodeMaxPoolAttributes(const char *op, int spatialDims, const aclIntArray *kernelSize,
                                    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                                    bool ceilMode, MaxPoolAttributes &attributes) {
    attributes.ceilMode = ceilMode;
    if (auto status = expandList(op, "kernelSize", kernelSize, spatialDims, false, nullptr, 1, attributes.kernel))
        return status;
    if (auto status = requireAtLeastOne(op, "kernelSize", attributes.kernel)) return status;
    if (auto status = expandList(op, "stride", stride, spatialDims, true, &attributes.kernel, 1, attributes.stride))
        return status;
    if (auto status = requireAtLeastOne(op, "stride", attributes.stride)) return status;
    if (auto status = expandList(op, "padding", padding, spatialDims, false, nullptr, 0, attributes.padding))
        return status;
    for (int a = 0; a < 3; ++a) {
        const int64_t limit = attributes.kernel[a] / 2;
        if (attributes.padding[a] < 0 || attributes.padding[a] > limit)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": padding on axis ", axisNames[a],
                        " must satisfy 0 <= padding <= kernelSize/2 = ", limit, " (kernelSize ", attributes.kernel[a],
                        "), got ", attributes.padding[a]);
    }
    if (auto status = expandList(op, "dilation", dilation, spatialDims, false, nullptr, 1, attributes.dilation))
        return status;
    return requireAtLeastOne(op, "dilation", attributes.dilation);
}

std::array<int64_t, 3> maxPoolOutputSize(const MaxPoolAttributes &attributes, const std::array<int64_t, 3> &input) {
    std::array<int64_t, 3> output{};
    for (int a = 0; a < 3; ++a)
        output[a] = pooledOutputSize(input[a], attributes.kernel[a], attributes.stride[a], attributes.padding[a],
                                     attributes.padding[a], attributes.dilation[a], attributes.ceilMode);
    return output;
}

PoolGeometry maxPoolGeometry(const MaxPoolAttributes &attributes, int64_t batch, int64_t channels,
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
