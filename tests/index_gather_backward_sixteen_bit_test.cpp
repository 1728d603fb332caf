// The two write-once gathers (cpu_index_gather_backward_dense, cpu_index_gather_backward_channels_last) on
// float16 and bfloat16 gradients given as raw bit patterns: every 16-bit pattern may arrive, signalling NaNs
// with payloads and either sign, -0, subnormals, +-Inf, the largest finite values. The gathers make the
// result on the patterns themselves (no float32 detour), so each element must equal, bit for bit, what the
// SPEC's sum gives: +0 + g in float32 (hardware arithmetic here, written apart from src/) rounded back once,
// and what the scatter reference gives for the same operands. Checked for both index types, 1, 2 and 3
// threads, pair and general column blocks, whole and partial vectors, on gradInput views with gaps between
// planes (rows, for channels-last) whose poisoned storage outside the view must stay untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/index_backward_case.h"
#include "support/max_pool3d_run.h"
#include "support/test_tensor.h"
#include "support/host_vectors.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexLayout;
using test_support::TestTensor;
using test_support::ThreadSetting;

constexpr const char *kDenseGather = "cpu_index_gather_backward_dense";
constexpr const char *kChannelsLastGather = "cpu_index_gather_backward_channels_last";
constexpr const char *kScatterReference = "cpu_index_scatter_backward_reference";

