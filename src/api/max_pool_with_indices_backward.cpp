// Backward operators of the max-pool-with-indices family (SPEC §4, §8). Phase 1 checks the rows of §4
// in order — the 2-D wrappers apply the same rows to (N,)C,H,W tensors — and describes an
// index-scatter problem (or a zero-fill for empty inputs); phase 2 runs the chosen implementation.
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "api/argument_checks.h"
#include "api/batch_only_empty.h"
#include "api/mask_indices.h"
#include "api/max_pool_attributes.h"
#include "api/max_pool_with_indices.h"
#include "api/phase_one.h"
#include "api/spatial_operand.h"

namespace poolgrad {

aclnnStatus describeMaxPoolWithIndicesBackward(const MaxPoolVariant &variant,
                                               const MaxPoolWithIndicesBackwardArguments &arguments,
                                               PoolProblem &problem) {
    const char *op = variant.op;
    const bool mask = variant.indices == IndicesEncoding::Mask;
    const auto &[gradOutput, self, indices, gradInput] = arguments.tensors;
    const NamedTensor gradOutputArg{"gradOutput", gradOutput}, selfArg{"self", self}, indicesArg{"indices", indices},
        gradInputArg{"gradInput", gradInput};

    if (auto s = requireDataTypeIn(op, selfArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = mask ? requireDataTypeIn(op, indicesArg, {ACL_INT8})
                      : requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64}))
        return s;
    if (auto s = requireSameDataType(op, gradOutputArg, selfArg)) return s;
    if (auto s = requireSameDataType(op, gradInputArg, selfArg)) return s;

    if (auto s = requireSameFormat(op, gradOutputArg, selfArg)) return s;
    if (auto s = requireSameFormat(op, gradInputArg, selfArg)) return s;
    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;

    const size_t batchedRank = static_cast<size_t>(variant.spatialDims) + 2;
    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requireRankIn(op, tensor, {batchedRank - 1, batchedRank})) return s;
    for (const NamedTensor &tensor : {gradOutputArg, indicesArg, gradInputArg})
        if (auto s = requireSameRank(op, tensor, selfArg)) return s;

    RegularWindows windows;
    if (auto s = decodeMaxPoolWindows(op, variant.spatialDims, arguments.windows, windows)) return s;
    if (variant.spatialDims == 2)
        if (auto s = requireOnlyBatchMayBeEmpty(op, selfArg)) return s;

    int64_t kernelElements = 0;  // kH*kW, masks only (a 3-D kernel volume is never needed)
    const size_t leadingCount = self->viewShape.size() - static_cast<size_t>(variant.spatialDims);
    const std::vector<int64_t> &gradOutputShape = gradOutput->viewShape;
    if (mask) {
        if (auto s = requireMaskKernelElements(op, windows.kernel[1], windows.kernel[2], kernelElements)) return s;
        const std::vector<int64_t> leading(gradOutputShape.begin(), gradOutputShape.begin() + leadingCount);
        if (auto s = requireMaskShape(op, "indices", indices, leading, kernelElements, gradOutputShape[leadingCount],
                                      gradOutputShape[leadingCount + 1],
                                      "the mask shape (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32) for gradOutput"))
            return s;
        if (auto s = requireDenseMask(op, "indices", indices)) return s;
    } else if (auto s = requireSameShape(op, indicesArg, gradOutputArg)) {
        return s;
    }
    if (auto s = requireSameShape(op, gradInputArg, selfArg)) return s;

    const StridedTensor input = spatialOperand(variant.spatialDims, self);
    int64_t planeElements = 0;
    if (auto s = requirePlaneElements(op, selfArg, variant.spatialDims, planeElements)) return s;
    if (auto s = requireIndexRange(op, "indices", mask ? IndexStorage::Int32InMask : indexStorageOf(indices->dataType),
                                   variant.spatialDims, planeElements))
        return s;

    if (auto s = describeIndexBackwardTail(op, variant.spatialDims, arguments.tensors, problem)) return s;
    if (problem.task == PoolTask::ZeroFill) return ACLNN_SUCCESS;

    const std::array<int64_t, 3> inputSize{input.size[2], input.size[3], input.size[4]};
    const std::array<int64_t, 3> outputSize = regularOutputSize(windows, inputSize);
    std::vector<int64_t> expected(self->viewShape.begin(), self->viewShape.begin() + leadingCount);
    expected.insert(expected.end(), outputSize.end() - variant.spatialDims, outputSize.end());
    if (auto s = requireShape(op, gradOutputArg, expected,
                              "the forward output shape for self, kernelSize, stride, padding, dilation and ceilMode"))
        return s;

    problem.geometry = regularGeometry(windows, input.size[0], input.size[1], inputSize, outputSize);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.indices =
        mask ? maskIndicesOperand(indices, kernelElements, input.size[0], input.size[1], outputSize[1], outputSize[2])
             : spatialOperand(variant.spatialDims, indices);
    return ACLNN_SUCCESS;
}

