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

aclnnStatus decodeMaxPoolWindows(const char *op, int spatialDims, const MaxPoolWindowArguments &arguments,
                                 RegularWindows &windows) {
    windows.ceilMode = arguments.ceilMode;
    if (auto status =
            expandList(op, "kernelSize", arguments.kernelSize, spatialDims, false, nullptr, 1, windows.kernel))
        return status;
    if (auto status = requireAtLeastOne(op, "kernelSize", windows.kernel)) return status;
    if (auto status = expandList(op, "stride", arguments.stride, spatialDims, true, &windows.kernel, 1, windows.stride))
        return status;
    if (auto status = requireAtLeastOne(op, "stride", windows.stride)) return status;
    if (auto status = expandList(op, "padding", arguments.padding, spatialDims, false, nullptr, 0, windows.padBegin))
        return status;
    for (int a = 0; a < 3; ++a) {
        const int64_t limit = windows.kernel[a] / 2;
        if (windows.padBegin[a] < 0 || windows.padBegin[a] > limit)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": padding on axis ", axisNames[a],
                        " must satisfy 0 <= padding <= kernelSize/2 = ", limit, " (kernelSize ", windows.kernel[a],
                        "), got ", windows.padBegin[a]);
    }
    windows.padEnd = windows.padBegin;
    if (auto status = expandList(op, "dilation", arguments.dilation, spatialDims, false, nullptr, 1, windows.dilation))
        return status;
    return requireAtLeastOne(op, "dilation", windows.dilation);
}

}  // namespace poolgrad
