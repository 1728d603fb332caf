// Randomized differential tests of aclnnMaxPool3dWithArgmax and aclnnMaxPool3dWithArgmaxBackward against the
// naive reference of tests/reference (written from SPEC only), run by the shared differential driver
// (support/differential_driver.h: every implementation, poisoned outputs, untouched inputs and storage).
//
// Every case draws a fresh problem: dtype, index dtype, rank 4/5, kernel/stride/padding/dilation in every
// list-length form, ceilMode, odd and 1-sized axes, and for EVERY operand a storage layout (contiguous,
// channels-last, padded strides with an offset, dense planes with gaps). Forward values are compared bit for
// bit (NaN included), indices exactly; gradInput bit for bit (any NaN matches NaN).
//
// Seeds: a fixed list plus one fresh seed per test run (from std::random_device, or POOLGRAD_TEST_SEED when
// set, to reproduce a failure). The seed and the case number are printed with every failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_pooling.h"
#include "support/differential_driver.h"
#include "support/max_pool3d_run.h"
#include "support/test_tensor.h"

namespace {

using namespace pool_diff;

// Every non-reference implementation accepts at least this share of the random cases (measured, 3-D: channels-last
// forward 15%, backward 18%; dense 33% of the cases; a third of the lowest as margin).
constexpr double kMinimumShare3d = 0.05;
using reference::Shape5;
using test_support::MaxPool3dLists;
using test_support::TestTensor;
using test_support::TwoPhaseStatus;

// ------------------------------------------------------------------------------------------------ problems

struct Problem {
    int rank = 5;
    aclDataType type = ACL_FLOAT;
    aclDataType indexType = ACL_INT32;
    Shape5 inputShape{};
    Shape5 outputShape{};
    reference::Pool3dParams params;
    MaxPool3dLists lists;
    bool allChannelsLast = false;  // every operand stored channels-last (ProblemLimits::wideChannelsLast)
    // Every operand contiguous (else each gets a random layout).
    bool contiguousOperands = false;

    // The caller's view shape: rank 4 drops N (= 1).
    std::vector<int64_t> view(const Shape5 &shape) const {
        if (rank == 5) return {shape.begin(), shape.end()};
        return {shape.begin() + 1, shape.end()};
    }
    int channelAxis() const { return rank - 4; }
    int64_t planes() const { return inputShape[0] * inputShape[1]; }
    int64_t planeIn() const { return inputShape[2] * inputShape[3] * inputShape[4]; }
    int64_t planeOut() const { return outputShape[2] * outputShape[3] * outputShape[4]; }

