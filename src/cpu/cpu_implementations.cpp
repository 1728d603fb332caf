// The CPU implementation list: for each task, fastest first; the strided reference closes each task
// and accepts every valid problem.
#include <array>

#include "cpu/cpu_kernels.h"

namespace poolgrad {
namespace {

std::optional<std::string> acceptAll(const PoolProblem &) { return std::nullopt; }

std::optional<std::string> requireDensePlanes(
    std::initializer_list<std::pair<const char *, const StridedTensor *>> operands) {
    for (const auto &[role, tensor] : operands)
        if (tensor->present() && !tensor->planesDense()) return std::string(role) + " planes are not dense row-major";
    return std::nullopt;
}

std::optional<std::string> forwardDenseDecline(const PoolProblem &problem) {
    return requireDensePlanes({{"input", &problem.input}, {"output", &problem.output}, {"indices", &problem.indices}});
}

std::optional<std::string> forwardChannelsLastDecline(const PoolProblem &problem) {
    if (!isCommonValueType(problem.input.type))
        return std::string(elementTypeName(problem.input.type)) + " values are searched by the planar kernels";
    for (const auto &[role, tensor] : {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
                                       std::pair{"indices", &problem.indices}})
        if (tensor->present() && !tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
    return cpu::argmaxForwardChannelsLastScratchDecline(problem);
}

std::optional<std::string> backwardDenseDecline(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    if (auto reason = requireDensePlanes(
            {{"gradOutput", &problem.gradOutput}, {"indices", &problem.indices}, {"gradInput", &problem.gradInput}}))
        return reason;
    return cpu::indexScatterSlabsScratchDecline(problem, false);
}

std::optional<std::string> recomputeDenseDecline(const PoolProblem &problem) {
    return requireDensePlanes({{"input", &problem.input},
                               {"output", &problem.output},
                               {"gradOutput", &problem.gradOutput},
                               {"gradInput", &problem.gradInput}});
}

std::optional<std::string> backwardChannelsLastDecline(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    for (const auto &[role, tensor] :
         {std::pair{"gradOutput", &problem.gradOutput}, std::pair{"indices", &problem.indices},
          std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
    return cpu::indexScatterSlabsScratchDecline(problem, true);
}

std::optional<std::string> recomputeChannelsLastDecline(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (geometry.axes[0].inputSize != 1 || geometry.axes[0].outputSize != 1)
        return std::string("more than one depth plane");
    for (const auto &[role, tensor] :
         {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
          std::pair{"gradOutput", &problem.gradOutput}, std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
    return cpu::recomputeArgmaxChannelsLastScratchDecline(problem);
}

constexpr std::array implementations{
    Implementation{"cpu_argmax_forward_dense", PoolTask::ArgmaxForward, Backend::Cpu, forwardDenseDecline,
                   cpu::argmaxForwardDense},
    Implementation{"cpu_argmax_forward_channels_last", PoolTask::ArgmaxForward, Backend::Cpu,
                   forwardChannelsLastDecline, cpu::argmaxForwardChannelsLast},
    Implementation{"cpu_argmax_forward_reference", PoolTask::ArgmaxForward, Backend::Cpu, acceptAll,
                   cpu::argmaxForwardStrided},
    Implementation{"cpu_index_scatter_backward_dense", PoolTask::IndexScatterBackward, Backend::Cpu,
                   backwardDenseDecline, cpu::indexScatterBackwardDense},
    Implementation{"cpu_index_scatter_backward_channels_last", PoolTask::IndexScatterBackward, Backend::Cpu,
                   backwardChannelsLastDecline, cpu::indexScatterBackwardChannelsLast},
    Implementation{"cpu_index_scatter_backward_reference", PoolTask::IndexScatterBackward, Backend::Cpu, acceptAll,
                   cpu::indexScatterBackwardStrided},
    Implementation{"cpu_recompute_argmax_backward_dense", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   recomputeDenseDecline, cpu::recomputeArgmaxBackwardDense},
    Implementation{"cpu_recompute_argmax_backward_channels_last", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   recomputeChannelsLastDecline, cpu::recomputeArgmaxBackwardChannelsLast},
    Implementation{"cpu_recompute_argmax_backward_reference", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   acceptAll, cpu::recomputeArgmaxBackwardStrided},
    Implementation{"cpu_zero_fill", PoolTask::ZeroFill, Backend::Cpu, acceptAll, cpu::zeroFillGradInput},
};

}  // namespace

std::span<const Implementation> allImplementations() { return implementations; }

}  // namespace poolgrad
