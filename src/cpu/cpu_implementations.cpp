// The CPU implementation list: for each task, fastest first; the reference closes each task and accepts
// every valid problem. Each entry's plan() decides in phase 1 whether it takes a problem and how; its
// run() executes that plan in phase 2 (core/implementation.h).
#include <array>

#include "cpu/cpu_kernels.h"

namespace poolgrad {
namespace {

constexpr std::array implementations{
    Implementation{"cpu_argmax_forward_3x3_stride2", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardThreeByThreeStride2, cpu::runArgmaxForwardThreeByThreeStride2},
    Implementation{"cpu_argmax_forward_narrow_rows", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardNarrowRows, cpu::runArgmaxForwardNarrowRows},
    Implementation{"cpu_argmax_forward_stride1_flat", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardStride1Flat, cpu::runArgmaxForwardStride1Flat},
    Implementation{"cpu_argmax_forward_stride1", PoolTask::ArgmaxForward, Backend::Cpu, cpu::planArgmaxForwardStride1,
                   cpu::runArgmaxForwardStride1},
    Implementation{"cpu_argmax_forward_stride2", PoolTask::ArgmaxForward, Backend::Cpu, cpu::planArgmaxForwardStride2,
                   cpu::runArgmaxForwardStride2},
    Implementation{"cpu_argmax_forward_dense_rows", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardDenseRows, cpu::runArgmaxForwardDenseRows},
    Implementation{"cpu_argmax_forward_dense", PoolTask::ArgmaxForward, Backend::Cpu, cpu::planArgmaxForwardDense,
                   cpu::runArgmaxForwardDense},
    Implementation{"cpu_argmax_forward_channels_last", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardChannelsLast, cpu::runArgmaxForwardChannelsLast},
    Implementation{"cpu_argmax_forward_reference", PoolTask::ArgmaxForward, Backend::Cpu,
                   cpu::planArgmaxForwardReference, cpu::runArgmaxForwardReference},
    Implementation{"cpu_index_gather_backward_plane_chunks", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardPlaneChunks, cpu::runIndexGatherBackwardPlaneChunks},
    Implementation{"cpu_index_gather_backward_dense", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardDense, cpu::runIndexGatherBackwardDense},
    Implementation{"cpu_index_gather_backward_stride2", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardStride2, cpu::runIndexGatherBackwardStride2},
    Implementation{"cpu_index_scatter_backward_dense", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardDense, cpu::runIndexScatterBackwardDense},
    Implementation{"cpu_index_gather_backward_channels_last", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardChannelsLast, cpu::runIndexGatherBackwardChannelsLast},
    Implementation{"cpu_index_gather_backward_channels_last_overlapping", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexGatherBackwardChannelsLastOverlapping,
                   cpu::runIndexGatherBackwardChannelsLastOverlapping},
    Implementation{"cpu_index_scatter_backward_channels_last_vectors", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardChannelVectors, cpu::runIndexScatterBackwardChannelVectors},
    Implementation{"cpu_index_scatter_backward_channels_last", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardChannelsLast, cpu::runIndexScatterBackwardChannelsLast},
    Implementation{"cpu_index_scatter_backward_reference", PoolTask::IndexScatterBackward, Backend::Cpu,
                   cpu::planIndexScatterBackwardReference, cpu::runIndexScatterBackwardReference},
    Implementation{"cpu_recompute_argmax_backward_3x3_stride2", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackward3x3Stride2, cpu::runRecomputeArgmaxBackward3x3Stride2},
    Implementation{"cpu_recompute_argmax_backward_channels_last_3x3_stride2", PoolTask::RecomputeArgmaxBackward,
                   Backend::Cpu, cpu::planRecomputeArgmaxBackwardChannelsLast3x3Stride2,
                   cpu::runRecomputeArgmaxBackwardChannelsLast3x3Stride2},
    Implementation{"cpu_recompute_argmax_backward_stride1_separable", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardStride1Separable, cpu::runRecomputeArgmaxBackwardStride1Separable},
    Implementation{"cpu_recompute_argmax_backward_stride1", PoolTask::RecomputeArgmaxBackward, Backend::Cpu,
                   cpu::planRecomputeArgmaxBackwardStride1, cpu::runRecomputeArgmaxBackwardStride1},
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