    std::string describe() const {
        std::ostringstream text;
        text << typeName(type) << "/" << typeName(indexType) << " self " << listText(view(inputShape)) << " -> "
             << listText(view(outputShape)) << " kernel " << listText(lists.kernel) << " stride "
             << listText(lists.stride) << " padding " << listText(lists.padding) << " dilation "
             << listText(lists.dilation) << " ceilMode " << (lists.ceilMode ? "true" : "false");
        return text.str();
    }
};

struct ProblemLimits {
    int64_t maxBatch = 2;
    int64_t maxChannels = 3;
    int64_t maxExtra = 5;  // input axis = smallest valid size + [0, maxExtra]
    // Windows that do not overlap (stride = kernel, no dilation) and rows of 32 to 64 more elements than
    // the smallest: what the write-once gather backward takes.
    bool disjointWideRows = false;
    // Windows that do not overlap, float32 gradients, INT32 indices and rows of at most 20 more elements than
    // the smallest: what the plane-chunk gather backward takes.
    bool disjointNarrowRows = false;
    // 16 to 40 channels (multiples of 8), windows of 1-2 per axis and every operand channels-last: what
    // the channel-vector scatter takes (taps x vectors of 8 or 16 lanes <= C).
    bool wideChannelsLast = false;
    // With wideChannelsLast: 16 or 32 channels, float32 gradients, INT32 indices and windows two wide at stride 1 along
    // W (two per coordinate): what the overlapping channels-last gather takes.
    bool overlappingFloat32 = false;
    // Windows three wide at stride 2 along W (padding 0 or 1), at most two per coordinate along H (kernel <=
    // 2 * stride) and one along D (kernel <= stride), no dilation: what the stride-2 gather backward takes.
    bool stride2Rows = false;
    // With stride2Rows: float32 values and rows of at least 16 whole windows: what the stride-2 forward takes.
    bool stride2Float32 = false;
    // With both: 2-D planes (depth 1, window 1 deep) under 3x3 windows at stride 2 along H and W, three quarters of
    // them with dense operands, any value type: what the 3x3 stride-2 forward takes.
    bool threeByThreePlanes = false;
    // 2-D planes under windows up to 4x4 (not 1x1) moving by 1 along H and W, rows of at least 16 windows, three
    // quarters with dense operands, any value type: what the stride-1 forward takes.
    bool stride1Planes = false;
    // With stride1Planes: float32, dense operands, rows of 16 to 40 windows: what the flat stride-1 forward takes too.
    bool stride1Float32 = false;
};

Problem randomProblem(Rng &rng, const ProblemLimits &limits = {}) {
    Problem problem;
    problem.rank = chance(rng, 0.5) ? 5 : 4;
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    problem.type = types[uniform(rng, 0, 2)];
    problem.indexType = chance(rng, 0.5) ? ACL_INT32 : ACL_INT64;
    auto &p = problem.params;
    auto &lists = problem.lists;

    // kernelSize: length 1 or 3, values 1..4.
    if (chance(rng, 0.3)) {
        p.kernel.fill(uniform(rng, 1, 4));
        lists.kernel = {p.kernel[0]};
    } else {
        for (auto &k : p.kernel) k = uniform(rng, 1, 4);
        lists.kernel = {p.kernel.begin(), p.kernel.end()};
    }
    // stride: length 0 (= kernel), 1 or 3, values 1..3.
    switch (uniform(rng, 0, 2)) {
        case 0:
            p.stride = p.kernel;
            lists.stride = {};
            break;
        case 1:
            p.stride.fill(uniform(rng, 1, 3));
            lists.stride = {p.stride[0]};
            break;
        default:
            for (auto &s : p.stride) s = uniform(rng, 1, 3);
            lists.stride = {p.stride.begin(), p.stride.end()};
    }
    // padding: length 1 or 3, 0 <= p <= floor(k/2) on every axis.
    if (chance(rng, 0.4)) {
        const int64_t limit = std::min({p.kernel[0], p.kernel[1], p.kernel[2]}) / 2;
        p.padding.fill(uniform(rng, 0, limit));
        lists.padding = {p.padding[0]};
    } else {
        for (int a = 0; a < 3; ++a) p.padding[a] = uniform(rng, 0, p.kernel[a] / 2);
        lists.padding = {p.padding.begin(), p.padding.end()};
    }
    // dilation: length 1 or 3, values 1..3 (1 half of the time).
    if (chance(rng, 0.5)) {
        p.dilation.fill(chance(rng, 0.5) ? 1 : uniform(rng, 2, 3));
        lists.dilation = {p.dilation[0]};
    } else {
        for (auto &d : p.dilation) d = chance(rng, 0.5) ? 1 : uniform(rng, 2, 3);
        lists.dilation = {p.dilation.begin(), p.dilation.end()};
    }
    p.ceilMode = lists.ceilMode = chance(rng, 0.5);
    if (limits.disjointNarrowRows) {
        problem.indexType = ACL_INT32;
        problem.type = ACL_FLOAT;  // the plane-chunk gather takes float32 gradients with INT32 indices only
    }
    if (limits.disjointWideRows || limits.disjointNarrowRows) {
        // Half of them contiguous: random layouts of three operands rarely all have dense planes.
        problem.contiguousOperands = chance(rng, 0.5);
        p.stride = p.kernel;
        lists.stride = {};
        p.dilation.fill(1);
        lists.dilation = {1};
    }
    if (limits.stride2Rows) {
        // Half of them contiguous: random layouts of three operands rarely all have dense planes.
        problem.contiguousOperands = chance(rng, 0.5);
        for (int a = 0; a < 2; ++a) {
            p.stride[a] = uniform(rng, 1, 3);
            p.kernel[a] = uniform(rng, 1, std::min<int64_t>(4, a == 0 ? p.stride[a] : 2 * p.stride[a]));
            p.padding[a] = uniform(rng, 0, p.kernel[a] / 2);
        }
        p.kernel[2] = 3;
        p.stride[2] = 2;
        p.padding[2] = uniform(rng, 0, 1);
        p.dilation.fill(1);
        lists.kernel = {p.kernel.begin(), p.kernel.end()};
        lists.stride = {p.stride.begin(), p.stride.end()};
        lists.padding = {p.padding.begin(), p.padding.end()};
        lists.dilation = {1};
        if (limits.stride2Float32) problem.type = ACL_FLOAT;
        problem.indexType = ACL_INT32;  // the stride-2 gather declines INT64 indices
        if (limits.threeByThreePlanes) {
            problem.contiguousOperands = chance(rng, 0.75);
            p.kernel = {1, 3, 3};
            p.stride = {1, 2, 2};
            p.padding = {0, uniform(rng, 0, 1), uniform(rng, 0, 1)};
            lists.kernel = {p.kernel.begin(), p.kernel.end()};
            lists.stride = {p.stride.begin(), p.stride.end()};
            lists.padding = {p.padding.begin(), p.padding.end()};
            problem.indexType = chance(rng, 0.5) ? ACL_INT32 : ACL_INT64;
            const aclDataType valueTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};  // it takes 16-bit values too
            problem.type = valueTypes[uniform(rng, 0, 2)];
        }
    }

