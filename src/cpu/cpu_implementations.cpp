// The CPU implementation list: for each task, fastest first; the strided reference closes each task
// and accepts every valid problem.
#include <array>

#include "cpu/cpu_kernels.h"

namespace poolgrad {
namespace {

std::optional<std::string> acceptAll(const PoolProblem &) { return std::nullopt; }

// Kernels that still decide their strategy when they run: their plan records only that they accept.
struct KernelDecidesPlan final : ImplementationPlan {
    std::string describe() const override { return "decided by the kernel"; }
};

template <std::optional<std::string> (*Decline)(const PoolProblem &)>
PlanOutcome planIfAccepted(const PoolProblem &problem) {
    if (std::optional<std::string> reason = Decline(problem)) return PlanOutcome::decline(std::move(*reason));
    return PlanOutcome::accept(KernelDecidesPlan{});
}

template <RunResult (*Run)(const PoolProblem &)>
RunResult runWithoutPlan(const PoolProblem &problem, const ImplementationPlan &) {
    return Run(problem);
}

template <std::optional<std::string> (*Decline)(const PoolProblem &), RunResult (*Run)(const PoolProblem &)>
constexpr Implementation kernelDecides(const char *name, PoolTask task) {
    return Implementation{name, task, Backend::Cpu, planIfAccepted<Decline>, runWithoutPlan<Run>};
}

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

std::optional<std::string> recomputeDenseDecline(const PoolProblem &problem) {
    return requireDensePlanes({{"input", &problem.input},
                               {"output", &problem.output},
                               {"gradOutput", &problem.gradOutput},
                               {"gradInput", &problem.gradInput}});
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
    kernelDecides<forwardDenseDecline, cpu::argmaxForwardDense>("cpu_argmax_forward_dense", PoolTask::ArgmaxForward),
    kernelDecides<forwardChannelsLastDecline, cpu::argmaxForwardChannelsLast>("cpu_argmax_forward_channels_last",
                                                                              PoolTask::ArgmaxForward),
    kernelDecides<acceptAll, cpu::argmaxForwardStrided>("cpu_argmax_forward_reference", PoolTask::ArgmaxForward),
    Implementation{"cpu_index_gather_backward_dense", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardDense, cpu::runIndexGatherBackwardDense},
    Implementation{"cpu_index_scatter_backward_dense", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardDense, cpu::runIndexScatterBackwardDense},
    Implementation{"cpu_index_scatter_backward_channels_last", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardChannelsLast, cpu::runIndexScatterBackwardChannelsLast},
    Implementation{"cpu_index_scatter_backward_reference", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardReference, cpu::runIndexScatterBackwardReference},
    kernelDecides<recomputeDenseDecline, cpu::recomputeArgmaxBackwardDense>("cpu_recompute_argmax_backward_dense",
                                                                            PoolTask::RecomputeArgmaxBackward),
    kernelDecides<recomputeChannelsLastDecline, cpu::recomputeArgmaxBackwardChannelsLast>(
        "cpu_recompute_argmax_backward_channels_last", PoolTask::RecomputeArgmaxBackward),
    kernelDecides<acceptAll, cpu::recomputeArgmaxBackwardStrided>("cpu_recompute_argmax_backward_reference",
                                                                  PoolTask::RecomputeArgmaxBackward),
    kernelDecides<acceptAll, cpu::zeroFillGradInput>("cpu_zero_fill", PoolTask::ZeroFill),
};

}  // namespace

std::span<const Implementation> allImplementations() { return implementations; }

}  // namespace poolgrad
