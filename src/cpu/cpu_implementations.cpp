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

std::optional<std::string> backwardDenseDecline(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    if (auto reason = requireDensePlanes(
            {{"gradOutput", &problem.gradOutput}, {"indices", &problem.indices}, {"gradInput", &problem.gradInput}}))
        return reason;
    return cpu::indexScatterSlabsScratchDecline(problem, false);
}

std::optional<std::string> backwardChannelsLastDecline(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    for (const auto &[role, tensor] :
         {std::pair{"gradOutput", &problem.gradOutput}, std::pair{"indices", &problem.indices},
          std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
    return cpu::indexScatterSlabsScratchDecline(problem, true);
}

constexpr std::array implementations{
    Implementation{"cpu_argmax_forward_dense_rows", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardDenseRows, cpu::runArgmaxForwardDenseRows},
    Implementation{"cpu_argmax_forward_dense", PoolTask::ArgmaxForward, Backend::Cpu, cpu::planArgmaxForwardDense,
                   cpu::runArgmaxForwardDense},
    Implementation{"cpu_argmax_forward_channels_last", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardChannelsLast, cpu::runArgmaxForwardChannelsLast},
    Implementation{"cpu_argmax_forward_reference", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardReference, cpu::runArgmaxForwardReference},
    kernelDecides<backwardDenseDecline, cpu::indexScatterBackwardDense>("cpu_index_scatter_backward_dense",
                                                                        PoolTask::IndexScatterBackward),
    kernelDecides<backwardChannelsLastDecline, cpu::indexScatterBackwardChannelsLast>(
        "cpu_index_scatter_backward_channels_last", PoolTask::IndexScatterBackward),
    kernelDecides<acceptAll, cpu::indexScatterBackwardStrided>("cpu_index_scatter_backward_reference",
                                                               PoolTask::IndexScatterBackward),
    Implementation{"cpu_recompute_argmax_backward_3x3_stride2", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackward3x3Stride2, cpu::runRecomputeArgmaxBackward3x3Stride2},
    Implementation{"cpu_recompute_argmax_backward_channels_last_3x3_stride2", PoolTask::RecomputeArgmaxBackward,
                   Backend::Cpu, cpu::planRecomputeArgmaxBackwardChannelsLast3x3Stride2,
                   cpu::runRecomputeArgmaxBackwardChannelsLast3x3Stride2},
    Implementation{"cpu_recompute_argmax_backward_disjoint", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardDisjoint, cpu::runRecomputeArgmaxBackwardDense},
    Implementation{"cpu_recompute_argmax_backward_dense", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardDense, cpu::runRecomputeArgmaxBackwardDense},
    Implementation{"cpu_recompute_argmax_backward_channels_last", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardChannelsLast, cpu::runRecomputeArgmaxBackwardChannelsLast},
    Implementation{"cpu_recompute_argmax_backward_reference", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardReference, cpu::runRecomputeArgmaxBackwardReference},
    Implementation{"cpu_zero_fill", PoolTask::ZeroFill, Backend::Cpu, cpu::planZeroFill, cpu::runZeroFill},
};

}  // namespace

std::span<const Implementation> allImplementations() { return implementations; }

}  // namespace poolgrad