    if (limits.stride1Planes) {
        problem.contiguousOperands = chance(rng, 0.75) || limits.stride1Float32;
        if (limits.stride1Float32) problem.type = ACL_FLOAT;
        p.kernel = {1, uniform(rng, 1, 4), uniform(rng, 1, 4)};
        if (p.kernel[1] * p.kernel[2] == 1) p.kernel[2] = 2;
        p.stride = {1, 1, 1};
        p.dilation.fill(1);
        p.padding = {0, uniform(rng, 0, p.kernel[1] / 2), uniform(rng, 0, p.kernel[2] / 2)};
        lists.kernel = {p.kernel.begin(), p.kernel.end()};
        lists.stride = {1};
        lists.padding = {p.padding.begin(), p.padding.end()};
        lists.dilation = {1};
    }

    if (limits.wideChannelsLast) {
        problem.allChannelsLast = true;
        for (int a = 0; a < 3; ++a) {
            p.kernel[a] = uniform(rng, 1, 2);
            p.stride[a] = uniform(rng, 1, 2);
            p.padding[a] = uniform(rng, 0, p.kernel[a] / 2);
        }
        if (limits.overlappingFloat32) {
            problem.type = ACL_FLOAT;
            problem.indexType = ACL_INT32;
            p.kernel[2] = 2;
            p.stride[2] = 1;
        }
        lists.kernel = {p.kernel.begin(), p.kernel.end()};
        lists.stride = {p.stride.begin(), p.stride.end()};
        lists.padding = {p.padding.begin(), p.padding.end()};
    }

    problem.inputShape[0] = problem.rank == 5 ? uniform(rng, 1, limits.maxBatch) : 1;
    problem.inputShape[1] = limits.overlappingFloat32 ? 16 * uniform(rng, 1, 2)
                            : limits.wideChannelsLast ? 8 * uniform(rng, 2, 5)
                                                      : uniform(rng, 1, limits.maxChannels);
    for (int a = 0; a < 3; ++a) {
        int64_t smallest = 1;
        while (reference::pooledSize(smallest, p.kernel[a], p.stride[a], p.padding[a], p.dilation[a], p.ceilMode) < 1)
            ++smallest;
        problem.inputShape[2 + a] = chance(rng, 0.15) ? smallest : smallest + uniform(rng, 0, limits.maxExtra);
        if (limits.disjointWideRows && a == 2) problem.inputShape[4] = smallest + uniform(rng, 32, 64);
        if (limits.disjointNarrowRows && a == 2) problem.inputShape[4] = smallest + uniform(rng, 0, 20);
        if (limits.stride2Rows && a == 2)
            problem.inputShape[4] = smallest + uniform(rng, limits.stride2Float32 ? 33 : 0, 70);
        if (limits.threeByThreePlanes && a == 0) problem.inputShape[2] = 1;
        if (limits.stride1Planes && a == 0) problem.inputShape[2] = 1;
        if (limits.stride1Planes && a == 2) problem.inputShape[4] = smallest + uniform(rng, 15, 50);
        // Clamped rather than drawn from a narrower range, so that the draws after it stay those of the seeds.
        if (limits.stride1Float32 && a == 2) problem.inputShape[4] = std::min(problem.inputShape[4], smallest + 39);
        // At least two outputs along W, so that the windows overlap.
        if (limits.overlappingFloat32 && a == 2) problem.inputShape[4] = smallest + uniform(rng, 1, limits.maxExtra);
    }
    problem.outputShape = reference::pooledShape(problem.inputShape, p);
    return problem;
}

Operand operand(Rng &rng, const Problem &p, const Shape5 &shape, aclDataType type, aclFormat format) {
    return makeOperand(rng, p.view(shape), p.channelAxis(), type, format, p.contiguousOperands);
}

// ------------------------------------------------------------------------------------------------ forward

struct ForwardCase {
    Problem problem;
    DataMode mode = DataMode::Plain;
    std::vector<uint32_t> inputBits;
    reference::ForwardResult expected;
    std::vector<uint32_t> expectedBits;  // the selected input element's own bits, -inf for an empty window
    int64_t emptyWindows = 0;
};

