// One aclnnMaxPool3dWithArgmaxBackward problem for the index-backward kernel tests: indices from the naive
// reference's forward (so every index lies in its own window) unless a test edits them, gradients drawn
// from a seed, a chosen storage layout, and a run with an implementation forced that reports what ran
// (poolgradGetLastRunReport) and the gradInput bits, next to the bits the naive reference expects.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "reference/naive_pooling.h"
#include "support/max_pool3d_run.h"

namespace test_support {

enum class IndexLayout { Contiguous, ChannelsLast };

struct IndexBackwardCase {
    reference::Shape5 inputShape{};
    reference::Pool3dParams params;
    // Adaptive pooling to this output size instead (aclnnAdaptiveMaxPool3dBackward); params are then unused.
    bool adaptive = false;
    std::array<int64_t, 3> adaptiveOutput{1, 1, 1};
    aclDataType type = ACL_FLOAT;
    aclDataType indexType = ACL_INT32;
    IndexLayout layout = IndexLayout::Contiguous;
    uint64_t seed = 1;
    // Share of gradients that are NaN, -0 or +-Inf (the rest are small integers and halves, exact in every type).
    double specialShare = 0.0;

    // Filled by prepare(): the operands' logical contents (row-major over the shapes).
    reference::Shape5 outputShape{};
    std::vector<float> gradOutput;  // exact values of the element type
    std::vector<int64_t> indices;   // plane-relative, as the reference forward chose them

    void prepare();
    // float32 sums of the naive reference; ok is false when an index is outside its plane.
    reference::BackwardResult expected() const;
    std::vector<uint64_t> expectedBits() const;
    std::string describe() const;
};

struct IndexBackwardRun {
    TwoPhaseStatus status;
    std::string implementation, plan, fallback, message;
    std::vector<uint64_t> gradInputBits;
    int64_t bytesOutsideViewChanged = 0;
};

// Runs the backward with `implementation` forced ("" for the library's own choice), gradInput poisoned.
IndexBackwardRun runIndexBackward(const IndexBackwardCase &problem, const std::string &implementation);

// Whether two gradInput bit patterns agree, any NaN matching any NaN of the same type.
bool sameGradInput(uint64_t expected, uint64_t actual, aclDataType type);

}  // namespace test_support
