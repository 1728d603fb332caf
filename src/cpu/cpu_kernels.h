// Entry points of the CPU kernel families, as the implementation list uses them.
#pragma once

#include <optional>
#include <string>

#include "core/implementation.h"

namespace poolgrad::cpu {

// Argmax forward: gathers each window of the input, writes its maximum and the flat index of it.
// 3x3 windows at stride 2 (padding 0 or 1) on dense 2-D float planes: each input row searched once, the
// edge windows in the same vectors, every output written once.
PlanOutcome planArgmaxForwardThreeByThreeStride2(const PoolProblem &problem);
RunResult runArgmaxForwardThreeByThreeStride2(const PoolProblem &problem, const ImplementationPlan &plan);
// Small dense float32 2-D planes at stride 1: the separable search below over the rows laid out as one flat array
// (simd_argmax_stride1_flat.h).
PlanOutcome planArgmaxForwardStride1Flat(const PoolProblem &problem);
RunResult runArgmaxForwardStride1Flat(const PoolProblem &problem, const ImplementationPlan &plan);
// Windows moving by 1 along H and W on dense 2-D planes: each input row's window winners found once and kept
// for the output rows whose windows share the row, output rows combine them and are written once.
PlanOutcome planArgmaxForwardStride1(const PoolProblem &problem);
RunResult runArgmaxForwardStride1(const PoolProblem &problem, const ImplementationPlan &plan);
// Windows three wide at stride 2 along W on dense float32 planes: each input row's window winners found once
// (even/odd column vectors), output rows combine them and are written once.
PlanOutcome planArgmaxForwardStride2(const PoolProblem &problem);
RunResult runArgmaxForwardStride2(const PoolProblem &problem, const ImplementationPlan &plan);
// Dense float32 planes whose rows fit in one vector: each window row one vector of its columns, then lane
// permutations give each window its columns' winners.
PlanOutcome planArgmaxForwardNarrowRows(const PoolProblem &problem);
RunResult runArgmaxForwardNarrowRows(const PoolProblem &problem, const ImplementationPlan &plan);
// Dense float32 planes, an output row at a time by vectors across its windows (edges included).
PlanOutcome planArgmaxForwardDenseRows(const PoolProblem &problem);
RunResult runArgmaxForwardDenseRows(const PoolProblem &problem, const ImplementationPlan &plan);
// Dense planes of any value type: SIMD across the unclipped windows of float32 rows, the rest scalar.
PlanOutcome planArgmaxForwardDense(const PoolProblem &problem);
RunResult runArgmaxForwardDense(const PoolProblem &problem, const ImplementationPlan &plan);
// Channels-last (NDHWC / NHWC) input and outputs: vectorised across channels.
PlanOutcome planArgmaxForwardChannelsLast(const PoolProblem &problem);
RunResult runArgmaxForwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan);
// Any strides: the reference, which accepts every valid problem.
PlanOutcome planArgmaxForwardReference(const PoolProblem &problem);
RunResult runArgmaxForwardReference(const PoolProblem &problem, const ImplementationPlan &plan);

// Index-gather backward (dense planes): each gradInput element written once from the windows containing it;
// hands over to the scatter reference when an index lies outside its own window.
PlanOutcome planIndexGatherBackwardDense(const PoolProblem &problem);
RunResult runIndexGatherBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan);
// The same by chunks of a vector's lanes across each flat plane, with no per-row work: for planes whose rows
// are too narrow for the row gather (disjoint windows; a chunk's outputs within two vectors).
PlanOutcome planIndexGatherBackwardPlaneChunks(const PoolProblem &problem);
RunResult runIndexGatherBackwardPlaneChunks(const PoolProblem &problem, const ImplementationPlan &plan);
// Windows three wide at stride 2 along W, at most two per coordinate along D and H (3x3 / 3x3x3 stride 2):
// at most four output rows per input row, summed in registers in output order; hands over the same way.
PlanOutcome planIndexGatherBackwardStride2(const PoolProblem &problem);
RunResult runIndexGatherBackwardStride2(const PoolProblem &problem, const ImplementationPlan &plan);
// The same on dense channels-last storage, vectorised across C.
PlanOutcome planIndexGatherBackwardChannelsLast(const PoolProblem &problem);
RunResult runIndexGatherBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan);
// Overlapping windows on dense channels-last storage (float32, INT32 indices, at most 8 windows per
// element): each element sums its candidate outputs in increasing output order; hands over the same way.
PlanOutcome planIndexGatherBackwardChannelsLastOverlapping(const PoolProblem &problem);
RunResult runIndexGatherBackwardChannelsLastOverlapping(const PoolProblem &problem, const ImplementationPlan &plan);

