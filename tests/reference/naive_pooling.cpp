#include "reference/naive_pooling.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "support/float_bits.h"

namespace reference {

int64_t floorDivide(int64_t numerator, int64_t denominator) {
    if (denominator <= 0) throw std::invalid_argument("floorDivide: denominator must be > 0");
    int64_t quotient = numerator / denominator;  // C++ truncates toward zero
    if (numerator % denominator != 0 && numerator < 0) quotient -= 1;
    return quotient;
}

int64_t pooledSize(int64_t inputSize, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                   bool ceilMode) {
    const int64_t effective = dilation * (kernel - 1) + 1;
    int64_t out;
    if (!ceilMode) {
        out = floorDivide(inputSize + 2 * padding - effective, stride) + 1;
    } else {
        out = floorDivide(inputSize + 2 * padding - effective + (stride - 1), stride) + 1;
        if ((out - 1) * stride >= inputSize + padding) out = out - 1;
    }
    return out;
}

Shape5 pooledShape(const Shape5 &inputShape, const Pool3dParams &params) {
    Shape5 result = inputShape;
    for (int axis = 0; axis < 3; ++axis)
        result[2 + axis] = pooledSize(inputShape[2 + axis], params.kernel[axis], params.stride[axis],
                                      params.padding[axis], params.dilation[axis], params.ceilMode);
    return result;
}

std::vector<int64_t> windowCoordinates(int64_t o, int64_t inputSize, int64_t kernel, int64_t stride, int64_t padding,
                                       int64_t dilation) {
    std::vector<int64_t> coordinates;
    for (int64_t j = 0; j < kernel; ++j) {
        const int64_t coordinate = o * stride - padding + j * dilation;
        if (coordinate >= 0 && coordinate < inputSize) coordinates.push_back(coordinate);
    }
    return coordinates;
}

Selection selectMaximum(const std::vector<float> &window) {
    Selection result;
    if (window.empty()) {
        result.position = -1;
        result.value = -std::numeric_limits<float>::infinity();
        return result;
    }
    // Initial running max -inf, initial index = first valid element; the first strictly greater wins.
    float runningMax = -std::numeric_limits<float>::infinity();
    int64_t runningPosition = 0;
    int64_t lastNan = -1;
    for (size_t i = 0; i < window.size(); ++i) {
        const float value = window[i];
        if (std::isnan(value)) {
            lastNan = static_cast<int64_t>(i);
        } else if (value > runningMax) {  // +0 > -0 is false: ties (and signed zeros) keep the first
            runningMax = value;
            runningPosition = static_cast<int64_t>(i);
        }
    }
    if (lastNan >= 0) {
        result.position = lastNan;
        result.value = window[static_cast<size_t>(lastNan)];
    } else {
        result.position = runningPosition;
        result.value = window[static_cast<size_t>(runningPosition)];
    }
    return result;
}

ForwardResult maxPool3dWithArgmax(const std::vector<float> &input, const Shape5 &inputShape,
                                  const Pool3dParams &params) {
    const int64_t N = inputShape[0], C = inputShape[1], D = inputShape[2], H = inputShape[3], W = inputShape[4];
    if (static_cast<int64_t>(input.size()) != N * C * D * H * W)
        throw std::invalid_argument("maxPool3dWithArgmax: input size does not match its shape");
    ForwardResult result;
    result.outputShape = pooledShape(inputShape, params);
    const int64_t Do = result.outputShape[2], Ho = result.outputShape[3], Wo = result.outputShape[4];
    if (Do < 1 || Ho < 1 || Wo < 1) throw std::invalid_argument("maxPool3dWithArgmax: output size < 1");
    const int64_t planeIn = D * H * W;

    for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
            const int64_t planeBase = (n * C + c) * planeIn;
            for (int64_t od = 0; od < Do; ++od) {
                for (int64_t oh = 0; oh < Ho; ++oh) {
                    for (int64_t ow = 0; ow < Wo; ++ow) {
                        const std::vector<int64_t> ds = windowCoordinates(od, D, params.kernel[0], params.stride[0],
                                                                          params.padding[0], params.dilation[0]);
                        const std::vector<int64_t> hs = windowCoordinates(oh, H, params.kernel[1], params.stride[1],
                                                                          params.padding[1], params.dilation[1]);
                        const std::vector<int64_t> ws = windowCoordinates(ow, W, params.kernel[2], params.stride[2],
                                                                          params.padding[2], params.dilation[2]);
                        // Scan order: d, then h, then w, each increasing (= increasing flat index).
                        std::vector<float> window;
                        std::vector<int64_t> flat;
                        for (int64_t id : ds)
                            for (int64_t ih : hs)
                                for (int64_t iw : ws) {
                                    const int64_t index = id * H * W + ih * W + iw;
                                    window.push_back(input[static_cast<size_t>(planeBase + index)]);
                                    flat.push_back(index);
                                }
                        const Selection selection = selectMaximum(window);
                        result.values.push_back(selection.value);
                        result.indices.push_back(
                            selection.position < 0 ? -1 : flat[static_cast<size_t>(selection.position)]);
                    }
                }
            }
        }
    }
    return result;
}

