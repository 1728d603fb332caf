// Naive reference for MaxPoolV3Grad (SPEC §6, seed 004) and its forward aclnnMaxPoolV3WithAttrs (§7.4),
// written from SPEC only and sharing no code with src/ (nor with the other references). Host vectors in
// logical (N, C, H, W) order whatever dataFormat the operator is given; plain loops over the window
// taps exactly as the SPEC table and paragraphs describe them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace reference {

enum class V3PaddingMode { Calculated, Same, Valid };

struct MaxPoolV3Params {
    int64_t kernelH = 1, kernelW = 1;
    int64_t strideH = 1, strideW = 1;
    V3PaddingMode mode = V3PaddingMode::Calculated;
    std::array<int64_t, 4> pads{0, 0, 0, 0};  // top, bottom, left, right (CALCULATED only)
    bool ceilMode = false;
    bool globalPooling = false;  // forward only
};

// The output size and the leading padding the windows use (SPEC §6 "Output size and pad_top/pad_left").
struct MaxPoolV3Windows {
    int64_t outH = 0, outW = 0;
    int64_t padTop = 0, padLeft = 0;
};
MaxPoolV3Windows maxPoolV3Windows(int64_t inH, int64_t inW, const MaxPoolV3Params &params);

// Input rows (or columns) of output coordinate o: {o*s - pad + j : 0 <= j < k} ∩ [0, in), in scan order.
std::vector<int64_t> maxPoolV3Taps(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t in);

// Forward (§7.4): the maximum over the in-range window elements; any NaN makes the result NaN; a window
// without elements gives -Inf. Global pooling: one window covering the whole plane. Returns (N,C,Ho,Wo).
std::vector<float> maxPoolV3Forward(const std::vector<float> &x, int64_t n, int64_t c, int64_t inH, int64_t inW,
                                    const MaxPoolV3Params &params);

// The same forward on integers compared exactly (aclnnMaxPool's integer dtypes, SPEC §7.3: ONNX MaxPool is
// CALCULATED padding with pads {top, bottom, left, right} = ONNX {x1_begin, x1_end, x2_begin, x2_end}).
// Every window must hold an element.
std::vector<int64_t> maxPoolV3ForwardIntegers(const std::vector<int64_t> &x, int64_t n, int64_t c, int64_t inH,
                                              int64_t inW, const MaxPoolV3Params &params);

// Grad (§6 semantics + §3.6 accumulation): the float32 sums of every outGrad element, (N,C,H,W), before the
// single rounding to the element type. origOutput and grad are (N,C,Ho,Wo).
std::vector<float> maxPoolV3GradSums(const std::vector<float> &origInput, const std::vector<float> &origOutput,
                                     const std::vector<float> &grad, int64_t n, int64_t c, int64_t inH, int64_t inW,
                                     const MaxPoolV3Params &params);

}  // namespace reference