void computeForwardExpectation(ForwardCase &c) {
    const aclDataType type = c.problem.type;
    c.expected = reference::maxPool3dWithArgmax(widen(c.inputBits, type), c.problem.inputShape, c.problem.params);
    c.expectedBits = selectedBits(c.inputBits, c.expected.indices, c.problem.planeIn(), c.problem.planeOut(), type);
    c.emptyWindows = std::count(c.expected.indices.begin(), c.expected.indices.end(), -1);
    // Self-check of the reference: the value it reports is the element it points at.
    for (size_t o = 0; o < c.expected.indices.size(); ++o) {
        const float value = c.expected.values[o];
        if (std::isnan(value)) {
            EXPECT_TRUE(isNanBits(c.expectedBits[o], type));
        } else {
            EXPECT_EQ(toBits(value, type), c.expectedBits[o]);
        }
    }
}

ForwardCase randomForwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    ForwardCase c;
    c.problem = randomProblem(rng, limits);
    c.mode = static_cast<DataMode>(uniform(rng, 0, 2));
    c.inputBits = randomElements(rng, c.problem.planes() * c.problem.planeIn(), c.problem.type, c.mode);
    computeForwardExpectation(c);
    return c;
}

struct ForwardOperands {
    Operand self, out, indices;
    aclFormat format;
};

ForwardOperands makeForwardOperands(Rng &rng, const ForwardCase &c) {
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW};
    const aclFormat format = formats[uniform(rng, 0, 2)];
    const Problem &p = c.problem;
    ForwardOperands operands{operand(rng, p, p.inputShape, p.type, format),
                             operand(rng, p, p.outputShape, p.type, format),
                             operand(rng, p, p.outputShape, p.indexType, format), format};
    storeBits(operands.self.tensor, c.inputBits);
    return operands;
}

OperatorCall forwardCall(const ForwardCase &c, ForwardOperands &o) {
    return argmaxForwardCall(
        c.problem.describe() + ", data " + dataModeName(c.mode), o.self, o.out, o.indices, c.problem.type,
        c.expectedBits, [&c, &o] { return indicesMatch(o.indices.tensor, c.expected.indices); },
        [&c, &o] {
            return test_support::runMaxPool3dWithArgmax(o.self.tensor, c.problem.lists, o.out.tensor, o.indices.tensor);
        });
}

TEST(MaxPool3dDifferential, ForwardMatchesReferenceOnEveryImplementation) {
    int64_t emptyWindows = 0, casesWithEmptyWindows = 0, casesWithUnitAxis = 0;
    // Every fourth case has up to 40 channels: the channels-last kernels vectorise across C, and need
    // full vectors (8 or 16 lanes) plus a remainder to be tested.
    ProblemLimits wideChannels;
    wideChannels.maxBatch = 1;
    wideChannels.maxChannels = 40;
    wideChannels.maxExtra = 3;
    // Every fourth (from the second) has float32 windows three wide at stride 2 along W and wide rows: the
    // stride-2 forward's problems.
    // Every other one of those has 2-D planes and 3x3 windows at stride 2: the 3x3 stride-2 forward's. One in
    // eight has narrow float32 rows (half of them dense): the narrow-rows forward's.
    // One in eight more has 2-D planes under windows moving by 1: the stride-1 forward's; every other one of those
    // float32 rows of at most 40 windows with dense operands, the flat stride-1 forward's too.
    ProblemLimits stride2, threeByThree, narrow, stride1, stride1Float32;
    stride1.stride1Planes = true;
    stride1Float32.stride1Planes = stride1Float32.stride1Float32 = true;
    stride2.stride2Rows = stride2.stride2Float32 = true;
    threeByThree.stride2Rows = threeByThree.stride2Float32 = threeByThree.threeByThreePlanes = true;
    narrow.disjointNarrowRows = true;
    const auto draw = [&](Rng &rng, int n) {
        ForwardCase c = randomForwardCase(rng, n % 4 == 3   ? wideChannels
                                               : n % 8 == 1 ? stride2
                                               : n % 8 == 5 ? threeByThree
                                               : n % 8 == 2 ? narrow
                                               : n % 16 == 6 ? stride1
                                               : n % 16 == 14 ? stride1Float32
                                                            : ProblemLimits{});
        emptyWindows += c.emptyWindows;
        casesWithEmptyWindows += c.emptyWindows > 0;
        casesWithUnitAxis += std::count(c.problem.inputShape.begin() + 2, c.problem.inputShape.end(), 1) > 0;
        return c;
    };
    if (!runRandomSuite("3-D forward", {1, 2, 3, 4}, 100, kMinimumShare3d, draw, makeForwardOperands, forwardCall))
        return;
    std::cout << "[ info     ] forward: " << emptyWindows << " empty windows in " << casesWithEmptyWindows << " cases; "
              << casesWithUnitAxis << " cases with a spatial axis of size 1" << std::endl;
}

