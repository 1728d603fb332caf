// aclnnMaxPool3dWithArgmaxBackward (SPEC §4): phase 1 checks the rows of §4 in order and describes an
// index-scatter problem (or a zero-fill for empty inputs); phase 2 runs the chosen implementation.
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"

#include "api/argument_checks.h"
#include "api/max_pool3d_attributes.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPool3dWithArgmaxBackward";

aclnnStatus describeMaxPool3dWithArgmaxBackward(const aclTensor *gradOutput, const aclTensor *self,
                                                const aclTensor *indices, const aclIntArray *kernelSize,
                                                const aclIntArray *stride, const aclIntArray *padding,
                                                const aclIntArray *dilation, bool ceilMode,
                                                const aclTensor *gradInput, uint64_t *workspaceSize,
                                                aclOpExecutor **executor, PoolProblem &problem) {
    if (auto s = requireNonNull(op, {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices},
                                     {"kernelSize", kernelSize}, {"stride", stride}, {"padding", padding},
                                     {"dilation", dilation}, {"gradInput", gradInput},
                                     {"workspaceSize", workspaceSize}, {"executor", executor}}))
        return s;
    const NamedTensor gradOutputArg{"gradOutput", gradOutput}, selfArg{"self", self},
        indicesArg{"indices", indices}, gradInputArg{"gradInput", gradInput};

    if (auto s = requireDataTypeIn(op, selfArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64})) return s;
    if (auto s = requireSameDataType(op, gradOutputArg, selfArg)) return s;
    if (auto s = requireSameDataType(op, gradInputArg, selfArg)) return s;

    if (auto s = requireSameFormat(op, gradOutputArg, selfArg)) return s;
    if (auto s = requireSameFormat(op, gradInputArg, selfArg)) return s;
    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;

    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requireRankIn(op, tensor, {4, 5})) return s;
    for (const NamedTensor &tensor : {gradOutputArg, indicesArg, gradInputArg})
        if (auto s = requireSameRank(op, tensor, selfArg)) return s;

    MaxPool3dAttributes attributes;
    if (auto s = decodeMaxPool3dAttributes(op, kernelSize, stride, padding, dilation, ceilMode, attributes)) return s;

    if (auto s = requireSameShape(op, indicesArg, gradOutputArg)) return s;
    if (auto s = requireSameShape(op, gradInputArg, selfArg)) return s;

    const StridedTensor input = stridedOperand(self);
    if (auto s = requireIndexRange(op, indicesArg, input.planeElements())) return s;

    const size_t leading = self->viewShape.size() - 3;  // N,C or C
    for (size_t i = 0; i < leading; ++i)
        if (gradOutput->viewShape[i] != self->viewShape[i])
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": gradOutput ", leading == 2 && i == 0 ? "N" : "C", " (dim ", i,
                        ") must equal self's, got gradOutput ", shapeText(gradOutput->viewShape), " and self ",
                        shapeText(self->viewShape));

    if (auto s = requireAddressable(op, {gradOutputArg, indicesArg, gradInputArg})) return s;

    problem.operatorName = op;
    problem.gradInput = stridedOperand(gradInput);
    if (isEmpty(gradOutput) || isEmpty(self) || isEmpty(indices)) {
        problem.task = PoolTask::ZeroFill;
        return ACLNN_SUCCESS;
    }

    const std::array<int64_t, 3> inputSize{input.size[2], input.size[3], input.size[4]};
    const std::array<int64_t, 3> outputSize = maxPool3dOutputSize(attributes, inputSize);
    std::vector<int64_t> expected(self->viewShape.begin(), self->viewShape.end() - 3);
    expected.insert(expected.end(), outputSize.begin(), outputSize.end());
    if (auto s = requireShape(op, gradOutputArg, expected,
                              "the forward output shape for self, kernelSize, stride, padding, dilation and ceilMode"))
        return s;

    problem.task = PoolTask::IndexScatterBackward;
    problem.geometry = maxPool3dGeometry(attributes, input.size[0], input.size[1], inputSize, outputSize);
    problem.gradOutput = stridedOperand(gradOutput);
    problem.indices = stridedOperand(indices);
    return ACLNN_SUCCESS;
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
    PoolProblem problem;
    if (auto s = describeMaxPool3dWithArgmaxBackward(gradOutput, self, indices, kernelSize, stride, padding, dilation,
                                                     ceilMode, gradInput, workspaceSize, executor, problem)) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return s;
    }
    return finishPhaseOne(problem, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmaxBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
