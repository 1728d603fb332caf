// Forward operators of the max-pool-with-indices family (SPEC §7.1, §8). Phase 1 checks the rows of
// §7.1 in order — the 2-D wrappers apply the same rows to (N,)C,H,W tensors — and describes an
// argmax-forward problem; phase 2 runs the implementation chosen for it.
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "api/argument_checks.h"
#include "api/batch_only_empty.h"
#include "api/mask_indices.h"
#include "api/max_pool_attributes.h"
#include "api/max_pool_with_indices.h"
#include "api/operand_memory.h"
#include "api/phase_one.h"
#include "api/spatial_operand.h"
#include "core/error_message.h"

namespace poolgrad {

namespace {

std::string windowsText(const RegularWindows &windows) {
    const auto list = [](const std::array<int64_t, 3> &values) { return shapeText({values.begin(), values.end()}); };
    return joinText("kernel ", list(windows.kernel), ", stride ", list(windows.stride), ", padding ",
                    list(windows.padBegin), ", dilation ", list(windows.dilation), ", ceilMode ",
                    windows.ceilMode ? "true" : "false", " as (D,H,W)");
}

}  // namespace

aclnnStatus describeMaxPoolWithIndicesForward(const MaxPoolVariant &variant,
                                              const MaxPoolWithIndicesForwardArguments &arguments,
                                              PoolProblem &problem) {
    const char *op = variant.op;
    const bool mask = variant.indices == IndicesEncoding::Mask;
    const auto &[self, windowArguments, out, indices] = arguments;
    const NamedTensor selfArg{"self", self}, outArg{"out", out}, indicesArg{"indices", indices};

    if (auto s = requireDataTypeIn(op, selfArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = mask ? requireDataTypeIn(op, indicesArg, {ACL_INT8})
                      : requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64}))
        return s;
    if (auto s = requireSameDataType(op, outArg, selfArg)) return s;