// ------------------------------------------------------------------------------------------------ backward

struct BackwardCase : BackwardInputs {
    Problem problem;
    std::vector<uint32_t> expectedBits;
};

void computeBackwardExpectation(BackwardCase &c) {
    const reference::BackwardResult result = reference::maxPool3dWithArgmaxBackward(
        widen(c.gradOutputBits, c.problem.type), c.indices, c.problem.outputShape, c.problem.inputShape);
    ASSERT_TRUE(result.ok) << "test bug: generated an invalid index";
    c.expectedBits = roundAll(result.accumulators, c.problem.type);
}

BackwardCase randomBackwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    BackwardCase c;
    c.problem = randomProblem(rng, limits);
    const Problem &p = c.problem;
    static_cast<BackwardInputs &>(c) = randomBackwardInputs(
        rng, p.type, p.planes() * p.planeIn(), p.planes() * p.planeOut(), p.planeIn(),
        [&p](const std::vector<uint32_t> &input) {
            return reference::maxPool3dWithArgmax(widen(input, p.type), p.inputShape, p.params).indices;
        });
    computeBackwardExpectation(c);
    return c;
}

struct BackwardOperands {
    Operand gradOutput, self, indices, gradInput;
};

BackwardOperands makeBackwardOperands(Rng &rng, const BackwardCase &c) {
    // Formats are only tags for the backward (SPEC §4, §11 #20): self/gradOutput/gradInput share one, indices any.
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCHW};
    const aclFormat format = formats[uniform(rng, 0, 3)], indexFormat = formats[uniform(rng, 0, 3)];
    const Problem &p = c.problem;
    const auto backwardOperand = [&](const Shape5 &shape, aclDataType type, aclFormat tag) {
        return p.allChannelsLast ? makeOperand(rng, p.view(shape), p.channelAxis(), type, tag, Layout::ChannelsLast)
                                 : operand(rng, p, shape, type, tag);
    };
    BackwardOperands operands{
        backwardOperand(p.outputShape, p.type, format), backwardOperand(p.inputShape, p.type, format),
        backwardOperand(p.outputShape, p.indexType, indexFormat), backwardOperand(p.inputShape, p.type, format)};
    storeBits(operands.gradOutput.tensor, c.gradOutputBits);
    storeIndices(operands.indices.tensor, c.indices);
    // self stays poisoned: its data is never read (SPEC §3.6).
    return operands;
}

OperatorCall backwardCall(const BackwardCase &c, BackwardOperands &o) {
    return indexBackwardCall(c.problem.describe() + ", " + c.describe(), o.gradOutput, o.self, o.indices, o.gradInput,
                             c.problem.type, c.expectedBits, [&c, &o] {
                                 return test_support::runMaxPool3dWithArgmaxBackward(o.gradOutput.tensor, o.self.tensor,
                                                                                     o.indices.tensor, c.problem.lists,
                                                                                     o.gradInput.tensor);
                             });
}

TEST(MaxPool3dDifferential, BackwardMatchesReferenceOnEveryImplementation) {
    // Three eighths of the cases have windows that do not overlap and wide rows, an eighth narrow rows, a
    // quarter three-wide windows at stride 2 along W: the write-once gathers take those (a part of each draw
    // gets operands with dense planes). Three sixteenths are channels-last with 16-40 channels and small
    // windows: the channel-vector scatter takes those, and two thirds of them (float32, INT32, overlapping
    // along W) the overlapping channels-last gather.
    runRandomSuite(
        "3-D backward", {11, 12, 13, 14}, 100, kMinimumShare3d,
        [](Rng &rng, int n) {
            ProblemLimits limits;
            limits.disjointWideRows = n % 8 == 1 || n % 8 == 3 || n % 8 == 5;
            limits.disjointNarrowRows = n % 8 == 7;
            limits.stride2Rows = n % 8 == 2 || n % 8 == 6;
            limits.wideChannelsLast = n % 8 == 4 || n % 16 == 0;
            limits.overlappingFloat32 = n % 16 == 12 || n % 16 == 0;
            return randomBackwardCase(rng, limits);
        },
        makeBackwardOperands, backwardCall);
}

