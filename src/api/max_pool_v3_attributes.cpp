#include "api/max_pool_v3_attributes.h"

#include <array>
#include <cstring>
#include <string>

#include "api/argument_checks.h"
#include "core/error_message.h"
#include "runtime/descriptors.h"

namespace poolgrad {
namespace {

// The names a string attribute takes, its default (what nullptr means) first.
template <typename Value>
struct NamedValue {
    const char *name;
    Value value;
};
constexpr std::array<NamedValue<MaxPoolV3DataFormat>, 2> dataFormatNames{
    {{"NCHW", MaxPoolV3DataFormat::Nchw}, {"NHWC", MaxPoolV3DataFormat::Nhwc}}};
constexpr std::array<NamedValue<MaxPoolV3PaddingMode>, 3> paddingModeNames{
    {{"CALCULATED", MaxPoolV3PaddingMode::Calculated},
     {"SAME", MaxPoolV3PaddingMode::Same},
     {"VALID", MaxPoolV3PaddingMode::Valid}}};

template <typename Value, size_t count>
const char *nameOf(const std::array<NamedValue<Value>, count> &names, Value value) {
    for (const NamedValue<Value> &named : names)
        if (named.value == value) return named.name;
    return names[0].name;
}

const char *formatText(MaxPoolV3DataFormat format) { return nameOf(dataFormatNames, format); }
const char *modeText(MaxPoolV3PaddingMode mode) { return nameOf(paddingModeNames, mode); }

// One of the names exactly (case-sensitive), or nullptr for the default.
template <typename Value, size_t count>
aclnnStatus decodeName(const char *op, const char *argument, const char *text,
                       const std::array<NamedValue<Value>, count> &names, Value &value) {
    value = names[0].value;
    if (text == nullptr) return ACLNN_SUCCESS;
    for (const NamedValue<Value> &named : names)
        if (std::strcmp(text, named.name) == 0) {
            value = named.value;
            return ACLNN_SUCCESS;
        }
    std::string choices;
    for (size_t i = 0; i < count; ++i)
        choices += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + "\"" + names[i].name + "\"";
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", argument, " must be ", choices,
                " (exact, case-sensitive; nullptr means \"", names[0].name, "\"), got \"", text, "\"");
}

}  // namespace

MaxPoolV3AxisPositions maxPoolV3AxisPositions(MaxPoolV3DataFormat format) {
    if (format == MaxPoolV3DataFormat::Nhwc) return {0, 3, 1, 2};
    return {0, 1, 2, 3};
}

aclnnStatus decodeMaxPoolV3DataFormat(const char *op, const char *dataFormat, MaxPoolV3DataFormat &format) {
    return decodeName(op, "dataFormat", dataFormat, dataFormatNames, format);
}

aclnnStatus decodeMaxPoolV3PaddingMode(const char *op, const char *paddingMode, MaxPoolV3PaddingMode &mode) {
    return decodeName(op, "paddingMode", paddingMode, paddingModeNames, mode);
}

aclnnStatus requireNoGlobalPooling(const char *op, bool globalPooling) {
    if (!globalPooling) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                ": globalPooling must be false (the gradient of global pooling is not supported), got true");
}

aclnnStatus requireCeilModeOnlyCalculated(const char *op, bool ceilMode, MaxPoolV3PaddingMode mode) {
    if (!ceilMode || mode == MaxPoolV3PaddingMode::Calculated) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                ": ceilMode must be false unless paddingMode is \"CALCULATED\", got "
                "ceilMode true with paddingMode \"",
                modeText(mode), "\"");
}

aclnnStatus requireListOfFour(const char *op, const char *name, const aclIntArray *list) {
    if (list == nullptr || list->values.size() == 4) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " must have length 4, got length ", list->values.size(), " ",
                shapeText(list->values));
}

aclnnStatus requireUnitBatchAndChannel(const char *op, const char *name, const aclIntArray *list,
                                       MaxPoolV3DataFormat format) {
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(format);
    for (const auto &[position, axis] : {std::pair{at.n, "N"}, std::pair{at.c, "C"}})
        if (list->values[position] != 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, "[", position, "] (the ", axis, " entry for ",
                        formatText(format), ") must be 1, got ", list->values[position], " in ",
                        shapeText(list->values));
    return ACLNN_SUCCESS;
}

aclnnStatus requireSpatialRange(const char *op, const char *name, const aclIntArray *list, MaxPoolV3DataFormat format,
                                int64_t low, int64_t high, const char *why) {
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(format);
    for (const auto &[position, axis] : {std::pair{at.h, "H"}, std::pair{at.w, "W"}}) {
        const int64_t value = list->values[position];
        if (value >= low && value <= high) continue;
        if (high == INT64_MAX)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, "[", position, "] (the ", axis, " entry for ",
                        formatText(format), ") must be >= ", low, ", got ", value, " in ", shapeText(list->values));
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, "[", position, "] (the ", axis, " entry for ",
                    formatText(format), ") must be in [", low, ", ", high, "] (", why, "), got ", value, " in ",
                    shapeText(list->values));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus requireNonNegativePads(const char *op, const aclIntArray *pads, MaxPoolV3PaddingMode mode) {
    if (pads == nullptr || mode != MaxPoolV3PaddingMode::Calculated) return ACLNN_SUCCESS;
    static constexpr const char *names[4] = {"top", "bottom", "left", "right"};
    for (size_t i = 0; i < 4; ++i)
        if (pads->values[i] < 0)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": pads[", i, "] (pad_", names[i],
                        ") must be >= 0 with paddingMode \"CALCULATED\", got ", pads->values[i], " in ",
                        shapeText(pads->values));
    return ACLNN_SUCCESS;
}