    if (auto s = requireSameFormat(op, outArg, selfArg)) return s;
    if (auto s = requireSameFormat(op, indicesArg, selfArg)) return s;
    if (auto s = variant.spatialDims == 3
                     ? requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW})
                     : requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCHW}))
        return s;

    const size_t batchedRank = static_cast<size_t>(variant.spatialDims) + 2;
    if (auto s = requireRankIn(op, selfArg, {batchedRank - 1, batchedRank})) return s;
    if (auto s = requireSameRank(op, outArg, selfArg)) return s;
    if (auto s = requireSameRank(op, indicesArg, selfArg)) return s;

    RegularWindows windows;
    if (auto s = decodeMaxPoolWindows(op, variant.spatialDims, windowArguments, windows)) return s;
    if (variant.spatialDims == 2)
        if (auto s = requireOnlyBatchMayBeEmpty(op, selfArg)) return s;

    if (isEmpty(self)) {
        if (!isEmpty(out) || !isEmpty(indices))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": self is empty (shape ", shapeText(self->viewShape),
                        ") so out and indices must be empty too, got out ", shapeText(out->viewShape), " and indices ",
                        shapeText(indices->viewShape));
        problem.task = PoolTask::ZeroFill;  // nothing to write: out and indices are empty
        return ACLNN_SUCCESS;
    }

    const StridedTensor input = spatialOperand(variant.spatialDims, self);
    const std::array<int64_t, 3> inputSize{input.size[2], input.size[3], input.size[4]};
    const std::array<int64_t, 3> outputSize = regularOutputSize(windows, inputSize);
    const std::vector<int64_t> leading(self->viewShape.begin(), self->viewShape.end() - variant.spatialDims);
    std::vector<int64_t> expected = leading;
    expected.insert(expected.end(), outputSize.end() - variant.spatialDims, outputSize.end());
    for (int a = 0; a < 3; ++a)
        if (outputSize[a] < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output shape computed for self ",
                        shapeText(self->viewShape), " is ", shapeText(expected), "; every spatial size must be >= 1 (",
                        windowsText(windows), ")");
    if (auto s = requireShape(op, outArg, expected, "the pooled shape of self")) return s;
    int64_t kernelElements = 0;  // kH*kW, masks only (a 3-D kernel volume is never needed)
    if (mask) {
        if (auto s = requireMaskKernelElements(op, windows.kernel[1], windows.kernel[2], kernelElements)) return s;
        if (auto s = requireMaskShape(op, "indices", indices, leading, kernelElements, outputSize[1], outputSize[2],
                                      "the mask shape (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32)"))
            return s;
        if (auto s = requireDenseMask(op, "indices", indices)) return s;
    } else if (auto s = requireShape(op, indicesArg, expected, "the pooled shape of self")) {
        return s;
    }
    int64_t planeElements = 0;
    if (auto s = requirePlaneElements(op, selfArg, variant.spatialDims, planeElements)) return s;
    if (auto s = requireIndexRange(op, "indices", mask ? IndexStorage::Int32InMask : indexStorageOf(indices->dataType),
                                   variant.spatialDims, planeElements))
        return s;
    if (auto s = requireOperandMemory(op, {selfArg}, {outArg, indicesArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = regularGeometry(windows, input.size[0], input.size[1], inputSize, outputSize);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = input;
    problem.output = spatialOperand(variant.spatialDims, out);
    problem.indices =
        mask ? maskIndicesOperand(indices, kernelElements, input.size[0], input.size[1], outputSize[1], outputSize[2])
             : spatialOperand(variant.spatialDims, indices);
    return ACLNN_SUCCESS;
}

namespace {

constexpr MaxPoolVariant maxPool3dWithArgmax{"aclnnMaxPool3dWithArgmax", 3, IndicesEncoding::Tensor};
constexpr MaxPoolVariant maxPool2dWithIndices{"aclnnMaxPool2dWithIndices", 2, IndicesEncoding::Tensor};
constexpr MaxPoolVariant maxPool2dWithMask{"aclnnMaxPool2dWithMask", 2, IndicesEncoding::Mask};

aclnnStatus phaseOne(const MaxPoolVariant &variant, MaxPoolWithIndicesForwardArguments arguments,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    auto &windows = arguments.windows;
    return planPhaseOne(
        {variant.op, workspaceSize, executor},
        {{"self", arguments.self, inputAs(OperandRole::Input)},
         {"kernelSize", windows.kernelSize},
         {"stride", windows.stride},
         {"padding", windows.padding},
         {"dilation", windows.dilation},
         {"out", arguments.out, outputAs(OperandRole::Output)},
         {"indices", arguments.indices, outputAs(OperandRole::Indices)}},
        [&](PoolProblem &problem) { return describeMaxPoolWithIndicesForward(variant, arguments, problem); });
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPool3dWithArgmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                     const aclIntArray *stride, const aclIntArray *padding,
                                                     const aclIntArray *dilation, bool ceilMode, aclTensor *out,
                                                     aclTensor *indices, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor) {
    return phaseOne(maxPool3dWithArgmax, {self, {kernelSize, stride, padding, dilation, ceilMode}, out, indices},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream) {
    return runPhaseTwo(maxPool3dWithArgmax.op, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                      const aclIntArray *stride, const aclIntArray *padding,
                                                      const aclIntArray *dilation, bool ceilMode, aclTensor *out,
                                                      aclTensor *indices, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
    return phaseOne(maxPool2dWithIndices, {self, {kernelSize, stride, padding, dilation, ceilMode}, out, indices},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndices(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream) {
    return runPhaseTwo(maxPool2dWithIndices.op, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithMaskGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                   const aclIntArray *stride, const aclIntArray *padding,
                                                   const aclIntArray *dilation, bool ceilMode, aclTensor *out,
                                                   aclTensor *indices, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
    return phaseOne(maxPool2dWithMask, {self, {kernelSize, stride, padding, dilation, ceilMode}, out, indices},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithMask(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
    return runPhaseTwo(maxPool2dWithMask.op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
