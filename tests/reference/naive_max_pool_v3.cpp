#include "reference/naive_max_pool_v3.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace reference {
namespace {

// Mathematical floor(a / b) and ceil(a / b) for b > 0, by stepping from the truncated quotient.
int64_t floorOf(int64_t a, int64_t b) {
    int64_t q = a / b;
    while (q * b > a) --q;
    return q;
}

int64_t ceilOf(int64_t a, int64_t b) {
    int64_t q = a / b;
    while (q * b < a) ++q;
    return q;
}

// CALCULATED: SPEC §3.3 with "2p" replaced by begin + end, the ceil test using in + begin; clamp at 0.
int64_t calculatedSize(int64_t in, int64_t kernel, int64_t stride, int64_t begin, int64_t end, bool ceilMode) {
    const int64_t span = in + begin + end - kernel;
    int64_t out = (ceilMode ? ceilOf(span, stride) : floorOf(span, stride)) + 1;
    if (ceilMode && (out - 1) * stride >= in + begin) out -= 1;
    return out < 0 ? 0 : out;
}

}  // namespace

MaxPoolV3Windows maxPoolV3Windows(int64_t inH, int64_t inW, const MaxPoolV3Params &p) {
    MaxPoolV3Windows windows;
    if (p.globalPooling) {
        windows.outH = windows.outW = 1;
        return windows;
    }
    switch (p.mode) {
        case V3PaddingMode::Valid:
            windows.outH = floorOf(inH - p.kernelH, p.strideH) + 1;
            windows.outW = floorOf(inW - p.kernelW, p.strideW) + 1;
            if (windows.outH < 0) windows.outH = 0;
            if (windows.outW < 0) windows.outW = 0;
            break;
        case V3PaddingMode::Same: {
            windows.outH = ceilOf(inH, p.strideH);
            windows.outW = ceilOf(inW, p.strideW);
            int64_t padH = (windows.outH - 1) * p.strideH + p.kernelH - inH;
            int64_t padW = (windows.outW - 1) * p.strideW + p.kernelW - inW;
            if (padH < 0) padH = 0;
            if (padW < 0) padW = 0;
            windows.padTop = padH / 2;  // floor(pad_h / 2); the rest goes to the bottom
            windows.padLeft = padW / 2;
            break;
        }
        case V3PaddingMode::Calculated:
            windows.outH = calculatedSize(inH, p.kernelH, p.strideH, p.pads[0], p.pads[1], p.ceilMode);
            windows.outW = calculatedSize(inW, p.kernelW, p.strideW, p.pads[2], p.pads[3], p.ceilMode);
            windows.padTop = p.pads[0];
            windows.padLeft = p.pads[2];
            break;
    }
    return windows;
}

std::vector<int64_t> maxPoolV3Taps(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t in) {
    std::vector<int64_t> taps;
    for (int64_t j = 0; j < kernel; ++j) {
        const int64_t coordinate = o * stride - pad + j;
        if (coordinate >= 0 && coordinate < in) taps.push_back(coordinate);
    }
    return taps;
}

std::vector<float> maxPoolV3Forward(const std::vector<float> &x, int64_t n, int64_t c, int64_t inH, int64_t inW,
                                    const MaxPoolV3Params &params) {
    if (static_cast<int64_t>(x.size()) != n * c * inH * inW) throw std::invalid_argument("maxPoolV3Forward: size");
    const MaxPoolV3Windows windows = maxPoolV3Windows(inH, inW, params);
    std::vector<float> y(static_cast<size_t>(n * c * windows.outH * windows.outW));
    size_t q = 0;
    for (int64_t plane = 0; plane < n * c; ++plane)
        for (int64_t oh = 0; oh < windows.outH; ++oh)
            for (int64_t ow = 0; ow < windows.outW; ++ow) {
                std::vector<int64_t> rows, cols;
                if (params.globalPooling) {
                    for (int64_t h = 0; h < inH; ++h) rows.push_back(h);
                    for (int64_t w = 0; w < inW; ++w) cols.push_back(w);
                } else {
                    rows = maxPoolV3Taps(oh, params.strideH, windows.padTop, params.kernelH, inH);
                    cols = maxPoolV3Taps(ow, params.strideW, windows.padLeft, params.kernelW, inW);
                }
                float best = -std::numeric_limits<float>::infinity();
                bool sawNan = false;
                for (int64_t h : rows)
                    for (int64_t w : cols) {
                        const float value = x[static_cast<size_t>((plane * inH + h) * inW + w)];
                        if (std::isnan(value))
                            sawNan = true;
                        else if (value > best)
                            best = value;
                    }
                y[q++] = sawNan ? std::numeric_limits<float>::quiet_NaN() : best;
            }
    return y;
}

