// Naive reference for the 3-D max-pooling operators with argmax (forward) and index scatter
// (backward), written from SPEC §3.3–§3.7 only. It shares no code with src/: plain loops over host
// vectors in logical row-major order, rank 5 (N, C, D, H, W); a 4-D (C, D, H, W) problem is passed as
// N = 1 by the caller. Nothing here is clever on purpose: each function mirrors a SPEC paragraph.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace reference {

// Per-axis parameters already expanded to (D, H, W) (SPEC §3.2).
struct Pool3dParams {
    std::array<int64_t, 3> kernel{1, 1, 1};
    std::array<int64_t, 3> stride{1, 1, 1};
    std::array<int64_t, 3> padding{0, 0, 0};
    std::array<int64_t, 3> dilation{1, 1, 1};
    bool ceilMode = false;
};

// (N, C, D, H, W).
using Shape5 = std::array<int64_t, 5>;

// floor(numerator / denominator) for denominator > 0, rounding toward -infinity.
int64_t floorDivide(int64_t numerator, int64_t denominator);

// SPEC §3.3 for one axis, including the ceil-mode "last window must start inside input + left pad"
// rule. May return a value < 1 (the caller decides whether that is an error).
int64_t pooledSize(int64_t inputSize, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation, bool ceilMode);

// Output shape (N, C, Do, Ho, Wo) of an input shape.
Shape5 pooledShape(const Shape5 &inputShape, const Pool3dParams &params);

// Input coordinates of output coordinate `o` on one axis (SPEC §3.4): {o*s - p + j*d : 0 <= j < k} ∩ [0, in),
// in increasing order.
std::vector<int64_t> windowCoordinates(int64_t o, int64_t inputSize, int64_t kernel, int64_t stride, int64_t padding,
                                       int64_t dilation);

struct ForwardResult {
    Shape5 outputShape{};
    std::vector<float> values;     // selected input value (exactly the input float), or -inf for an empty window
    std::vector<int64_t> indices;  // plane-relative flat index id*H*W + ih*W + iw (SPEC §3.5), or -1
};

// Forward max pooling with argmax (SPEC §3.4 windows, §3.7 selection). `input` holds the input values
// (16-bit types widened exactly to float) in row-major order of `inputShape`.
ForwardResult maxPool3dWithArgmax(const std::vector<float> &input, const Shape5 &inputShape,
                                  const Pool3dParams &params);

// The selection rule of SPEC §3.7 on one window given in scan order: returns the position inside
// `window` of the selected element (or -1 for an empty window) and the selected value.
struct Selection {
    int64_t position = -1;
    float value = 0.0f;
};
Selection selectMaximum(const std::vector<float> &window);

// Backward scatter of SPEC §3.6: returns the float32 accumulator of every gradInput element (row-major over
// `inputShape`), summed in increasing output flat order within each plane starting from +0.0f. Index -1 is
// skipped; any other index outside [0, D*H*W) makes `ok` false (the library must then fail, SPEC §3.6).
struct BackwardResult {
    std::vector<float> accumulators;
    bool ok = true;
};
BackwardResult maxPool3dWithArgmaxBackward(const std::vector<float> &gradOutput, const std::vector<int64_t> &indices,
                                           const Shape5 &outputShape, const Shape5 &inputShape);

// The element types of the operators.
enum class ElementType { Float32, Float16, BFloat16 };

// Bits of `value` converted ONCE to the element type with round-to-nearest-even (overflow -> ±Inf),
// using the independent conversions of tests/support/float_bits.h. Float32: the float's own bits.
uint32_t elementBits(float value, ElementType type);
// The exact float value of element bits.
float elementValue(uint32_t bits, ElementType type);
// Whether element bits are a NaN.
bool elementIsNan(uint32_t bits, ElementType type);

}  // namespace reference
