// aclnnMaxPool3dWithArgmax (SPEC §7.1): phase 1 checks the rows of §7.1 in order and describes an
// argmax-forward problem; phase 2 runs the implementation chosen for it.
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"

#include "api/argument_checks.h"
#include "api/max_pool3d_attributes.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPool3dWithArgmax";

aclnnStatus describeMaxPool3dWithArgmax(const aclTensor *self, const aclIntArray *kernelSize,
                                        const aclIntArray *stride, const aclIntArray *padding,
                                        const aclIntArray *dilation, bool ceilMode, const aclTensor *out,
                                        const aclTensor *indices, uint64_t *workspaceSize,
                                        aclOpExecutor **executor, PoolProblem &problem) {
    if (auto s = requireNonNull(op, {{"self", self}, {"kernelSize", kernelSize}, {"stride", stride},
                                     {"padding", padding}, {"dilation", dilation}, {"out", out},
                                     {"indices", indices}, {"workspaceSize", workspaceSize},
                                     {"executor", executor}}))
        return s;
    const NamedTensor selfArg{"self", self}, outArg{"out", out}, indicesArg{"indices", indices};

    if (auto s = requireDataTypeIn(op, selfArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64})) return s;
    if (auto s = requireSameDataType(op, outArg, selfArg)) return s;

    if (auto s = requireSameFormat(op, outArg, selfArg)) return s;
    if (auto s = requireSameFormat(op, indicesArg, selfArg)) return s;
    if (auto s = requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW})) return s;

    if (auto s = requireRankIn(op, selfArg, {4, 5})) return s;
    if (auto s = requireSameRank(op, outArg, selfArg)) return s;
    if (auto s = requireSameRank(op, indicesArg, selfArg)) return s;

    MaxPool3dAttributes attributes;
    if (auto s = decodeMaxPool3dAttributes(op, kernelSize, stride, padding, dilation, ceilMode, attributes)) return s;

    problem.operatorName = op;
    if (isEmpty(self)) {
        if (!isEmpty(out) || !isEmpty(indices))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": self is empty (shape ", shapeText(self->viewShape),
                        ") so out and indices must be empty too, got out ", shapeText(out->viewShape),
                        " and indices ", shapeText(indices->viewShape));
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }

    const StridedTensor input = stridedOperand(self);
    const std::array<int64_t, 3> inputSize{input.size[2], input.size[3], input.size[4]};
    const std::array<int64_t, 3> outputSize = maxPool3dOutputSize(attributes, inputSize);
    std::vector<int64_t> expected(self->viewShape.begin(), self->viewShape.end() - 3);
    expected.insert(expected.end(), outputSize.begin(), outputSize.end());
    for (int a = 0; a < 3; ++a)
        if (outputSize[a] < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output size computed for self ",
                        shapeText(self->viewShape), " is ", shapeText(expected),
                        "; every spatial size must be >= 1 (kernelSize ", shapeText({attributes.kernel.begin(), attributes.kernel.end()}),
                        ", stride ", shapeText({attributes.stride.begin(), attributes.stride.end()}), ", padding ",
                        shapeText({attributes.padding.begin(), attributes.padding.end()}), ", dilation ",
                        shapeText({attributes.dilation.begin(), attributes.dilation.end()}), ", ceilMode ",
                        ceilMode ? "true" : "false", ")");
    if (auto s = requireShape(op, outArg, expected, "the pooled shape of self")) return s;
    if (auto s = requireShape(op, indicesArg, expected, "the pooled shape of self")) return s;
    if (auto s = requireIndexRange(op, indicesArg, input.planeElements())) return s;
    if (auto s = requireAddressable(op, {selfArg, outArg, indicesArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = maxPool3dGeometry(attributes, input.size[0], input.size[1], inputSize, outputSize);
    problem.input = input;
    problem.output = stridedOperand(out);
    problem.indices = stridedOperand(indices);
    return ACLNN_SUCCESS;
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
    PoolProblem problem;
    if (auto s = describeMaxPool3dWithArgmax(self, kernelSize, stride, padding, dilation, ceilMode, out, indices,
                                             workspaceSize, executor, problem)) {
        clearPhaseOneOutputs(workspaceSize, executor);
        return s;
    }
    return finishPhaseOne(problem, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
