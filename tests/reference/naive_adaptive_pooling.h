// Naive reference for the adaptive max-pooling operators (aclnnAdaptiveMaxPool3d/2d and their backwards),
// written from SPEC §5 (adaptive windows), §3.5 (index encoding), §3.6 (backward scatter) and §3.7
// (forward selection) only. It shares no code with src/ (nor with naive_pooling.*): plain loops over host
// vectors in logical row-major order of a rank-5 (N, C, D, H, W) problem. A 4-D (C,D,H,W) problem is passed
// as N = 1, a 2-D problem (N,C,H,W) as D = 1, by the caller.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace reference {
namespace adaptive {

// (N, C, D, H, W).
using Shape5 = std::array<int64_t, 5>;

// Half-open input interval [begin, end) of output coordinate `o` on an axis of input size `inputSize` and
// output size `outputSize` (SPEC §5): begin = floor(o*I/O), end = ceil((o+1)*I/O), computed with exact
// 128-bit integer arithmetic (no overflow or rounding for any int64 sizes). Requires I >= 1, O >= 1,
// 0 <= o < O.
struct Window {
    int64_t begin = 0;
    int64_t end = 0;
};
Window window(int64_t o, int64_t inputSize, int64_t outputSize);

// SPEC §3.7 on the values of one window given in scan order (increasing flat index): returns the position
// inside `values` of the selected element. The running maximum starts at -inf with position 0; the first
// element strictly greater than the running maximum replaces it (ties and +0/-0 keep the first); if any
// element is NaN the LAST NaN is selected. `values` must be non-empty.
int64_t selectPosition(const std::vector<float> &values);

struct ForwardResult {
    Shape5 outputShape{};
    std::vector<int64_t> selected;  // per output element: the flat input position (n,c plane included)
    std::vector<int64_t> indices;   // per output element: plane-relative d*H*W + h*W + w (SPEC §3.5)
};

// Adaptive max pooling forward. `input` holds the input values (16-bit types widened exactly to float) in
// row-major order of `inputShape`; `outputSize` = (Do, Ho, Wo), each >= 1. The output VALUE of element q is
// the input element `selected[q]` bit for bit (the caller looks it up in its own bits).
ForwardResult forward(const std::vector<float> &input, const Shape5 &inputShape,
                      const std::array<int64_t, 3> &outputSize);

// Backward scatter of SPEC §3.6: the float32 accumulator of every gradInput element, row-major over
// `inputShape`; contributions are added in increasing output flat order within each plane, starting from
// +0.0f. Index -1 contributes nothing; any other index outside [0, D*H*W) sets `ok` = false and every
// accumulator is then +0.0f (the library must fail in phase 2 and leave gradInput all zeros).
struct BackwardResult {
    std::vector<float> accumulators;
    bool ok = true;
};
BackwardResult backward(const std::vector<float> &gradOutput, const std::vector<int64_t> &indices,
                        const Shape5 &outputShape, const Shape5 &inputShape);

}  // namespace adaptive
}  // namespace reference
