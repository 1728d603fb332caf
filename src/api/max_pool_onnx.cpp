// aclnnMaxPool (SPEC §7.3): ONNX MaxPool on (N,)C,H,W tensors, values only. Phase 1 checks in CANN's
// order (null pointers, dtypes, formats and rank, list lengths / autoPad / dilations, kernel / stride /
// pad values, then the shapes) and describes a value-only argmax forward with D = 1; the shared kernels
// run it. pads come in the ONNX order {top, left, bottom, right}.
#include <array>
#include <string>

#include "aclnnop/aclnn_max_pool.h"
#include "api/argument_checks.h"
#include "api/operand_memory.h"
#include "api/phase_one.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/geometry_builders.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPool";

// The arguments of aclnnMaxPoolGetWorkspaceSize but workspaceSize and executor.
struct OnnxMaxPoolArguments {
    const aclTensor *self;
    const aclIntArray *kernelShape, *strides;
    int64_t autoPad;
    const aclIntArray *pads, *dilations;
    int64_t ceilMode;
    const aclTensor *out;
};

aclnnStatus requireLengthIn(const char *name, const aclIntArray *list, std::initializer_list<size_t> allowed) {
    for (size_t length : allowed)
        if (list->values.size() == length) return ACLNN_SUCCESS;
    std::string lengths;
    for (size_t length : allowed) lengths += (lengths.empty() ? "" : ", ") + std::to_string(length);
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " must have length ", lengths, ", got ", list->values.size(),
                " (", name, " ", shapeText(list->values), ")");
}

// List lengths, autoPad and dilations (CANN's CheckParamsLogic order).
aclnnStatus checkListsAndModes(const OnnxMaxPoolArguments &arguments) {
    if (auto s = requireLengthIn("kernelShape", arguments.kernelShape, {1, 2})) return s;
    if (auto s = requireLengthIn("strides", arguments.strides, {0, 1, 2})) return s;
    if (auto s = requireLengthIn("pads", arguments.pads, {0, 1, 2, 4})) return s;
    if (auto s = requireLengthIn("dilations", arguments.dilations, {0, 1, 2, 4})) return s;
    if (arguments.autoPad != 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": autoPad must be 0 (NOTSET), the only mode supported, got ",
                    arguments.autoPad);
    for (int64_t dilation : arguments.dilations->values)
        if (dilation != 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every dilation must be 1, got dilations ",
                        shapeText(arguments.dilations->values));
    return ACLNN_SUCCESS;
}

// The (D,H,W) windows with D = 1; pads come as {top, left, bottom, right} (ONNX: x1_begin, x2_begin,
// x1_end, x2_end), or one value for all, or {H, W}.
RegularWindows decodeWindows(const OnnxMaxPoolArguments &arguments) {
    RegularWindows windows;
    const auto &k = arguments.kernelShape->values, &s = arguments.strides->values, &p = arguments.pads->values;
    windows.kernel = {1, k[0], k.size() == 1 ? k[0] : k[1]};
    // ONNX's default stride is 1, not the kernel
    windows.stride = {1, s.empty() ? 1 : s[0], s.empty() ? 1 : (s.size() == 1 ? s[0] : s[1])};
    if (p.size() == 1) {
        windows.padBegin = windows.padEnd = {0, p[0], p[0]};
    } else if (p.size() == 2) {
        windows.padBegin = windows.padEnd = {0, p[0], p[1]};
    } else if (p.size() == 4) {
        windows.padBegin = {0, p[0], p[1]};
        windows.padEnd = {0, p[2], p[3]};
    }
    windows.ceilMode = arguments.ceilMode != 0;
    return windows;
}

aclnnStatus requirePadsFitKernel(const char *axis, int64_t begin, int64_t end, int64_t kernel) {
    // CANN checks only begin + end <= kernel; a negative pad or one of a whole kernel would give windows
    // outside the input (SPEC §7.3: 0 <= pad < kernel), so poolgrad refuses those too.
    for (int64_t pad : {begin, end})
        if (pad < 0 || pad >= kernel)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every pad on axis ", axis,
                        " must satisfy 0 <= pad < kernel = ", kernel, ", got pads ", begin, " (begin) and ", end,
                        " (end)");
    if (begin + end > kernel)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the pads on axis ", axis, " must sum to at most the kernel size ",
                    kernel, ", got ", begin, " + ", end);
    return ACLNN_SUCCESS;
}

