// aclnnMaxPool (SPEC §7.3): ONNX MaxPool on (N,)C,H,W tensors, values only. Phase 1 checks in CANN's
// order (null pointers, dtypes, formats and rank, list lengths / autoPad / dilations, kernel / stride /
// pad values, then the shapes) and describes a value-only argmax forward with D = 1; the shared kernels
// run it. pads come in the ONNX order {top, left, bottom, right}.
#include <array>
#include <string>

#include "aclnnop/aclnn_max_pool.h"
#include "api/argument_checks.h"
#include "api/operand_memory.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPool";

// The decoded attributes: one value per axis (H, W); pads as top, bottom, left, right.
struct OnnxMaxPoolWindows {
    int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    int64_t top = 0, bottom = 0, left = 0, right = 0;
    bool ceilMode = false;
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
aclnnStatus checkListsAndModes(const aclIntArray *kernelShape, const aclIntArray *strides, int64_t autoPad,
                               const aclIntArray *pads, const aclIntArray *dilations) {
    if (auto s = requireLengthIn("kernelShape", kernelShape, {1, 2})) return s;
    if (auto s = requireLengthIn("strides", strides, {0, 1, 2})) return s;
    if (auto s = requireLengthIn("pads", pads, {0, 1, 2, 4})) return s;
    if (auto s = requireLengthIn("dilations", dilations, {0, 1, 2, 4})) return s;
    if (autoPad != 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": autoPad must be 0 (NOTSET), the only mode supported, got ",
                    autoPad);
    for (int64_t dilation : dilations->values)
        if (dilation != 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every dilation must be 1, got dilations ",
                        shapeText(dilations->values));
    return ACLNN_SUCCESS;
}

OnnxMaxPoolWindows decodeWindows(const aclIntArray *kernelShape, const aclIntArray *strides, const aclIntArray *pads,
                                 int64_t ceilMode) {
    OnnxMaxPoolWindows windows;
    const auto &k = kernelShape->values, &s = strides->values, &p = pads->values;
    windows.kernelH = k[0];
    windows.kernelW = k.size() == 1 ? k[0] : k[1];
    windows.strideH = s.empty() ? 1 : s[0];  // ONNX's default stride is 1, not the kernel
    windows.strideW = s.empty() ? 1 : (s.size() == 1 ? s[0] : s[1]);
    if (p.size() == 1) {
        windows.top = windows.bottom = windows.left = windows.right = p[0];
    } else if (p.size() == 2) {
        windows.top = windows.bottom = p[0];
        windows.left = windows.right = p[1];
    } else if (p.size() == 4) {  // ONNX: {x1_begin, x2_begin, x1_end, x2_end}
        windows.top = p[0];
        windows.left = p[1];
        windows.bottom = p[2];
        windows.right = p[3];
    }
    windows.ceilMode = ceilMode != 0;
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

aclnnStatus checkWindowValues(const OnnxMaxPoolWindows &w) {
    if (w.kernelH < 1 || w.kernelW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": kernelShape values must be >= 1, got kH ", w.kernelH, ", kW ",
                    w.kernelW);
    if (w.strideH < 1 || w.strideW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": strides values must be >= 1, got sH ", w.strideH, ", sW ",
                    w.strideW);
    if (auto s = requirePadsFitKernel("H", w.top, w.bottom, w.kernelH)) return s;
    return requirePadsFitKernel("W", w.left, w.right, w.kernelW);
}

std::string windowsText(const OnnxMaxPoolWindows &w) {
    return joinText("kernel ", w.kernelH, "x", w.kernelW, ", strides ", w.strideH, "x", w.strideW, ", pads top ", w.top,
                    " left ", w.left, " bottom ", w.bottom, " right ", w.right, ", ceilMode ", w.ceilMode ? 1 : 0);
}

aclnnStatus describeMaxPool(const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides,
                            int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations, int64_t ceilMode,
                            const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor,
                            PoolProblem &problem) {
    if (auto s = requireNonNull(op, {{"self", self},
                                     {"kernelShape", kernelShape},
                                     {"strides", strides},
                                     {"pads", pads},
                                     {"dilations", dilations},
                                     {"out", out},
                                     {"workspaceSize", workspaceSize},
                                     {"executor", executor}}))
        return s;
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

    if (auto s = checkListsAndModes(kernelShape, strides, autoPad, pads, dilations)) return s;
    const OnnxMaxPoolWindows windows = decodeWindows(kernelShape, strides, pads, ceilMode);
    if (auto s = checkWindowValues(windows)) return s;

    const bool batched = self->viewShape.size() == 4;
    const int64_t batch = batched ? self->viewShape[0] : 1;
    const int64_t channels = self->viewShape[batched ? 1 : 0];
    const int64_t inH = self->viewShape[batched ? 2 : 1], inW = self->viewShape[batched ? 3 : 2];
    if (channels == 0 || inH == 0 || inW == 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op,
                    ": only the batch of self may be 0; C, H and W must be >= 1, got self ",
                    shapeText(self->viewShape));
    const int64_t outH =
        pooledOutputSize(inH, windows.kernelH, windows.strideH, windows.top, windows.bottom, 1, windows.ceilMode);
    const int64_t outW =
        pooledOutputSize(inW, windows.kernelW, windows.strideW, windows.left, windows.right, 1, windows.ceilMode);
    std::vector<int64_t> expected = self->viewShape;
    expected[expected.size() - 2] = outH;
    expected[expected.size() - 1] = outW;
    if (outH < 1 || outW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output shape computed for self ", shapeText(self->viewShape),
                    " is ", shapeText(expected), "; Ho and Wo must be >= 1 (", windowsText(windows), ")");
    if (auto s = requireShape(op, outArg, expected, "the pooled shape of self")) return s;

    problem.operatorName = op;
    if (batch == 0) {
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }
    if (auto s = requireAddressable(op, {selfArg, outArg})) return s;
    if (auto s = requireNoSelfOverlap(op, {outArg})) return s;
    if (auto s = requireNoSharedMemory(op, {outArg}, {selfArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    PoolGeometry &geometry = problem.geometry;
    geometry.batch = batch;
    geometry.channels = channels;
    geometry.axes[0] = WindowAxis{};  // D: one row
    WindowAxis &h = geometry.axes[1], &w = geometry.axes[2];
    h.inputSize = inH;
    w.inputSize = inW;
    h.outputSize = outH;
    w.outputSize = outW;
    h.kernel = windows.kernelH;
    w.kernel = windows.kernelW;
    h.stride = windows.strideH;
    w.stride = windows.strideW;
    h.padBegin = windows.top;
    w.padBegin = windows.left;
    if (auto s = requireWindowArithmetic(op, geometry)) return s;
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
    return planOperator(op,
                        {{"self", self},
                         {"kernelShape", kernelShape},
                         {"strides", strides},
                         {"pads", pads},
                         {"dilations", dilations},
                         {"out", out}},
                        workspaceSize, executor, [&](PoolProblem &problem) {
                            return describeMaxPool(self, kernelShape, strides, autoPad, pads, dilations, ceilMode, out,
                                                   workspaceSize, executor, problem);
                        });
}

aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
