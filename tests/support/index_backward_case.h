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
    // Elements of storage before a contiguous gradInput's first element (its base is then off the allocation's
    // alignment); channels-last gradInputs take none.
    int64_t gradInputOffset = 0;

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

// The windows of a test case: regular (kernel, stride, padding, dilation, ceilMode) or adaptive.
struct IndexGeometry {
    const char *label;
    reference::Shape5 input;  // N, C, D, H, W
    std::array<int64_t, 3> kernel, stride, padding, dilation;
    bool ceilMode = false;
    bool adaptive = false;
    std::array<int64_t, 3> adaptiveOutput{1, 1, 1};
};

// A prepared case of `geometry`: NaN/-0/Inf gradients on even seeds, and every eleventh output from the
// fourth on saying "no element" (-1), as a forward does for an empty window.
IndexBackwardCase indexCaseOf(const IndexGeometry &geometry, aclDataType type, aclDataType indexType,
                              IndexLayout layout, uint64_t seed);

// gradInput equals `expected` (NaN bits too when nanBitsToo) and nothing outside its view changed.
void expectGradInputBits(const std::vector<uint64_t> &expected, const IndexBackwardRun &run, aclDataType type,
                         bool nanBitsToo);

// `implementation` ran the problem itself (no fallback): gradInput equals the naive reference's sums (any NaN
// for a NaN) and the scatter reference's result bit for bit, NaN payloads included.
void expectOwnRunMatchesReferences(const IndexBackwardCase &problem, const std::string &implementation);

// Whether `implementation` takes the problem (phase 1 accepts it); where it does, as expectOwnRunMatchesReferences.
bool expectOwnRunMatchesReferencesIfTaken(const IndexBackwardCase &problem, const std::string &implementation);

// An index inside the plane but outside its own window: `implementation` ran, handed the problem to the scatter
// reference (the run report says so) and the result is still the full scatter.
void expectStrayIndexHandover(const IndexBackwardCase &problem, const IndexBackwardRun &run,
                              const std::string &implementation);

// An index outside the plane: 161002 naming the value, the hand-over reported, gradInput all +0.
void expectBadIndexZeroes(const IndexBackwardRun &run, int64_t badIndex);

// The operator thread count and parallel threshold for a scope (0 restores the defaults).
class ThreadSetting {
public:
    ThreadSetting(int threads, int64_t threshold);
    ~ThreadSetting();
    ThreadSetting(const ThreadSetting &) = delete;
    ThreadSetting &operator=(const ThreadSetting &) = delete;
};

}  // namespace test_support