float floatOfBits(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

uint32_t bitsOfFloat(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// float16 <-> float32 by the hardware (exact widening; rounding to nearest even; NaN payloads kept in their
// top bits), so the expectation shares no code with src/.
#if defined(__x86_64__)
__attribute__((target("f16c"))) float widenHalf(uint16_t bits) { return _cvtsh_ss(bits); }
__attribute__((target("f16c"))) uint16_t narrowToHalf(float value) {
    return _cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT);
}
#else
float widenHalf(uint16_t bits) {
    _Float16 half;
    std::memcpy(&half, &bits, sizeof half);
    return static_cast<float>(half);
}
uint16_t narrowToHalf(float value) {
    const _Float16 half = static_cast<_Float16>(value);
    uint16_t bits;
    std::memcpy(&bits, &half, sizeof bits);
    return bits;
}
#endif

// The SPEC's result for one element whose one contributor has gradient pattern g: +0 + g in float32,
// rounded to the type. volatile keeps the compiler from folding the addition.
uint16_t expectedSum(uint16_t g, aclDataType type) {
    volatile float zero = 0.0f;
    if (type == ACL_BF16) {
        const float sum = zero + floatOfBits(uint32_t{g} << 16);
        return static_cast<uint16_t>(bitsOfFloat(sum) >> 16);  // exact: the sum of one bfloat16 is one
    }
    return narrowToHalf(zero + widenHalf(g));
}

// Patterns every run includes (the rest are random 16-bit patterns, any of the 65536).
std::vector<uint16_t> namedPatterns(aclDataType type) {
    if (type == ACL_BF16)
        return {0x8000, 0x0000, 0x7f81, 0xff81, 0x7fbf, 0x7fc0, 0xffd5, 0x0001,
                0x8001, 0x007f, 0x7f80, 0xff80, 0x7f7f, 0xff7f, 0x3f80, 0xbf80};
    return {0x8000, 0x0000, 0x7c01, 0xfc01, 0x7dff, 0x7e00, 0xfe55, 0x0001,
            0x8001, 0x03ff, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x3c00, 0xbc00};
}

struct Layout {
    const char *implementation;
    IndexLayout layout;
    test_support::IndexGeometry geometry;
};

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

// A gradInput view the gathers accept, with storage outside it: for planar storage, gaps between the
// (n, c) planes; for channels-last, gaps between the batches. Both start at an element offset.
TestTensor gradInputWithGaps(const std::vector<int64_t> &shape, aclDataType type, IndexLayout layout) {
    const int64_t C = shape[1], D = shape[2], H = shape[3], W = shape[4];
    if (layout == IndexLayout::ChannelsLast)
        return TestTensor(shape, {D * H * W * C + 9, 1, H * W * C, W * C, C}, 5, type);
    return TestTensor(shape, {C * (D * H * W + 16), D * H * W + 16, H * W, W, 1}, 7, type);
}

TestTensor operand(const std::vector<int64_t> &shape, aclDataType type, IndexLayout layout) {
    if (layout == IndexLayout::ChannelsLast) return TestTensor::permuted(shape, {0, 2, 3, 4, 1}, type);
    return TestTensor(shape, type);
}

struct SixteenBitRun {
    test_support::TwoPhaseStatus status;
    std::string implementation, fallback, message;
    std::vector<uint16_t> gradInput;
    int64_t bytesOutsideViewChanged = 0;
};

SixteenBitRun runWithBits(const IndexBackwardCase &problem, const std::vector<uint16_t> &gradients,
                          const char *implementation) {
    const std::vector<int64_t> inputShape(problem.inputShape.begin(), problem.inputShape.end());
    const std::vector<int64_t> outputShape(problem.outputShape.begin(), problem.outputShape.end());
    TestTensor gradOutput = operand(outputShape, problem.type, problem.layout);
    TestTensor self = operand(inputShape, problem.type, problem.layout);
    TestTensor indices = operand(outputShape, problem.indexType, problem.layout);
    TestTensor gradInput = gradInputWithGaps(inputShape, problem.type, problem.layout);
    for (size_t q = 0; q < gradients.size(); ++q) {
        gradOutput.setBits(static_cast<int64_t>(q), gradients[q]);
        const int64_t index = problem.indices[q];
        indices.setBits(static_cast<int64_t>(q), problem.indexType == ACL_INT32
                                                     ? uint64_t{static_cast<uint32_t>(static_cast<int32_t>(index))}
                                                     : static_cast<uint64_t>(index));
    }
    gradInput.poison();
    const auto list = [](const std::array<int64_t, 3> &values) {
        return std::vector<int64_t>(values.begin(), values.end());
    };
    test_support::MaxPool3dLists lists{list(problem.params.kernel), list(problem.params.stride),
                                       list(problem.params.padding), list(problem.params.dilation),
                                       problem.params.ceilMode};
    SixteenBitRun run;
    poolgradForceImplementation(implementation);
    run.status = test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
    poolgradForceImplementation(nullptr);
    run.message = aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "";
    poolgradRunReport report{};
    poolgradGetLastRunReport(&report);
    run.implementation = report.implementation;
    run.fallback = report.fallback;
    for (int64_t i = 0; i < gradInput.elementCount(); ++i)
        run.gradInput.push_back(static_cast<uint16_t>(gradInput.bitsAt(i)));
    run.bytesOutsideViewChanged = gradInput.bytesOutsideViewChanged();
    return run;
}

// Logical (row-major NCDHW) expectation: each output's gradient lands, as +0 + g, on the element its index
// names within its own (n, c) plane; every other element is +0.
std::vector<uint16_t> expectedGradInput(const IndexBackwardCase &problem, const std::vector<uint16_t> &gradients) {
    const auto &in = problem.inputShape;
    const auto &out = problem.outputShape;
    const int64_t plane = in[2] * in[3] * in[4], outputPlane = out[2] * out[3] * out[4];
    std::vector<uint16_t> expected(static_cast<size_t>(in[0] * in[1] * plane), 0);
    for (size_t q = 0; q < gradients.size(); ++q) {
        const int64_t index = problem.indices[q];
        if (index < 0) continue;
        expected[static_cast<size_t>(static_cast<int64_t>(q) / outputPlane * plane + index)] =
            expectedSum(gradients[q], problem.type);
    }
    return expected;
}

const Layout layouts[] = {
    {kDenseGather,
     IndexLayout::Contiguous,
     {"planar 2x2x2 (pairs)", {2, 3, 2, 4, 64}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}}},
    {kDenseGather,
     IndexLayout::Contiguous,
     {"planar 1x2x2, rows of 100 (pairs, then a partial block)",
      {2, 2, 1, 6, 100},
      {1, 2, 2},
      {1, 2, 2},
      {0, 0, 0},
      {1, 1, 1}}},
    {kDenseGather,
     IndexLayout::Contiguous,
     {"planar 2x2x2, a partial vector per row, ceil mode",
      {1, 2, 3, 5, 70},
      {2, 2, 2},
      {2, 2, 2},
      {0, 0, 0},
      {1, 1, 1},
      true}},
    {kChannelsLastGather,
     IndexLayout::ChannelsLast,
     {"channels-last 2x2x2, 32 channels", {2, 32, 2, 4, 6}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}}},
    {kChannelsLastGather,
     IndexLayout::ChannelsLast,
     {"channels-last 1x3x3 at stride 3, padded, 17 channels",
      {1, 17, 1, 7, 8},
      {1, 3, 3},
      {1, 3, 3},
      {0, 1, 1},
      {1, 1, 1}}},
    {kChannelsLastGather,
     IndexLayout::ChannelsLast,
     {"channels-last 2x2x2, 16 channels", {1, 16, 2, 4, 4}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}}},
    // Rows that pairs cover exactly: whole chunks, then a masked chunk of the outputs left (12 with 16 lanes,
    // 4 with 8); rows of 14, which only the pairs take, a masked chunk alone with 8 or 16 lanes.
    {kDenseGather,
     IndexLayout::Contiguous,
     {"planar 1x2x2, rows of 56 (pairs, then a masked pair chunk)", {2, 3, 1, 4, 56}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0},
      {1, 1, 1}}},
    {kDenseGather,
     IndexLayout::Contiguous,
     {"planar 1x2x2, rows of 14 (a masked pair chunk)", {2, 3, 1, 6, 14}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}}},
};

