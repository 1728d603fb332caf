// The plain description phase 1 builds for every operator call and every backend consumes:
// what to compute (the task), the window geometry, and the operands as strided 5-D views.
#pragma once

#include <cstdint>
#include <string>

#include "core/pool_geometry.h"
#include "core/strided_tensor.h"

namespace poolgrad {

enum class PoolTask {
    // input -> output values, and indices when problem.indices is present (every forward)
    ArgmaxForward,
    // gradOutput scattered through indices -> gradInput (every indices-based backward)
    IndexScatterBackward,
    // gradOutput sent to the first window element equal to output (origOutput) -> gradInput
    // (MaxPoolV3Grad: the argmax is recomputed from input, no indices tensor)
    RecomputeArgmaxBackward,
    // gradInput := +0 (empty-input shortcut of the backward ops)
    ZeroFill,
};

const char *poolTaskName(PoolTask task);

enum class Backend { Cpu };

struct PoolProblem {
    const char *operatorName = "";
    PoolTask task = PoolTask::ZeroFill;
    Backend backend = Backend::Cpu;
    PoolGeometry geometry;
    // Operands by role; a task uses only some of them (the rest stay empty).
    StridedTensor input;       // forward: self; recompute backward: origInput
    StridedTensor output;      // forward: out; recompute backward: origOutput
    StridedTensor indices;     // forward: indices written (optional); index backward: indices read
    StridedTensor gradOutput;  // backward
    StridedTensor gradInput;   // backward, ZeroFill

    std::string describe() const;  // one line for POOLGRAD_VERBOSE
    // The bytes of every operand the task uses, each once (saturating): what a call moves at the least.
    int64_t bytesMoved() const;
};

// Which operand of a PoolProblem an operator's tensor argument became (None: phase 1 read only its shape,
// as the backward ops do with self). aclSetInputTensorAddr / aclSetOutputTensorAddr re-point that operand.
enum class OperandRole : uint8_t { None, Input, Output, Indices, GradOutput, GradInput };

// The operand of `problem` in `role`; null for OperandRole::None.
StridedTensor *operandInRole(PoolProblem &problem, OperandRole role);

}  // namespace poolgrad