aclnnStatus decodeMaxPoolV3Attributes(const char *op, MaxPoolV3Direction direction,
                                      const MaxPoolV3AttributeArguments &arguments, MaxPoolV3Attributes &attributes) {
    const auto &[ksize, strides, paddingMode, pads, dataFormat, globalPooling, ceilMode] = arguments;
    const bool grad = direction == MaxPoolV3Direction::Grad;
    if (auto s = decodeMaxPoolV3DataFormat(op, dataFormat, attributes.dataFormat)) return s;
    if (auto s = decodeMaxPoolV3PaddingMode(op, paddingMode, attributes.paddingMode)) return s;
    if (grad)
        if (auto s = requireNoGlobalPooling(op, globalPooling)) return s;
    if (auto s = requireCeilModeOnlyCalculated(op, ceilMode, attributes.paddingMode)) return s;
    if (auto s = requireListOfFour(op, "ksize", ksize)) return s;
    if (auto s = requireListOfFour(op, "strides", strides)) return s;
    if (auto s = requireListOfFour(op, "pads", pads)) return s;
    if (auto s = requireUnitBatchAndChannel(op, "ksize", ksize, attributes.dataFormat)) return s;
    if (auto s = requireUnitBatchAndChannel(op, "strides", strides, attributes.dataFormat)) return s;
    // The grad's limits are the seed's (an artifact of the NPU kernel, SPEC §10); the forward only needs >= 1.
    if (auto s = requireSpatialRange(op, "ksize", ksize, attributes.dataFormat, 1, grad ? 255 : INT64_MAX,
                                     "MaxPoolV3Grad kernel limit"))
        return s;
    if (auto s = requireSpatialRange(op, "strides", strides, attributes.dataFormat, 1, grad ? 63 : INT64_MAX,
                                     "MaxPoolV3Grad stride limit"))
        return s;
    if (auto s = requireNonNegativePads(op, pads, attributes.paddingMode)) return s;

    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    attributes.globalPooling = globalPooling;
    attributes.ceilMode = ceilMode;
    attributes.kernelH = ksize->values[at.h];
    attributes.kernelW = ksize->values[at.w];
    attributes.strideH = strides->values[at.h];
    attributes.strideW = strides->values[at.w];
    attributes.pads = {0, 0, 0, 0};
    if (pads != nullptr) std::copy(pads->values.begin(), pads->values.end(), attributes.pads.begin());
    return ACLNN_SUCCESS;
}

MaxPoolV3Plan maxPoolV3Plan(const MaxPoolV3Attributes &attributes, int64_t inH, int64_t inW) {
    MaxPoolV3Plan plan;
    plan.input = {1, inH, inW};
    if (attributes.globalPooling) {
        // One window covering the whole plane.
        plan.windows.kernel = {1, inH, inW};
        plan.output = {1, 1, 1};
        return plan;
    }
    plan.windows.kernel = {1, attributes.kernelH, attributes.kernelW};
    plan.windows.stride = {1, attributes.strideH, attributes.strideW};
    switch (attributes.paddingMode) {
        case MaxPoolV3PaddingMode::Valid:
            plan.output = {1, validOutputSize(inH, attributes.kernelH, attributes.strideH),
                           validOutputSize(inW, attributes.kernelW, attributes.strideW)};
            break;
        case MaxPoolV3PaddingMode::Same: {
            const SameAxis h = sameAxis(inH, attributes.kernelH, attributes.strideH);
            const SameAxis w = sameAxis(inW, attributes.kernelW, attributes.strideW);
            plan.windows.padBegin = {0, h.padBegin, w.padBegin};
            plan.output = {1, h.outputSize, w.outputSize};
            break;
        }
        case MaxPoolV3PaddingMode::Calculated: {
            const auto &p = attributes.pads;  // top, bottom, left, right
            plan.windows.padBegin = {0, p[0], p[2]};
            plan.windows.padEnd = {0, p[1], p[3]};
            plan.windows.ceilMode = attributes.ceilMode;
            plan.output = regularOutputSize(plan.windows, plan.input);
            break;
        }
    }
    return plan;
}

std::vector<int64_t> maxPoolV3OutputShape(const MaxPoolV3Attributes &attributes, const std::vector<int64_t> &input,
                                          const MaxPoolV3Plan &plan) {
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    std::vector<int64_t> shape = input;
    shape[at.h] = plan.output[1];
    shape[at.w] = plan.output[2];
    return shape;
}

PlaneLayout maxPoolV3Layout(const MaxPoolV3Attributes &attributes) {
    return attributes.dataFormat == MaxPoolV3DataFormat::Nhwc ? PlaneLayout::ChannelsLast : PlaneLayout::ChannelsFirst;
}

std::string maxPoolV3AttributeText(const MaxPoolV3Attributes &attributes) {
    if (attributes.globalPooling) return joinText("globalPooling true, dataFormat ", formatText(attributes.dataFormat));
    return joinText("kernel ", attributes.kernelH, "x", attributes.kernelW, ", strides ", attributes.strideH, "x",
                    attributes.strideW, ", paddingMode ", modeText(attributes.paddingMode), ", pads ",
                    shapeText({attributes.pads.begin(), attributes.pads.end()}), ", ceilMode ",
                    attributes.ceilMode ? "true" : "false", ", dataFormat ", formatText(attributes.dataFormat));
}

}  // namespace poolgrad