void expectEveryPatternIsPlusZeroPlusGradient(const std::vector<int> &threadCounts, bool dense = true) {
    uint64_t seed = 100;
    for (const Layout &layout : layouts)
        if (dense || layout.layout != IndexLayout::Contiguous)
            for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
                for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                    for (const int threads : threadCounts) {
                        IndexBackwardCase problem =
                            test_support::indexCaseOf(layout.geometry, type, indexType, layout.layout, ++seed);
                        std::mt19937_64 rng(seed);
                        std::vector<uint16_t> gradients(problem.gradOutput.size());
                        const std::vector<uint16_t> named = namedPatterns(type);
                        for (size_t q = 0; q < gradients.size(); ++q)
                            gradients[q] = q < named.size() ? named[q] : static_cast<uint16_t>(rng());
                        SCOPED_TRACE(std::string(layout.geometry.label) + ", " + problem.describe() + ", threads " +
                                     std::to_string(threads));
                        ThreadSetting setting(threads, 1);
                        const SixteenBitRun run = runWithBits(problem, gradients, layout.implementation);
                        ASSERT_EQ(run.status.phaseOne, 0) << run.message;
                        ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
                        EXPECT_EQ(run.implementation, layout.implementation);
                        EXPECT_EQ(run.fallback, "");
                        EXPECT_EQ(run.bytesOutsideViewChanged, 0);
                        const std::vector<uint16_t> expected = expectedGradInput(problem, gradients);
                        ASSERT_EQ(run.gradInput.size(), expected.size());
                        int64_t wrong = 0;
                        for (size_t i = 0; i < expected.size(); ++i)
                            if (run.gradInput[i] != expected[i] && ++wrong <= 5)
                                ADD_FAILURE() << "element " << i << ": 0x" << std::hex << run.gradInput[i]
                                              << ", expected 0x" << expected[i];
                        EXPECT_EQ(wrong, 0);
                        const SixteenBitRun scatter = runWithBits(problem, gradients, kScatterReference);
                        ASSERT_EQ(scatter.status.phaseTwo, 0) << scatter.message;
                        EXPECT_EQ(run.gradInput, scatter.gradInput);
                    }
}

TEST(IndexGatherBackwardSixteenBit, EveryPatternIsPlusZeroPlusGradientRoundedOnce) {
    expectEveryPatternIsPlusZeroPlusGradient({1, 2, 3});
}

