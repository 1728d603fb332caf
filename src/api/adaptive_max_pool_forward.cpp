// Adaptive max-pool forwards (SPEC §7.2, §8): aclnnAdaptiveMaxPool3d and aclnnAdaptiveMaxPool2d (the
// 3-D operator with D = 1). Phase 1 checks the rows of §7.2 in order and describes an argmax-forward
// problem whose windows are adaptive: [floor(o*I/O), ceil((o+1)*I/O)) on every axis.
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "api/argument_checks.h"
#include "api/operand_memory.h"
#include "api/phase_one.h"
#include "api/spatial_operand.h"
#include "core/error_message.h"
#include "core/geometry_builders.h"

namespace poolgrad {

namespace {

struct AdaptiveMaxPoolForwardArguments {
    const aclTensor *self;
    const aclIntArray *outputSize;
    const aclTensor *out;      // outputOut
    const aclTensor *indices;  // indicesOut
};

aclnnStatus describeAdaptiveMaxPoolForward(int spatialDims, const char *op,
                                           const AdaptiveMaxPoolForwardArguments &arguments, PoolProblem &problem) {
    const auto &[self, outputSize, out, indices] = arguments;
    const NamedTensor selfArg{"self", self}, outArg{"outputOut", out}, indicesArg{"indicesOut", indices};

    const size_t batchedRank = static_cast<size_t>(spatialDims) + 2;
    for (const NamedTensor &tensor : {selfArg, outArg, indicesArg})
        if (auto s = requireRankIn(op, tensor, {batchedRank - 1, batchedRank})) return s;
    for (const NamedTensor &tensor : {outArg, indicesArg})
        if (auto s = requireSameRank(op, tensor, selfArg)) return s;

    // The 2-D operator also takes DOUBLE, as CANN's op_api does on every SoC.
    for (const NamedTensor &tensor : {selfArg, outArg})
        if (auto s = spatialDims == 3 ? requireDataTypeIn(op, tensor, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
                                      : requireDataTypeIn(op, tensor, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}))
            return s;
    if (auto s = requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64})) return s;

    // The 2-D operator also takes NHWC (N,H,W,C) tensors, as CANN's op_api does: outputOut and indicesOut
    // are then (N,Ho,Wo,C) too (docs/decisions.md: CANN writes them in NCHW order whatever their shape).
    if (auto s = spatialDims == 3 ? requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW})
                                  : requireFormatIn(op, selfArg, {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}))
        return s;
    if (auto s = requireSameFormat(op, outArg, selfArg)) return s;
    const bool nhwc = self->format == ACL_FORMAT_NHWC;
    if (nhwc)
        if (auto s = requireRankIn(op, selfArg, {4})) return s;

    const std::vector<int64_t> &sizes = outputSize->values;
    // Where the spatial axes start; NHWC keeps C after them.
    const size_t firstSpatial = nhwc ? 1 : self->viewShape.size() - static_cast<size_t>(spatialDims);
    if (sizes.size() != 0 && sizes.size() != 1 && sizes.size() != static_cast<size_t>(spatialDims))
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": outputSize must have length 0, 1 or ", spatialDims, ", got length ",
                    sizes.size(), " ", shapeText(sizes));
    std::vector<int64_t> expected = self->viewShape;
    for (int a = 0; a < spatialDims; ++a) {
        const int64_t inputAxis = self->viewShape[firstSpatial + a];
        expected[firstSpatial + a] = sizes.empty() ? inputAxis : sizes.size() == 1 ? sizes[0] : sizes[a];
    }
    // An empty self leaves nothing to write: the 2-D operator then takes any empty outputOut, as CANN's op_api
    // does (it compares no shapes but outputOut's and indicesOut's); a non-empty one is still refused.
    const bool nothingToWrite = spatialDims == 2 && isEmpty(self) && isEmpty(out);
    if (!nothingToWrite) {
        if (auto s = requireSameDims(op, outArg, selfArg,
                                     batchAndChannelDims(self->viewShape.size(), spatialDims, firstSpatial)))
            return s;
        if (auto s = requireShape(op, outArg, expected, "self's leading dims followed by outputSize")) return s;
    }
    if (auto s = requireSameShape(op, indicesArg, outArg)) return s;

    if (auto s = requireSameDataType(op, outArg, selfArg)) return s;

    for (size_t i = 1; i < self->viewShape.size(); ++i)
        if (self->viewShape[i] < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every self dim other than dim 0 must be >= 1, got ",
                        shapeText(self->viewShape));
    for (int64_t value : sizes)
        if (value < 1)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": every outputSize value must be >= 1, got ", shapeText(sizes));
    const auto operandOf = [&](const aclTensor *tensor) {
        return nhwc ? stridedOperand2d(tensor, PlaneLayout::ChannelsLast) : spatialOperand(spatialDims, tensor);
    };
    const StridedTensor input = operandOf(self);
    int64_t planeElements = 0;
    if (auto s = requirePlaneElements(op, selfArg, spatialDims, planeElements, nhwc)) return s;
    if (auto s = requireIndexRange(op, "indicesOut", indexStorageOf(indices->dataType), spatialDims, planeElements))
        return s;

    if (isEmpty(self)) {
        problem.task = PoolTask::ZeroFill;  // nothing to write: outputOut and indicesOut are empty
        return ACLNN_SUCCESS;
    }
    if (auto s = requireOperandMemory(op, {selfArg}, {outArg, indicesArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    problem.output = operandOf(out);
    problem.indices = operandOf(indices);
    problem.input = input;
    problem.geometry = adaptiveGeometry(input.size[0], input.size[1], {input.size[2], input.size[3], input.size[4]},
                                        {problem.output.size[2], problem.output.size[3], problem.output.size[4]});
    return ACLNN_SUCCESS;
}

aclnnStatus phaseOne(int spatialDims, const char *op, AdaptiveMaxPoolForwardArguments arguments,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    return planPhaseOne(
        {op, workspaceSize, executor, NullCheckOrder::OutputsFirst},
        {{"self", arguments.self, inputAs(OperandRole::Input)},
         {"outputSize", arguments.outputSize},
         {"outputOut", arguments.out, outputAs(OperandRole::Output)},
         {"indicesOut", arguments.indices, outputAs(OperandRole::Indices)}},
        [&](PoolProblem &problem) { return describeAdaptiveMaxPoolForward(spatialDims, op, arguments, problem); });
}

constexpr const char *adaptive3d = "aclnnAdaptiveMaxPool3d";
constexpr const char *adaptive2d = "aclnnAdaptiveMaxPool2d";

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnAdaptiveMaxPool3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                   aclTensor *outputOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
    return phaseOne(3, adaptive3d, {self, outputSize, outputOut, indicesOut}, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
    return runPhaseTwo(adaptive3d, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAdaptiveMaxPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                   aclTensor *outputOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
    return phaseOne(2, adaptive2d, {self, outputSize, outputOut, indicesOut}, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
    return runPhaseTwo(adaptive2d, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