TEST(MaxPool3dDifferential, BackwardOfTheLibraryForwardMatchesReference) {
    // The realistic chain: the library's own forward produces the indices fed to its backward.
    Rng rng(freshSeed() ^ 0x5eedULL);
    SCOPED_TRACE(seedTrace(freshSeed()));
    for (int n = 0; n < 40; ++n) {
        SCOPED_TRACE("case " + std::to_string(n));
        const ForwardCase forward = randomForwardCase(rng);
        ForwardOperands forwardOperands = makeForwardOperands(rng, forward);
        const Problem &p = forward.problem;
        OperatorCall forwardRun = forwardCall(forward, forwardOperands);
        ASSERT_TRUE(runChoice(forwardRun, ""));
        if (testing::Test::HasFailure()) return;
        BackwardCase c;
        c.problem = p;
        c.indices = forward.expected.indices;
        c.gradOutputBits.resize(c.indices.size());
        for (auto &bits : c.gradOutputBits) bits = randomGradient(rng, p.type, GradMode::Plain);
        computeBackwardExpectation(c);
        Operand gradOutput = operand(rng, p, p.outputShape, p.type, forwardOperands.format);
        Operand gradInput = operand(rng, p, p.inputShape, p.type, forwardOperands.format);
        storeBits(gradOutput.tensor, c.gradOutputBits);
        // The forward's own self and indices tensors (in their random layouts) are fed to the backward.
        const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
            gradOutput.tensor, forwardOperands.self.tensor, forwardOperands.indices.tensor, p.lists, gradInput.tensor);
        ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
        ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(bitsMatch(gradInput.tensor, c.expectedBits, p.type, true, "gradInput"));
        EXPECT_EQ(gradInput.tensor.bytesOutsideViewChanged(), 0);
        if (testing::Test::HasFailure()) return;
    }
}

// ------------------------------------------------------------------------------------------------ threads

TEST(MaxPool3dDifferential, ResultsAreBitIdenticalForOneTwoAndThreeThreads) {
    DifferentialDriver driver("3-D threads");
    ProblemLimits limits;
    limits.maxBatch = 3;
    limits.maxChannels = 4;  // up to 12 planes, so that planes are split between threads
    const bool passed = forEachRandomCase({21, 22}, 25, [&](Rng &rng, int) {
        const ForwardCase forward = randomForwardCase(rng, limits);
        ForwardOperands forwardOperands = makeForwardOperands(rng, forward);
        const BackwardCase backward = randomBackwardCase(rng, limits);
        BackwardOperands backwardOperands = makeBackwardOperands(rng, backward);
        OperatorCall forwardRun = forwardCall(forward, forwardOperands);
        OperatorCall backwardRun = backwardCall(backward, backwardOperands);
        driver.run(forwardRun, {1, 2, 3}) && driver.run(backwardRun, {1, 2, 3});
    });
    if (!passed) return;
}

// ------------------------------------------------------------------------------------------------ directed

TEST(MaxPool3dDirected, EmptyWindowGivesMinusInfinityAndMinusOneAndBackwardSkipsIt) {
    // SPEC §3.4: W = 1, k = 2, s = 2, p = 1, d = 3, ceilMode: one output whose window {-1, 2} misses the input.
    const MaxPool3dLists lists{{1, 1, 2}, {1, 1, 2}, {0, 0, 1}, {1, 1, 3}, true};
    ASSERT_EQ(reference::pooledSize(1, 2, 2, 1, 3, true), 1);
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            SCOPED_TRACE(std::string(typeName(type)) + "/" + typeName(indexType));
            TestTensor self({1, 1, 1, 1, 1}, type);
            self.set(0, 5.0);
            TestTensor out({1, 1, 1, 1, 1}, type), indices({1, 1, 1, 1, 1}, indexType);
            TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.at(0), -std::numeric_limits<double>::infinity());
            EXPECT_EQ(indices.at(0), -1.0);

            TestTensor gradOutput({1, 1, 1, 1, 1}, type);
            gradOutput.set(0, 7.0);
            TestTensor gradInput({1, 1, 1, 1, 1}, type);
            status = test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(gradInput.bitsAt(0), 0u) << "index -1 contributes nothing; gradInput is +0.0";
        }
    }
}

// ------------------------------------------------------------------------------------------------ empty tensors