aclnnStatus checkWindowValues(const RegularWindows &w) {
    if (w.kernel[1] < 1 || w.kernel[2] < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": kernelShape values must be >= 1, got kH ", w.kernel[1], ", kW ",
                    w.kernel[2]);
    if (w.stride[1] < 1 || w.stride[2] < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": strides values must be >= 1, got sH ", w.stride[1], ", sW ",
                    w.stride[2]);
    if (auto s = requirePadsFitKernel("H", w.padBegin[1], w.padEnd[1], w.kernel[1])) return s;
    return requirePadsFitKernel("W", w.padBegin[2], w.padEnd[2], w.kernel[2]);
}

std::string windowsText(const RegularWindows &w) {
    return joinText("kernel ", w.kernel[1], "x", w.kernel[2], ", strides ", w.stride[1], "x", w.stride[2],
                    ", pads top ", w.padBegin[1], " left ", w.padBegin[2], " bottom ", w.padEnd[1], " right ",
                    w.padEnd[2], ", ceilMode ", w.ceilMode ? 1 : 0);
}

aclnnStatus describeMaxPool(const OnnxMaxPoolArguments &arguments, PoolProblem &problem) {
    const aclTensor *self = arguments.self, *out = arguments.out;
    const NamedTensor selfArg{"self", self}, outArg{"out", out};

    // The dtypes of CANN's newest SoC (A2/A3 take only FLOAT16 and FLOAT): a superset.
    if (auto s = requireDataTypeIn(
            op, selfArg,
            {ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_INT16, ACL_INT8, ACL_UINT16}))
        return s;
    if (auto s = requireSameDataType(op, outArg, selfArg)) return s;

    if (auto s = requireSameFormat(op, outArg, selfArg)) return s;
    // Always channels-first: NHWC and the private formats are refused (SPEC §7.3, §11 #20).
    if (auto s = requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NCL})) return s;
    if (auto s = requireRankIn(op, selfArg, {3, 4})) return s;
    if (auto s = requireSameRank(op, outArg, selfArg)) return s;

    if (auto s = checkListsAndModes(arguments)) return s;
    const RegularWindows windows = decodeWindows(arguments);
    if (auto s = checkWindowValues(windows)) return s;

    const bool batched = self->viewShape.size() == 4;
    const int64_t batch = batched ? self->viewShape[0] : 1;
    const int64_t channels = self->viewShape[batched ? 1 : 0];
    const int64_t inH = self->viewShape[batched ? 2 : 1], inW = self->viewShape[batched ? 3 : 2];
    if (channels == 0 || inH == 0 || inW == 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op,
                    ": only the batch of self may be 0; C, H and W must be >= 1, got self ",
                    shapeText(self->viewShape));
    const std::array<int64_t, 3> inputSize{1, inH, inW};
    const std::array<int64_t, 3> outputSize = regularOutputSize(windows, inputSize);
    const int64_t outH = outputSize[1], outW = outputSize[2];
    std::vector<int64_t> expected = self->viewShape;
    expected[expected.size() - 2] = outH;
    expected[expected.size() - 1] = outW;
    if (outH < 1 || outW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output shape computed for self ", shapeText(self->viewShape),
                    " is ", shapeText(expected), "; Ho and Wo must be >= 1 (", windowsText(windows), ")");
    if (auto s = requireShape(op, outArg, expected, "the pooled shape of self")) return s;

    if (batch == 0) {
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }
    if (auto s = requireOperandMemory(op, {selfArg}, {outArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = regularGeometry(windows, batch, channels, inputSize, outputSize);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = stridedOperand2d(self, PlaneLayout::ChannelsFirst);
    problem.output = stridedOperand2d(out, PlaneLayout::ChannelsFirst);
    // problem.indices stays absent: a value-only forward.
    return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
                                         const aclIntArray *strides, const int64_t autoPad, const aclIntArray *pads,
                                         const aclIntArray *dilations, const int64_t ceilMode, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    OnnxMaxPoolArguments arguments{self, kernelShape, strides, autoPad, pads, dilations, ceilMode, out};
    return planPhaseOne({op, workspaceSize, executor},
                        {{"self", arguments.self, inputAs(OperandRole::Input)},
                         {"kernelShape", arguments.kernelShape},
                         {"strides", arguments.strides},
                         {"pads", arguments.pads},
                         {"dilations", arguments.dilations},
                         {"out", arguments.out, outputAs(OperandRole::Output)}},
                        [&](PoolProblem &problem) { return describeMaxPool(arguments, problem); });
}

aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
