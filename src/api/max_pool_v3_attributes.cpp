#include "api/max_pool_v3_attributes.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "api/argument_checks.h"
#include "core/error_message.h"
#include "runtime/descriptors.h"

namespace poolgrad {
namespace {

const char *formatText(MaxPoolV3DataFormat format) { return format == MaxPoolV3DataFormat::Nhwc ? "NHWC" : "NCHW"; }

const char *modeText(MaxPoolV3PaddingMode mode) {
    switch (mode) {
        case MaxPoolV3PaddingMode::Same:
            return "SAME";
        case MaxPoolV3PaddingMode::Valid:
            return "VALID";
        case MaxPoolV3PaddingMode::Calculated:
            break;
    }
    return "CALCULATED";
}

int64_t floorDivide(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// SAME on one axis: Ho = ceil(in / s); the total padding is split with the smaller half first.
void sameAxis(int64_t in, int64_t kernel, int64_t stride, int64_t &out, int64_t &padBegin) {
    out = in / stride + (in % stride != 0 ? 1 : 0);
    // 128-bit: kernel and stride are unbounded in the forward.
    const __int128 total = std::max<__int128>(static_cast<__int128>(out - 1) * stride + kernel - in, 0);
    padBegin = static_cast<int64_t>(total / 2);
}

// VALID on one axis: floor((in - k) / s) + 1, never below 0; no padding.
int64_t validAxis(int64_t in, int64_t kernel, int64_t stride) {
    return std::max<int64_t>(floorDivide(in - kernel, stride) + 1, 0);
}

}  // namespace

MaxPoolV3AxisPositions maxPoolV3AxisPositions(MaxPoolV3DataFormat format) {
    if (format == MaxPoolV3DataFormat::Nhwc) return {0, 3, 1, 2};
    return {0, 1, 2, 3};
}

aclnnStatus decodeMaxPoolV3DataFormat(const char *op, const char *dataFormat, MaxPoolV3DataFormat &format) {
    if (dataFormat == nullptr || std::strcmp(dataFormat, "NCHW") == 0) {
        format = MaxPoolV3DataFormat::Nchw;
        return ACLNN_SUCCESS;
    }
    if (std::strcmp(dataFormat, "NHWC") == 0) {
        format = MaxPoolV3DataFormat::Nhwc;
        return ACLNN_SUCCESS;
    }
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                ": dataFormat must be \"NCHW\" or \"NHWC\" (exact, case-sensitive; "
                "nullptr means \"NCHW\"), got \"",
                dataFormat, "\"");
}

aclnnStatus decodeMaxPoolV3PaddingMode(const char *op, const char *paddingMode, MaxPoolV3PaddingMode &mode) {
    if (paddingMode == nullptr || std::strcmp(paddingMode, "CALCULATED") == 0) {
        mode = MaxPoolV3PaddingMode::Calculated;
        return ACLNN_SUCCESS;
    }
    if (std::strcmp(paddingMode, "SAME") == 0) {
        mode = MaxPoolV3PaddingMode::Same;
        return ACLNN_SUCCESS;
    }
    if (std::strcmp(paddingMode, "VALID") == 0) {
        mode = MaxPoolV3PaddingMode::Valid;
        return ACLNN_SUCCESS;
    }
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                ": paddingMode must be \"CALCULATED\", \"SAME\" or \"VALID\" (exact, "
                "case-sensitive; nullptr means \"CALCULATED\"), got \"",
                paddingMode, "\"");
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

aclnnStatus decodeMaxPoolV3Attributes(const char *op, MaxPoolV3Direction direction, const aclIntArray *ksize,
                                      const aclIntArray *strides, const char *paddingMode, const aclIntArray *pads,
                                      const char *dataFormat, bool globalPooling, bool ceilMode,
                                      MaxPoolV3Attributes &attributes) {
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
    if (attributes.globalPooling) {
        plan.outH = plan.outW = 1;
        return plan;
    }
    switch (attributes.paddingMode) {
        case MaxPoolV3PaddingMode::Valid:
            plan.outH = validAxis(inH, attributes.kernelH, attributes.strideH);
            plan.outW = validAxis(inW, attributes.kernelW, attributes.strideW);
            break;
        case MaxPoolV3PaddingMode::Same:
            sameAxis(inH, attributes.kernelH, attributes.strideH, plan.outH, plan.padTop);
            sameAxis(inW, attributes.kernelW, attributes.strideW, plan.outW, plan.padLeft);
            break;
        case MaxPoolV3PaddingMode::Calculated: {
            const auto &p = attributes.pads;  // top, bottom, left, right
            plan.outH =
                pooledOutputSize(inH, attributes.kernelH, attributes.strideH, p[0], p[1], 1, attributes.ceilMode);
            plan.outW =
                pooledOutputSize(inW, attributes.kernelW, attributes.strideW, p[2], p[3], 1, attributes.ceilMode);
            plan.padTop = p[0];
            plan.padLeft = p[2];
            break;
        }
    }
    return plan;
}

std::vector<int64_t> maxPoolV3OutputShape(const MaxPoolV3Attributes &attributes, const std::vector<int64_t> &input,
                                          const MaxPoolV3Plan &plan) {
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    std::vector<int64_t> shape = input;
    shape[at.h] = plan.outH;
    shape[at.w] = plan.outW;
    return shape;
}

PoolGeometry maxPoolV3Geometry(const MaxPoolV3Attributes &attributes, const MaxPoolV3Plan &plan, int64_t batch,
                               int64_t channels, int64_t inH, int64_t inW) {
    PoolGeometry geometry;
    geometry.batch = batch;
    geometry.channels = channels;
    geometry.axes[0] = WindowAxis{};  // D: one input row, one output, kernel 1
    WindowAxis &h = geometry.axes[1], &w = geometry.axes[2];
    h.inputSize = inH;
    w.inputSize = inW;
    h.outputSize = plan.outH;
    w.outputSize = plan.outW;
    if (attributes.globalPooling) {
        // One window covering the whole plane.
        h.kernel = inH;
        w.kernel = inW;
        return geometry;
    }
    h.kernel = attributes.kernelH;
    w.kernel = attributes.kernelW;
    h.stride = attributes.strideH;
    w.stride = attributes.strideW;
    h.padBegin = plan.padTop;
    w.padBegin = plan.padLeft;
    return geometry;
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