BackwardResult maxPool3dWithArgmaxBackward(const std::vector<float> &gradOutput, const std::vector<int64_t> &indices,
                                           const Shape5 &outputShape, const Shape5 &inputShape) {
    const int64_t N = inputShape[0], C = inputShape[1];
    const int64_t P = inputShape[2] * inputShape[3] * inputShape[4];
    const int64_t Q = outputShape[2] * outputShape[3] * outputShape[4];
    if (outputShape[0] != N || outputShape[1] != C)
        throw std::invalid_argument("maxPool3dWithArgmaxBackward: N/C differ");
    if (static_cast<int64_t>(gradOutput.size()) != N * C * Q || static_cast<int64_t>(indices.size()) != N * C * Q)
        throw std::invalid_argument("maxPool3dWithArgmaxBackward: gradOutput/indices size does not match");
    BackwardResult result;
    result.accumulators.assign(static_cast<size_t>(N * C * P), +0.0f);
    for (int64_t plane = 0; plane < N * C; ++plane) {
        for (int64_t q = 0; q < Q; ++q) {
            const int64_t i = indices[static_cast<size_t>(plane * Q + q)];
            if (i == -1) continue;
            if (i < 0 || i >= P) {
                result.ok = false;
                continue;
            }
            float &accumulator = result.accumulators[static_cast<size_t>(plane * P + i)];
            accumulator = accumulator + gradOutput[static_cast<size_t>(plane * Q + q)];  // float32 addition
        }
    }
    if (!result.ok) result.accumulators.assign(result.accumulators.size(), +0.0f);  // SPEC §3.6: all +0.0
    return result;
}

uint32_t elementBits(float value, ElementType type) {
    switch (type) {
        case ElementType::Float32:
            return test_support::bitsFromFloat(value);
        case ElementType::Float16:
            return test_support::halfFromFloat(value);
        case ElementType::BFloat16:
            return test_support::bfloat16FromFloat(value);
    }
    throw std::invalid_argument("elementBits: unknown type");
}

float elementValue(uint32_t bits, ElementType type) {
    switch (type) {
        case ElementType::Float32:
            return test_support::floatFromBits(bits);
        case ElementType::Float16:
            return test_support::floatFromHalf(static_cast<uint16_t>(bits));
        case ElementType::BFloat16:
            return test_support::floatFromBfloat16(static_cast<uint16_t>(bits));
    }
    throw std::invalid_argument("elementValue: unknown type");
}

bool elementIsNan(uint32_t bits, ElementType type) { return std::isnan(elementValue(bits, type)); }

}  // namespace reference