std::vector<int64_t> maxPoolV3ForwardIntegers(const std::vector<int64_t> &x, int64_t n, int64_t c, int64_t inH,
                                              int64_t inW, const MaxPoolV3Params &params) {
    if (static_cast<int64_t>(x.size()) != n * c * inH * inW)
        throw std::invalid_argument("maxPoolV3ForwardIntegers: size");
    const MaxPoolV3Windows windows = maxPoolV3Windows(inH, inW, params);
    std::vector<int64_t> y;
    for (int64_t plane = 0; plane < n * c; ++plane)
        for (int64_t oh = 0; oh < windows.outH; ++oh)
            for (int64_t ow = 0; ow < windows.outW; ++ow) {
                const std::vector<int64_t> rows =
                    maxPoolV3Taps(oh, params.strideH, windows.padTop, params.kernelH, inH);
                const std::vector<int64_t> cols =
                    maxPoolV3Taps(ow, params.strideW, windows.padLeft, params.kernelW, inW);
                if (rows.empty() || cols.empty()) throw std::invalid_argument("maxPoolV3ForwardIntegers: empty window");
                int64_t best = std::numeric_limits<int64_t>::min();
                for (int64_t h : rows)
                    for (int64_t w : cols) best = std::max(best, x[static_cast<size_t>((plane * inH + h) * inW + w)]);
                y.push_back(best);
            }
    return y;
}

std::vector<float> maxPoolV3GradSums(const std::vector<float> &origInput, const std::vector<float> &origOutput,
                                     const std::vector<float> &grad, int64_t n, int64_t c, int64_t inH, int64_t inW,
                                     const MaxPoolV3Params &params) {
    const MaxPoolV3Windows windows = maxPoolV3Windows(inH, inW, params);
    const int64_t outPlane = windows.outH * windows.outW;
    if (static_cast<int64_t>(origInput.size()) != n * c * inH * inW ||
        static_cast<int64_t>(origOutput.size()) != n * c * outPlane ||
        static_cast<int64_t>(grad.size()) != n * c * outPlane)
        throw std::invalid_argument("maxPoolV3GradSums: size");
    std::vector<float> sums(origInput.size(), 0.0f);  // +0.0f
    for (int64_t plane = 0; plane < n * c; ++plane)
        for (int64_t oh = 0; oh < windows.outH; ++oh)
            for (int64_t ow = 0; ow < windows.outW; ++ow) {
                const size_t q = static_cast<size_t>(plane * outPlane + oh * windows.outW + ow);
                const float target = origOutput[q];
                bool found = false;
                for (int64_t h : maxPoolV3Taps(oh, params.strideH, windows.padTop, params.kernelH, inH)) {
                    for (int64_t w : maxPoolV3Taps(ow, params.strideW, windows.padLeft, params.kernelW, inW)) {
                        const size_t i = static_cast<size_t>((plane * inH + h) * inW + w);
                        if (origInput[i] == target) {  // IEEE: NaN never equal, +0 == -0
                            sums[i] += grad[q];
                            found = true;
                            break;
                        }
                    }
                    if (found) break;
                }
            }
    return sums;
}

}  // namespace reference
