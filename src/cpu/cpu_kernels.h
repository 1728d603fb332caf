// Entry points of the CPU kernel families, as the implementation list uses them.
#pragma once

#include <optional>
#include <string>

#include "core/implementation.h"

namespace poolgrad::cpu {

// Argmax forward: gathers each window of the input, writes its maximum and the flat index of it.
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

// Index-scatter backward: gradInput[i] = sum of gradOutput[q] with indices[q] == i, per plane.
RunResult indexScatterBackwardDense(const PoolProblem &problem);
RunResult indexScatterBackwardChannelsLast(const PoolProblem &problem);
RunResult indexScatterBackwardStrided(const PoolProblem &problem);

// Recompute-argmax backward (MaxPoolV3Grad): each output's gradient goes to the first window element of
// input equal to output; no match drops it. Dense: every operand's planes dense row-major.
RunResult recomputeArgmaxBackwardDense(const PoolProblem &problem);
RunResult recomputeArgmaxBackwardStrided(const PoolProblem &problem);
// Channels-last (NHWC) operands, one depth plane: vectorised across channels.
RunResult recomputeArgmaxBackwardChannelsLast(const PoolProblem &problem);

// Why an implementation's per-thread scratch would exceed kScratchBytesPerThread (core/scratch_bound.h)
// for a problem, or nullopt when it fits; the implementation then declines and the reference, whose
// scratch is bounded for every problem, takes the problem.
std::optional<std::string> indexScatterSlabsScratchDecline(const PoolProblem &problem, bool channelsLast);
std::optional<std::string> recomputeArgmaxChannelsLastScratchDecline(const PoolProblem &problem);

// Writes +0 to every element of problem.gradInput.
RunResult zeroFillGradInput(const PoolProblem &problem);
void zeroFill(const StridedTensor &tensor);

}  // namespace poolgrad::cpu
