#include "reference/naive_adaptive_pooling.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace reference {
namespace adaptive {

Window window(int64_t o, int64_t inputSize, int64_t outputSize) {
    if (inputSize < 1 || outputSize < 1 || o < 0 || o >= outputSize)
        throw std::invalid_argument("adaptive::window: need I >= 1, O >= 1, 0 <= o < O");
    using Wide = __int128;
    const Wide I = inputSize, O = outputSize;
    // Non-negative operands: C++ division truncates, which is floor here; ceil(a/b) = (a + b - 1) / b.
    const Wide begin = (Wide(o) * I) / O;
    const Wide end = ((Wide(o) + 1) * I + O - 1) / O;
    Window result;
    result.begin = static_cast<int64_t>(begin);
    result.end = static_cast<int64_t>(end);
    if (!(result.begin < result.end)) throw std::logic_error("adaptive::window: empty window");
    return result;
}

int64_t selectPosition(const std::vector<float> &values) {
    if (values.empty()) throw std::invalid_argument("adaptive::selectPosition: empty window");
    float best = -std::numeric_limits<float>::infinity();
    int64_t bestPosition = 0;
    int64_t lastNan = -1;
    for (size_t i = 0; i < values.size(); ++i) {
        if (std::isnan(values[i])) {
            lastNan = static_cast<int64_t>(i);
        } else if (values[i] > best) {
            best = values[i];
            bestPosition = static_cast<int64_t>(i);
        }
    }
    return lastNan >= 0 ? lastNan : bestPosition;
}

ForwardResult forward(const std::vector<float> &input, const Shape5 &inputShape,
                      const std::array<int64_t, 3> &outputSize) {
    const int64_t N = inputShape[0], C = inputShape[1], D = inputShape[2], H = inputShape[3], W = inputShape[4];
    if (static_cast<int64_t>(input.size()) != N * C * D * H * W)
        throw std::invalid_argument("adaptive::forward: input size does not match its shape");
    ForwardResult result;
    result.outputShape = {N, C, outputSize[0], outputSize[1], outputSize[2]};
    const int64_t Do = outputSize[0], Ho = outputSize[1], Wo = outputSize[2];
    const int64_t plane = D * H * W;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t od = 0; od < Do; ++od)
                for (int64_t oh = 0; oh < Ho; ++oh)
                    for (int64_t ow = 0; ow < Wo; ++ow) {
                        const Window wd = window(od, D, Do), wh = window(oh, H, Ho), ww = window(ow, W, Wo);
                        std::vector<float> values;
                        std::vector<int64_t> positions;
                        for (int64_t d = wd.begin; d < wd.end; ++d)
                            for (int64_t h = wh.begin; h < wh.end; ++h)
                                for (int64_t w = ww.begin; w < ww.end; ++w) {
                                    const int64_t index = d * H * W + h * W + w;
                                    const int64_t flat = (n * C + c) * plane + index;
                                    values.push_back(input[static_cast<size_t>(flat)]);
                                    positions.push_back(index);
                                }
                        const int64_t chosen = positions[static_cast<size_t>(selectPosition(values))];
                        result.indices.push_back(chosen);
                        result.selected.push_back((n * C + c) * plane + chosen);
                    }
    return result;
}

BackwardResult backward(const std::vector<float> &gradOutput, const std::vector<int64_t> &indices,
                        const Shape5 &outputShape, const Shape5 &inputShape) {
    if (outputShape[0] != inputShape[0] || outputShape[1] != inputShape[1])
        throw std::invalid_argument("adaptive::backward: N or C differ");
    const int64_t planes = inputShape[0] * inputShape[1];
    const int64_t P = inputShape[2] * inputShape[3] * inputShape[4];
    const int64_t Q = outputShape[2] * outputShape[3] * outputShape[4];
    if (static_cast<int64_t>(gradOutput.size()) != planes * Q || static_cast<int64_t>(indices.size()) != planes * Q)
        throw std::invalid_argument("adaptive::backward: gradOutput/indices sizes do not match outputShape");
    BackwardResult result;
    result.accumulators.assign(static_cast<size_t>(planes * P), 0.0f);
    for (int64_t plane = 0; plane < planes; ++plane)
        for (int64_t q = 0; q < Q; ++q) {  // increasing output flat order
            const int64_t i = indices[static_cast<size_t>(plane * Q + q)];
            if (i == -1) continue;
            if (i < -1 || i >= P) {
                result.ok = false;
                continue;
            }
            float &sum = result.accumulators[static_cast<size_t>(plane * P + i)];
            sum = sum + gradOutput[static_cast<size_t>(plane * Q + q)];
        }
    if (!result.ok) result.accumulators.assign(result.accumulators.size(), 0.0f);
    return result;
}

}  // namespace adaptive
}  // namespace reference