TEST(MaxPool3dEmptyTensors, ForwardWithEmptySelfSucceedsAndWritesNothing) {
    struct Shapes {
        std::vector<int64_t> self, out;
    };
    const std::vector<Shapes> cases{{{1, 0, 4, 4, 4}, {1, 0, 2, 2, 2}},
                                    {{0, 2, 4, 4, 4}, {0, 2, 2, 2, 2}},
                                    {{1, 2, 0, 4, 4}, {1, 2, 0, 2, 2}},
                                    {{0, 3, 3, 3}, {0, 1, 1, 1}},
                                    {{2, 3, 0, 3}, {2, 1, 0, 1}}};
    for (const Shapes &shapes : cases) {
        for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
            SCOPED_TRACE("self " + listText(shapes.self) + " " + typeName(type));
            TestTensor self(shapes.self, type);
            // Strided outputs with slack, so that a stray write anywhere in the storage is seen.
            std::vector<int64_t> strides(shapes.out.size(), 1);
            for (size_t i = strides.size() - 1; i-- > 0;)
                strides[i] = strides[i + 1] * std::max<int64_t>(shapes.out[i + 1], 1) + 1;
            TestTensor out(shapes.out, strides, 3, type, ACL_FORMAT_ND, 8);
            TestTensor indices(shapes.out, strides, 2, ACL_INT64, ACL_FORMAT_ND, 8);
            const TwoPhaseStatus status =
                test_support::runMaxPool3dWithArgmax(self, {{2}, {}, {0}, {1}, false}, out, indices);
            EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(status.workspaceSize, 0u);
            EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(indices.bytesOutsideViewChanged(), 0);
        }
    }
}

TEST(MaxPool3dEmptyTensors, BackwardWithEmptyGradOutputZeroFillsGradInput) {
    Rng rng(freshSeed());
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    struct Shapes {
        std::vector<int64_t> gradOutput, self;
    };
    const std::vector<Shapes> cases{
        {{1, 2, 0, 2, 2}, {1, 2, 4, 4, 4}}, {{2, 3, 2, 0, 1}, {2, 3, 5, 4, 3}}, {{3, 0, 1, 1}, {3, 3, 3, 3}}};
    for (const Shapes &shapes : cases) {
        for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
            for (int layout = 0; layout < kLayoutCount; ++layout) {  // every gradInput layout
                SCOPED_TRACE("gradOutput " + listText(shapes.gradOutput) + " self " + listText(shapes.self) + " " +
                             typeName(type));
                TestTensor gradOutput(shapes.gradOutput, type), indices(shapes.gradOutput, ACL_INT32);
                TestTensor self(shapes.self, type);
                Operand gradInput = makeOperand(rng, shapes.self, static_cast<int>(shapes.self.size()) - 4, type,
                                                ACL_FORMAT_ND, static_cast<Layout>(layout));
                SCOPED_TRACE("gradInput " + gradInput.description);
                const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
                    gradOutput, self, indices, {{2}, {}, {0}, {1}, false}, gradInput.tensor);
                EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
                EXPECT_EQ(status.workspaceSize, 0u);
                EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
                for (int64_t i = 0; i < gradInput.tensor.elementCount(); ++i)
                    ASSERT_EQ(gradInput.tensor.bitsAt(i), 0u) << "gradInput[" << i << "] must be +0.0";
                EXPECT_EQ(gradInput.tensor.bytesOutsideViewChanged(), 0);
            }
        }
    }
}

TEST(MaxPool3dEmptyTensors, BackwardWithEmptySelfSucceedsAndWritesNothing) {
    struct Shapes {
        std::vector<int64_t> gradOutput, self;
    };
    const std::vector<Shapes> cases{
        {{1, 0, 2, 2, 2}, {1, 0, 4, 4, 4}}, {{1, 2, 1, 2, 2}, {1, 2, 0, 4, 4}}, {{0, 1, 1, 1}, {0, 3, 3, 3}}};
    for (const Shapes &shapes : cases) {
        SCOPED_TRACE("gradOutput " + listText(shapes.gradOutput) + " self " + listText(shapes.self));
        TestTensor gradOutput(shapes.gradOutput, ACL_FLOAT), indices(shapes.gradOutput, ACL_INT64);
        for (int64_t i = 0; i < gradOutput.elementCount(); ++i) {
            gradOutput.set(i, 1.0);
            indices.set(i, 0.0);
        }
        TestTensor self(shapes.self, ACL_FLOAT);
        std::vector<int64_t> strides(shapes.self.size(), 2);
        TestTensor gradInput(shapes.self, strides, 5, ACL_FLOAT, ACL_FORMAT_ND, 16);
        const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
            gradOutput, self, indices, {{2}, {}, {0}, {1}, false}, gradInput);
        EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(status.workspaceSize, 0u);
        EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
    }
}

// ------------------------------------------------------------------------------------------------ repeatable executors