// The instruction sets below the best one take other paths (no 16-bit masked loads and stores, another
// vector width, one lane); each this CPU has runs the same checks, chosen through Highway's dispatch.
TEST(IndexGatherBackwardSixteenBit, EveryInstructionSetGivesTheSameBits) {
    const std::pair<int64_t, const char *> targets[] = {
        {HWY_AVX2, " 8 lanes"}, {HWY_SSE4, " 4 lanes"}, {HWY_SCALAR, " 1 lanes"}};
    for (const auto &[target, lanes] : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        SCOPED_TRACE(hwy::TargetName(target));
        // The dense gather's plan names the lanes of the instruction set the dispatch chose.
        const IndexBackwardCase probe =
            test_support::indexCaseOf(layouts[0].geometry, ACL_FLOAT, ACL_INT32, IndexLayout::Contiguous, 1);
        const std::string plan = test_support::runIndexBackward(probe, kDenseGather).plan;
        ASSERT_NE(plan.find(lanes), std::string::npos) << plan;
        // One lane makes no pairs, and the dense gather takes 16-bit gradients in pairs only.
        expectEveryPatternIsPlusZeroPlusGradient({1, 2}, target != HWY_SCALAR);
    }
}

TEST(IndexGatherBackwardSixteenBit, ExactPatterns) {
    // A 1x64 plane, windows 1x1x2 at their own stride: the first eight of the 32 outputs send their gradient
    // to a chosen column of their window, the others name no element (-1). Written out: -0 gives +0; a signalling NaN
    // comes out quiet (float16 bit 9, bfloat16 bit 6) with its sign and payload; quiet NaNs, subnormals and Inf are
    // kept as they are.
    struct Expected {
        aclDataType type;
        std::array<uint16_t, 8> gradients, results;
    };
    const Expected cases[] = {
        {ACL_FLOAT16,
         {0x8000, 0x7c01, 0xfd55, 0x7e37, 0x0001, 0x83ff, 0xfc00, 0x7bff},
         {0x0000, 0x7e01, 0xff55, 0x7e37, 0x0001, 0x83ff, 0xfc00, 0x7bff}},
        {ACL_BF16,
         {0x8000, 0x7f81, 0xffa5, 0x7fc3, 0x0001, 0x807f, 0xff80, 0x7f7f},
         {0x0000, 0x7fc1, 0xffe5, 0x7fc3, 0x0001, 0x807f, 0xff80, 0x7f7f}},
    };
    ThreadSetting setting(2, 1);
    for (const Expected &expected : cases)
        for (const Layout *layout : {&layouts[0], &layouts[3]}) {
            IndexBackwardCase problem;
            // Channels-last takes 16-bit gradients from 16 channels on: channel 0 carries the patterns.
            const int64_t channels = layout->layout == IndexLayout::ChannelsLast ? 16 : 1;
            problem.inputShape = {1, channels, 1, 1, 64};
            problem.params.kernel = {1, 1, 2};
            problem.params.stride = {1, 1, 2};
            problem.type = expected.type;
            problem.layout = layout->layout;
            problem.prepare();
            ASSERT_EQ(problem.gradOutput.size(), static_cast<size_t>(32 * channels));
            problem.indices.assign(problem.gradOutput.size(), -1);
            const std::array<int64_t, 8> chosen{0, 3, 4, 7, 8, 11, 12, 15};
            std::copy(chosen.begin(), chosen.end(), problem.indices.begin());
            std::vector<uint16_t> gradients(problem.gradOutput.size(), 0x3c00);
            std::copy(expected.gradients.begin(), expected.gradients.end(), gradients.begin());
            SCOPED_TRACE(std::string(layout->implementation) + ", " + problem.describe());
            const SixteenBitRun run = runWithBits(problem, gradients, layout->implementation);
            ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
            EXPECT_EQ(run.implementation, layout->implementation);
            EXPECT_EQ(run.fallback, "");
            std::vector<uint16_t> wanted(static_cast<size_t>(64 * channels), 0);
            for (size_t q = 0; q < 8; ++q) wanted[static_cast<size_t>(problem.indices[q])] = expected.results[q];
            EXPECT_EQ(run.gradInput, wanted);
        }
}

}  // namespace
