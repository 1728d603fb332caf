// Entry points of the CPU kernel families, as the implementation list uses them.
#pragma once

#include <optional>
#include <string>

#include "core/implementation.h"

namespace poolgrad::cpu {

// Argmax forward: gathers each window of the input, writes its maximum and the flat index of it.
RunResult argmaxForwardDense(const PoolProblem &problem);
RunResult argmaxForwardStrided(const PoolProblem &problem);
// Channels-last (NDHWC / NHWC) input and outputs: vectorised across channels.
RunResult argmaxForwardChannelsLast(const PoolProblem &problem);

// Index-gather backward (dense planes): each gradInput element written once from the windows containing it;
// hands over to the scatter reference when an index lies outside its own window.
PlanOutcome planIndexGatherBackwardDense(const PoolProblem &problem);
RunResult runIndexGatherBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan);

// Index-scatter backward: gradInput[i] = sum of gradOutput[q] with indices[q] == i, per plane. Dense:
// slabs of dense planes; channels-last: slabs of NDHWC / NHWC rows; reference: any strides, every problem.
PlanOutcome planIndexScatterBackwardDense(const PoolProblem &problem);
RunResult runIndexScatterBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan);
PlanOutcome planIndexScatterBackwardChannelsLast(const PoolProblem &problem);
RunResult runIndexScatterBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan);
PlanOutcome planIndexScatterBackwardReference(const PoolProblem &problem);
RunResult runIndexScatterBackwardReference(const PoolProblem &problem, const ImplementationPlan &plan);

// Recompute-argmax backward (MaxPoolV3Grad): each output's gradient goes to the first window element of
// input equal to output; no match drops it. Dense: every operand's planes dense row-major.
RunResult recomputeArgmaxBackwardDense(const PoolProblem &problem);
RunResult recomputeArgmaxBackwardStrided(const PoolProblem &problem);
// Channels-last (NHWC) operands, one depth plane: vectorised across channels.
RunResult recomputeArgmaxBackwardChannelsLast(const PoolProblem &problem);

// Why an implementation's per-thread scratch would exceed kScratchBytesPerThread (core/scratch_bound.h)
// for a problem, or nullopt when it fits; the implementation then declines and the reference, whose
// scratch is bounded for every problem, takes the problem.
std::optional<std::string> argmaxForwardChannelsLastScratchDecline(const PoolProblem &problem);
std::optional<std::string> recomputeArgmaxChannelsLastScratchDecline(const PoolProblem &problem);

// Writes +0 to every element of problem.gradInput.
RunResult zeroFillGradInput(const PoolProblem &problem);
void zeroFill(const StridedTensor &tensor);

}  // namespace poolgrad::cpu