TEST(MaxPool3dRepeatableExecutor, ForwardRereadsCurrentInputOnEveryRun) {
    Rng rng(freshSeed() ^ 0xf0f0ULL);
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    for (int n = 0; n < 6; ++n) {
        ForwardCase c = randomForwardCase(rng);
        while (c.emptyWindows > 0) c = randomForwardCase(rng);  // every output must depend on the data
        c.mode = DataMode::Plain;
        ForwardOperands operands = makeForwardOperands(rng, c);
        SCOPED_TRACE("case " + std::to_string(n) + ": " + forwardCall(c, operands).trace);
        test_support::IntArray kernel(c.problem.lists.kernel), stride(c.problem.lists.stride),
            padding(c.problem.lists.padding), dilation(c.problem.lists.dilation);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(operands.self.tensor, kernel, stride, padding, dilation,
                                                           c.problem.lists.ceilMode, operands.out.tensor,
                                                           operands.indices.tensor, &workspaceSize, &executor),
                  0)
            << aclGetRecentErrMsg();
        ASSERT_NE(executor, nullptr);
        ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0) << aclGetRecentErrMsg();
        std::vector<uint32_t> previousExpected;
        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE("run " + std::to_string(run));
            if (run > 0) {  // new data in the same storage, from a range disjoint from the previous run's
                const double low = 1000.0 * (2 * run + 1), high = low + 1000.0;
                for (auto &bits : c.inputBits)
                    bits = toBits(static_cast<float>(std::uniform_real_distribution<double>(low, high)(rng)),
                                  c.problem.type);
                computeForwardExpectation(c);
                storeBits(operands.self.tensor, c.inputBits);
                EXPECT_NE(c.expectedBits, previousExpected) << "test needs different data on every run";
            }
            previousExpected = c.expectedBits;
            operands.out.tensor.poison();
            operands.indices.tensor.poison();
            ASSERT_EQ(test_support::runPhaseTwo(aclnnMaxPool3dWithArgmax, workspaceSize, executor), 0)
                << aclGetRecentErrMsg();
            EXPECT_TRUE(bitsMatch(operands.out.tensor, c.expectedBits, c.problem.type, false, "out"));
            EXPECT_TRUE(indicesMatch(operands.indices.tensor, c.expected.indices));
            EXPECT_EQ(operands.out.tensor.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(operands.indices.tensor.bytesOutsideViewChanged(), 0);
        }
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0) << aclGetRecentErrMsg();
    }
}

TEST(MaxPool3dRepeatableExecutor, BackwardRereadsCurrentGradOutputAndIndicesOnEveryRun) {
    Rng rng(freshSeed() ^ 0x0f0fULL);
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    for (int n = 0; n < 6; ++n) {
        BackwardCase c = randomBackwardCase(rng);
        BackwardOperands operands = makeBackwardOperands(rng, c);
        SCOPED_TRACE("case " + std::to_string(n) + ": " + backwardCall(c, operands).trace);
        test_support::IntArray kernel(c.problem.lists.kernel), stride(c.problem.lists.stride),
            padding(c.problem.lists.padding), dilation(c.problem.lists.dilation);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(
            aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                operands.gradOutput.tensor, operands.self.tensor, operands.indices.tensor, kernel, stride, padding,
                dilation, c.problem.lists.ceilMode, operands.gradInput.tensor, &workspaceSize, &executor),
            0)
            << aclGetRecentErrMsg();
        ASSERT_NE(executor, nullptr);
        ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0) << aclGetRecentErrMsg();
        const aclDataType type = c.problem.type;
        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE("run " + std::to_string(run));
            if (run > 0) {  // new gradients (never all zero) and new indices in the same storage
                for (auto &bits : c.gradOutputBits) bits = toBits(static_cast<float>(uniform(rng, 1, 9)), type);
                for (auto &index : c.indices) index = uniform(rng, 0, c.problem.planeIn() - 1);
                computeBackwardExpectation(c);
                storeBits(operands.gradOutput.tensor, c.gradOutputBits);
                storeIndices(operands.indices.tensor, c.indices);
            }
            operands.gradInput.tensor.poison();
            ASSERT_EQ(test_support::runPhaseTwo(aclnnMaxPool3dWithArgmaxBackward, workspaceSize, executor), 0)
                << aclGetRecentErrMsg();
            EXPECT_TRUE(bitsMatch(operands.gradInput.tensor, c.expectedBits, type, true, "gradInput"));
            EXPECT_EQ(operands.gradInput.tensor.bytesOutsideViewChanged(), 0);
        }
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0) << aclGetRecentErrMsg();
    }
}

}  // namespace