namespace {

constexpr MaxPoolVariant maxPool3dWithArgmaxBackward{"aclnnMaxPool3dWithArgmaxBackward", 3, IndicesEncoding::Tensor};
constexpr MaxPoolVariant maxPool2dWithIndicesBackward{"aclnnMaxPool2dWithIndicesBackward", 2, IndicesEncoding::Tensor};
constexpr MaxPoolVariant maxPool2dWithMaskBackward{"aclnnMaxPool2dWithMaskBackward", 2, IndicesEncoding::Mask};

aclnnStatus phaseOne(const MaxPoolVariant &variant, MaxPoolWithIndicesBackwardArguments arguments,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    auto &tensors = arguments.tensors;
    auto &windows = arguments.windows;
    return planPhaseOne(
        {variant.op, workspaceSize, executor},
        {{"gradOutput", tensors.gradOutput, inputAs(OperandRole::GradOutput)},
         {"self", tensors.self, inputAs(OperandRole::None)},
         {"indices", tensors.indices, inputAs(OperandRole::Indices)},
         {"kernelSize", windows.kernelSize},
         {"stride", windows.stride},
         {"padding", windows.padding},
         {"dilation", windows.dilation},
         {"gradInput", tensors.gradInput, outputAs(OperandRole::GradInput)}},
        [&](PoolProblem &problem) { return describeMaxPoolWithIndicesBackward(variant, arguments, problem); });
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                             const aclTensor *indices, const aclIntArray *kernelSize,
                                                             const aclIntArray *stride, const aclIntArray *padding,
                                                             const aclIntArray *dilation, bool ceilMode,
                                                             aclTensor *gradInput, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor) {
    return phaseOne(maxPool3dWithArgmaxBackward,
                    {{gradOutput, self, indices, gradInput}, {kernelSize, stride, padding, dilation, ceilMode}},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmaxBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream) {
    return runPhaseTwo(maxPool3dWithArgmaxBackward.op, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                              const aclTensor *indices, const aclIntArray *kernelSize,
                                                              const aclIntArray *stride, const aclIntArray *padding,
                                                              const aclIntArray *dilation, bool ceilMode,
                                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor) {
    return phaseOne(maxPool2dWithIndicesBackward,
                    {{gradOutput, self, indices, gradInput}, {kernelSize, stride, padding, dilation, ceilMode}},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream) {
    return runPhaseTwo(maxPool2dWithIndicesBackward.op, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           const aclTensor *indices, const aclIntArray *kernelSize,
                                                           const aclIntArray *stride, const aclIntArray *padding,
                                                           const aclIntArray *dilation, bool ceilMode,
                                                           aclTensor *gradInput, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor) {
    return phaseOne(maxPool2dWithMaskBackward,
                    {{gradOutput, self, indices, gradInput}, {kernelSize, stride, padding, dilation, ceilMode}},
                    workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithMaskBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream) {
    return runPhaseTwo(maxPool2dWithMaskBackward.op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
