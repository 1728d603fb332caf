// The plan check of every kernel that reads each (n,c) plane of its operands as one dense row-major run:
// the decline reason naming the first operand whose planes are not (absent operands pass), or nothing.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "core/pool_problem.h"

namespace poolgrad::cpu {

using NamedOperand = std::pair<const char *, const StridedTensor *>;

inline std::optional<std::string> firstOperandWithoutDensePlanes(std::initializer_list<NamedOperand> operands) {
    for (const auto &[role, tensor] : operands)
        if (tensor->present() && !tensor->planesDense()) return std::string(role) + " planes are not dense row-major";
    return std::nullopt;
}

// A forward's operands: input, output and (when asked for) indices.
inline std::optional<std::string> forwardPlanesNotDense(const PoolProblem &problem) {
    return firstOperandWithoutDensePlanes(
        {{"input", &problem.input}, {"output", &problem.output}, {"indices", &problem.indices}});
}

// An indices-based backward's operands; 1x1 windows, whose indices are implied, have none to read.
inline std::optional<std::string> indexBackwardPlanesNotDense(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    return firstOperandWithoutDensePlanes(
        {{"gradOutput", &problem.gradOutput}, {"indices", &problem.indices}, {"gradInput", &problem.gradInput}});
}

// MaxPoolV3Grad's operands: origInput, origOutput, gradOutput and gradInput.
inline std::optional<std::string> recomputePlanesNotDense(const PoolProblem &problem) {
    return firstOperandWithoutDensePlanes({{"input", &problem.input},
                                           {"output", &problem.output},
                                           {"gradOutput", &problem.gradOutput},
                                           {"gradInput", &problem.gradInput}});
}

}  // namespace poolgrad::cpu