// Index-scatter backward: gradInput[i] = sum of gradOutput[q] with indices[q] == i, per plane. Dense:
// slabs of dense planes; channels-last: slabs of NDHWC / NHWC rows; reference: any strides, every problem.
PlanOutcome planIndexScatterBackwardDense(const PoolProblem &problem);
RunResult runIndexScatterBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan);
PlanOutcome planIndexScatterBackwardChannelsLast(const PoolProblem &problem);
RunResult runIndexScatterBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan);
// Channels-last slabs with vectors of channels compared against each window tap (overlapping windows).
PlanOutcome planIndexScatterBackwardChannelVectors(const PoolProblem &problem);
RunResult runIndexScatterBackwardChannelVectors(const PoolProblem &problem, const ImplementationPlan &plan);
PlanOutcome planIndexScatterBackwardReference(const PoolProblem &problem);
RunResult runIndexScatterBackwardReference(const PoolProblem &problem, const ImplementationPlan &plan);
// The hand-over of a fast index backward whose counts show an index outside its own window or outside the
// plane: the scatter reference runs instead, with the plan made for it in phase 1, and the result's fallback
// says so (`strayDetail`, when given, follows the stray-index text in parentheses).
RunResult handOverToScatterReference(const PoolProblem &problem, const ImplementationPlan &referencePlan,
                                     const std::string &strayDetail = {});

// Recompute-argmax backward (MaxPoolV3Grad): each output's gradient goes to the first window element of
// input equal to output; no match drops it. Each implementation plans in phase 1 (or declines) and runs
// its plan in phase 2. 3x3 stride 2 on dense planes: vector rows, each gradInput row produced once.
PlanOutcome planRecomputeArgmaxBackward3x3Stride2(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackward3x3Stride2(const PoolProblem &problem, const ImplementationPlan &plan);
// Dense float32 2-D planes whose windows move by one row and one column: first matches into padded rows,
// gathered into each input row once (stride1_gather_blocks.h).
PlanOutcome planRecomputeArgmaxBackwardStride1(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardStride1(const PoolProblem &problem, const ImplementationPlan &plan);
// The same gather from the stride-1 forwards' separable window winners, checked against origOutput (the windows
// whose target is not their winner searched element by element).
PlanOutcome planRecomputeArgmaxBackwardStride1Separable(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardStride1Separable(const PoolProblem &problem, const ImplementationPlan &plan);
// 3x3 stride 2 on channels-last (NHWC) operands: windows walked left to right, a vector of channels each.
PlanOutcome planRecomputeArgmaxBackwardChannelsLast3x3Stride2(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardChannelsLast3x3Stride2(const PoolProblem &problem, const ImplementationPlan &plan);
// Disjoint windows on dense planes: each gradInput row written once.
PlanOutcome planRecomputeArgmaxBackwardDisjoint(const PoolProblem &problem);
// Any windows on dense planes.
PlanOutcome planRecomputeArgmaxBackwardDense(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan);
// Channels-last (NHWC) operands, one depth plane: vectorised across channels.
PlanOutcome planRecomputeArgmaxBackwardChannelsLast(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan);
// Any strides: sums in tiles.
PlanOutcome planRecomputeArgmaxBackwardReference(const PoolProblem &problem);
RunResult runRecomputeArgmaxBackwardReference(const PoolProblem &problem, const ImplementationPlan &plan);

// Why an implementation's per-thread scratch would exceed kScratchBytesPerThread (core/scratch_bound.h)
// for a problem, or nullopt when it fits; the implementation then declines and the reference, whose
// scratch is bounded for every problem, takes the problem.

// Writes +0 to every element of problem.gradInput (the empty-input shortcut of the backward operators).
PlanOutcome planZeroFill(const PoolProblem &problem);
RunResult runZeroFill(const PoolProblem &problem, const ImplementationPlan &plan);
void zeroFill(const StridedTensor &tensor);

}  // namespace poolgrad::cpu
