// aclnnMaxPoolV3Grad's implementations one by one, through the public API only: the plan each makes in
// phase 1 (poolgradGetLastRunReport().plan, exact texts at a fixed thread count), exact small cases of
// the 3x3 stride-2 vector rows (first match wins, output-ordered float32 sums, NaN and missing matches
// dropped, -0 == +0), and random differential cases against the independent naive reference
// (tests/reference/naive_max_pool_v3.*) with every implementation forced on problems its plan accepts,
// at 1, 2 and 3 threads, over float32 and float16 (the operator's dtypes: no bfloat16), NCHW and NHWC,
// overlapping and disjoint windows, clipped edges and widths that are not multiples of a vector.
// Outputs are poisoned before every run; the report must name the forced implementation.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_max_pool_v3.h"
#include "support/highway_target_mock.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"
#include "support/host_vectors.h"

namespace {

using max_pool_v3_test::V3Attributes;
using test_support::TestTensor;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const char *const k3x3Stride2 = "cpu_recompute_argmax_backward_3x3_stride2";
const char *const kChannelsLast3x3Stride2 = "cpu_recompute_argmax_backward_channels_last_3x3_stride2";
const char *const kDisjoint = "cpu_recompute_argmax_backward_disjoint";
const char *const kDense = "cpu_recompute_argmax_backward_dense";
const char *const kChannelsLast = "cpu_recompute_argmax_backward_channels_last";
const char *const kReference = "cpu_recompute_argmax_backward_reference";
const char *const kStride1 = "cpu_recompute_argmax_backward_stride1";
const char *const kStride1Separable = "cpu_recompute_argmax_backward_stride1_separable";

// Threads and the forced implementation for one test; restored after it.
class ForcedRun {
public:
    ForcedRun(const char *implementation, int threads) {
        EXPECT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
        EXPECT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
        EXPECT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);  // split even small problems
    }
    ~ForcedRun() {
        poolgradForceImplementation(nullptr);
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
    }
};

struct Problem {
    aclDataType type = ACL_FLOAT;
    bool nhwc = false;
    int64_t n = 1, c = 1, h = 1, w = 1;
    reference::MaxPoolV3Params params;

    reference::MaxPoolV3Windows windows() const { return reference::maxPoolV3Windows(h, w, params); }
    V3Attributes attributes() const {
        V3Attributes a;
        const auto &p = params;
        a.ksize =
            nhwc ? std::vector<int64_t>{1, p.kernelH, p.kernelW, 1} : std::vector<int64_t>{1, 1, p.kernelH, p.kernelW};
        a.strides =
            nhwc ? std::vector<int64_t>{1, p.strideH, p.strideW, 1} : std::vector<int64_t>{1, 1, p.strideH, p.strideW};
        a.paddingMode = "CALCULATED";
        a.pads = std::vector<int64_t>(p.pads.begin(), p.pads.end());
        a.dataFormat = nhwc ? "NHWC" : "NCHW";
        a.ceilMode = p.ceilMode;
        return a;
    }
    std::string describe() const {
        const auto &p = params;
        return std::string(type == ACL_FLOAT ? "fp32" : "fp16") + (nhwc ? " NHWC" : " NCHW") + " n" +
               std::to_string(n) + "c" + std::to_string(c) + "h" + std::to_string(h) + "w" + std::to_string(w) + " k" +
               std::to_string(p.kernelH) + "x" + std::to_string(p.kernelW) + " s" + std::to_string(p.strideH) + "x" +
               std::to_string(p.strideW) + " pads[" + std::to_string(p.pads[0]) + "," + std::to_string(p.pads[1]) +
               "," + std::to_string(p.pads[2]) + "," + std::to_string(p.pads[3]) + "] ceil" +
               std::to_string(p.ceilMode);
    }
};

struct Outcome {
    aclnnStatus phaseOne = -1, phaseTwo = -1;
    std::string implementation, plan, fallback;
    std::vector<uint64_t> bits;  // outGrad, logical (N,C,H,W) order
    std::vector<float> expectedSums;
};

// Runs the problem on the given logical values (outGrad poisoned first) and reports what ran.
// outGradOffset: outGrad's view starts that many elements into its storage (dense strides still), so that
// its rows leave the cache-line alignment of the storage.
Outcome run(const Problem &p, const std::vector<double> &input, const std::vector<double> &output,
            const std::vector<double> &grad, int64_t outGradOffset = 0) {
    const reference::MaxPoolV3Windows win = p.windows();
    const auto inShape = max_pool_v3_test::layoutShape(p.nhwc, p.n, p.c, p.h, p.w);
    const auto outShape = max_pool_v3_test::layoutShape(p.nhwc, p.n, p.c, win.outH, win.outW);
    std::vector<int64_t> denseStrides(inShape.size(), 1);
    for (size_t i = inShape.size() - 1; i > 0; --i) denseStrides[i - 1] = denseStrides[i] * inShape[i];
    TestTensor origInput(inShape, p.type), origOutput(outShape, p.type), gradTensor(outShape, p.type),
        outGrad(inShape, denseStrides, outGradOffset, p.type);
    max_pool_v3_test::storeLogical(origInput, p.nhwc, p.n, p.c, p.h, p.w, input);
    max_pool_v3_test::storeLogical(origOutput, p.nhwc, p.n, p.c, win.outH, win.outW, output);
    max_pool_v3_test::storeLogical(gradTensor, p.nhwc, p.n, p.c, win.outH, win.outW, grad);
    outGrad.poison();
    Outcome outcome;
    const max_pool_v3_test::V3Status status =
        max_pool_v3_test::runMaxPoolV3Grad(origInput, origOutput, gradTensor, p.attributes(), outGrad);
    outcome.phaseOne = status.phaseOne;
    outcome.phaseTwo = status.phaseTwo;
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    outcome.implementation = report.implementation ? report.implementation : "";
    outcome.plan = report.plan ? report.plan : "";
    outcome.fallback = report.fallback ? report.fallback : "";
    outcome.bits = max_pool_v3_test::loadLogicalBits(outGrad, p.nhwc, p.n, p.c, p.h, p.w);
    EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
    outcome.expectedSums = reference::maxPoolV3GradSums(
        max_pool_v3_test::loadLogical(origInput, p.nhwc, p.n, p.c, p.h, p.w),
        max_pool_v3_test::loadLogical(origOutput, p.nhwc, p.n, p.c, win.outH, win.outW),
        max_pool_v3_test::loadLogical(gradTensor, p.nhwc, p.n, p.c, win.outH, win.outW), p.n, p.c, p.h, p.w, p.params);
    return outcome;
}

// Every element bit for bit against the reference's float32 sums rounded once (any NaN for a NaN sum).
void expectMatchesReference(const Problem &p, const Outcome &outcome) {
    ASSERT_EQ(outcome.bits.size(), outcome.expectedSums.size());
    int mismatches = 0;
    for (size_t i = 0; i < outcome.bits.size() && mismatches < 5; ++i) {
        const float sum = outcome.expectedSums[i];
        const bool ok = std::isnan(sum) ? max_pool_v3_test::bitsAreNan(p.type, outcome.bits[i])
                                        : outcome.bits[i] == max_pool_v3_test::bitsIn(p.type, sum);
        if (!ok) {
            ++mismatches;
            ADD_FAILURE() << "outGrad logical element " << i << ": bits 0x" << std::hex << outcome.bits[i]
                          << ", expected float sum " << std::dec << sum;
        }
    }
}

Problem problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t pad,
                aclDataType type = ACL_FLOAT, bool nhwc = false) {
    Problem p;
    p.type = type;
    p.nhwc = nhwc;
    p.n = n;
    p.c = c;
    p.h = h;
    p.w = w;
    p.params.kernelH = p.params.kernelW = k;
    p.params.strideH = p.params.strideW = s;
    p.params.pads = {pad, pad, pad, pad};
    return p;
}

std::vector<double> iota(size_t count) {
    std::vector<double> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<double>(i % 7);
    return values;
}

// ------------------------------------------------------------------------------------ plans

Outcome runForced(const char *implementation, const Problem &p) {
    const ForcedRun forced(implementation, 2);
    const auto win = p.windows();
    const size_t in = static_cast<size_t>(p.n * p.c * p.h * p.w),
                 out = static_cast<size_t>(p.n * p.c * win.outH * win.outW);
    Outcome outcome = run(p, iota(in), iota(out), std::vector<double>(out, 1.0));
    EXPECT_EQ(outcome.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.implementation, implementation);
    EXPECT_EQ(outcome.fallback, "");
    expectMatchesReference(p, outcome);
    return outcome;
}

TEST(MaxPoolV3GradPlans, EachImplementationDescribesItsPlan) {
    EXPECT_EQ(runForced(k3x3Stride2, problem(1, 4, 16, 16, 3, 2, 1)).plan,
              "3x3 stride-2 rows: 64 windows a row, rows in place, 1 band a plane, cached stores, threads=2");
    // float16 rows are widened into padded copies.
    EXPECT_EQ(runForced(k3x3Stride2, problem(1, 4, 16, 16, 3, 2, 1, ACL_FLOAT16)).plan,
              "3x3 stride-2 rows: 64 windows a row, rows of 144 floats, 1 band a plane, cached stores, threads=2");
    EXPECT_EQ(runForced(kChannelsLast3x3Stride2, problem(2, 4, 16, 16, 3, 2, 1, ACL_FLOAT, true)).plan,
              "3x3 stride-2 channels-last rows, 2 bands an image, cached stores, threads=2");
    // One plane for three threads: bands of output rows (ceil(2*3/1) = 6, and threads=3).
    {
        const ForcedRun forced(k3x3Stride2, 3);
        const Problem p = problem(1, 1, 40, 24, 3, 2, 1);
        const auto win = p.windows();
        const Outcome outcome =
            run(p, iota(static_cast<size_t>(p.h * p.w)), iota(static_cast<size_t>(win.outH * win.outW)),
                std::vector<double>(static_cast<size_t>(win.outH * win.outW), 1.0));
        EXPECT_EQ(outcome.plan,
                  "3x3 stride-2 rows: 64 windows a row, rows in place, 6 bands a plane, cached "
                  "stores, threads=3");
        expectMatchesReference(p, outcome);
    }
    EXPECT_EQ(runForced(kDisjoint, problem(1, 4, 16, 16, 2, 2, 0)).plan,
              "disjoint rows written once, cached stores, threads=2");
    EXPECT_EQ(runForced(kDense, problem(1, 4, 16, 16, 3, 1, 1)).plan,
              "simd row search, sums in a scratch plane (windows [1, 15) of a row), cached stores, threads=2");
    EXPECT_EQ(runForced(kDense, problem(1, 4, 16, 16, 3, 1, 1, ACL_FLOAT16)).plan,
              "simd row search, sums in a scratch plane (windows [1, 15) of a row; float16 planes widened to "
              "float32), cached stores, threads=2");
    EXPECT_EQ(runForced(kChannelsLast, problem(2, 4, 16, 16, 3, 2, 1, ACL_FLOAT, true)).plan,
              "ring of 3 rows of sums, 2 bands an image, cached stores, threads=2");
    // 3x3 at stride 1 padded by 1 on 16 columns: windows 1..15 hold three whole columns and slide.
    EXPECT_EQ(runForced(kChannelsLast, problem(2, 4, 16, 16, 3, 1, 1, ACL_FLOAT, true)).plan,
              "ring of 3 rows of sums, 2 bands an image, cached stores, 3x3 windows 1..15 of a row sliding in "
              "registers, threads=2");
    EXPECT_EQ(runForced(kChannelsLast, problem(2, 4, 16, 16, 3, 1, 1, ACL_FLOAT16, true)).plan,
              "ring of 3 rows of sums, 2 bands an image, cached stores, threads=2");
    EXPECT_EQ(runForced(kReference, problem(1, 4, 16, 16, 3, 2, 1)).plan,
              "sums in tiles of 256 positions, cached stores, threads=2");
}

// Without a forced implementation, p goes to `implementation` and matches the reference.
void expectChosenByDefault(const Problem &p, const char *implementation) {
    ASSERT_EQ(poolgradSetParallelThreshold(0), ACL_SUCCESS);
    const auto win = p.windows();
    const size_t in = static_cast<size_t>(p.n * p.c * p.h * p.w),
                 out = static_cast<size_t>(p.n * p.c * win.outH * win.outW);
    const Outcome outcome = run(p, iota(in), iota(out), std::vector<double>(out, 0.5));
    EXPECT_EQ(outcome.implementation, implementation);
    expectMatchesReference(p, outcome);
}

TEST(MaxPoolV3GradPlans, The3x3Stride2RowsAreChosenForK3S2) {
    expectChosenByDefault(problem(2, 3, 9, 21, 3, 2, 1), k3x3Stride2);
}

TEST(MaxPoolV3GradPlans, TheChannelsLast3x3Stride2RowsAreChosenForNhwcK3S2) {
    expectChosenByDefault(problem(2, 19, 9, 21, 3, 2, 1, ACL_FLOAT16, true), kChannelsLast3x3Stride2);
}

// gradInput over 4 MiB: the finished rows are stored past the caches (streaming stores), and still right;
// unless its rows are not whole cache lines (181 float32), whose ends would take plain stores among the
// streaming ones. The channels-last rows stream by default only with vectors of a whole line (AVX-512):
// with narrower ones (AVX2 and below, mocked here too) only when streaming is chosen always.
TEST(MaxPoolV3GradPlans, LargeOutputsStreamTheirRows) {
    const bool lineVectors = test_support::targetDispatchable(HWY_AVX3 | HWY_AVX3_DL);
    struct Setting {
        int32_t choice;
        int64_t target;  // 0: the best this CPU has
    };
    for (const Setting setting :
         {Setting{POOLGRAD_STREAMING_STORES_AUTOMATIC, 0}, Setting{POOLGRAD_STREAMING_STORES_ALWAYS, 0},
          Setting{POOLGRAD_STREAMING_STORES_AUTOMATIC, HWY_AVX2}})
        for (const bool nhwc : {false, true})
            for (const int64_t width : {192, 181}) {
                if (setting.target != 0 && !test_support::targetDispatchable(setting.target)) continue;
                std::optional<test_support::HighwayTargetMock> mock;
                if (setting.target != 0) mock.emplace(setting.target);
                ASSERT_EQ(poolgradSetStreamingStores(setting.choice), ACL_SUCCESS);
                const char *implementation = nhwc ? kChannelsLast3x3Stride2 : k3x3Stride2;
                SCOPED_TRACE(std::string(implementation) + ", width " + std::to_string(width) +
                             (setting.choice == POOLGRAD_STREAMING_STORES_ALWAYS ? ", always" : ", automatic") +
                             (setting.target != 0 ? ", AVX2" : ""));
                const bool streamedRows =
                    width == 192 && (!nhwc || setting.choice == POOLGRAD_STREAMING_STORES_ALWAYS ||
                                     (lineVectors && setting.target == 0));
                const ForcedRun forced(implementation, 2);
                const Problem p = problem(1, 33, 181, width, 3, 2, 1, ACL_FLOAT, nhwc);  // 4.3-4.6 MB of float32
                const auto win = p.windows();
                std::mt19937 rng(7);
                std::vector<double> input(static_cast<size_t>(p.c * p.h * p.w)),
                    output(static_cast<size_t>(p.c * win.outH * win.outW));
                for (double &v : input) v = static_cast<double>(std::uniform_int_distribution<int>(-3, 3)(rng));
                for (double &v : output) v = static_cast<double>(std::uniform_int_distribution<int>(0, 3)(rng));
                const Outcome outcome = run(p, input, output, std::vector<double>(output.size(), 0.25));
                EXPECT_EQ(outcome.implementation, implementation);
                EXPECT_EQ(outcome.plan.find("streaming stores") != std::string::npos, streamedRows) << outcome.plan;
                expectMatchesReference(p, outcome);
            }
    ASSERT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT), ACL_SUCCESS);
}

TEST(MaxPoolV3GradPlans, The3x3Stride2RowsDeclineOtherWindows) {
    const ForcedRun forced(k3x3Stride2, 1);
    for (const Problem &p :
         {problem(1, 1, 8, 8, 3, 1, 1), problem(1, 1, 8, 8, 2, 2, 0), problem(1, 1, 8, 8, 3, 3, 0)}) {
        SCOPED_TRACE(p.describe());
        const auto win = p.windows();
        const size_t in = static_cast<size_t>(p.h * p.w), out = static_cast<size_t>(win.outH * win.outW);
        const Outcome outcome = run(p, iota(in), iota(out), std::vector<double>(out, 1.0));
        EXPECT_EQ(outcome.phaseOne, 561003);
        EXPECT_NE(std::string(aclGetRecentErrMsg()).find("windows are not 3x3 at stride 2"), std::string::npos)
            << aclGetRecentErrMsg();
    }
}

// ------------------------------------------------------------------------------------ exact cases

// A 5x5 plane, 3x3 windows at stride 2 without padding: 2x2 windows, all four holding (2,2).
std::vector<double> peakAtCentre(double peak) {
    std::vector<double> input(25, 1.0);
    input[12] = peak;
    return input;
}

// The exact cases run on both 3x3 stride-2 implementations (one channel: NCHW and NHWC hold the same bytes).
class MaxPoolV3Grad3x3Stride2 : public testing::TestWithParam<bool> {
protected:
    Outcome runExact(const std::vector<double> &input, const std::vector<double> &output,
                     const std::vector<double> &grad) {
        const char *implementation = GetParam() ? kChannelsLast3x3Stride2 : k3x3Stride2;
        const ForcedRun forced(implementation, 1);
        Outcome outcome = run(problem(1, 1, 5, 5, 3, 2, 0, ACL_FLOAT, GetParam()), input, output, grad);
        EXPECT_EQ(outcome.phaseOne, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(outcome.implementation, implementation);
        return outcome;
    }
};

std::vector<uint64_t> floatBits(const std::vector<float> &values) {
    std::vector<uint64_t> bits;
    for (float v : values) bits.push_back(max_pool_v3_test::bitsIn(ACL_FLOAT, v));
    return bits;
}

TEST_P(MaxPoolV3Grad3x3Stride2, SharedElementSumsInOutputOrder) {
    // ((0 + 1e8) + 1) + -1e8 + 1 in float32 is 1; any other order gives 0 or 2.
    const Outcome outcome = runExact(peakAtCentre(5), {5, 5, 5, 5}, {1e8, 1, -1e8, 1});
    std::vector<float> expected(25, 0.0f);
    expected[12] = 1.0f;
    EXPECT_EQ(outcome.bits, floatBits(expected));
}

TEST_P(MaxPoolV3Grad3x3Stride2, FirstMatchInScanOrderWins) {
    // Every element ties: each window's gradient goes to its top-left element.
    const Outcome outcome = runExact(std::vector<double>(25, 3.0), {3, 3, 3, 3}, {1, 2, 4, 8});
    std::vector<float> expected(25, 0.0f);
    expected[0] = 1;
    expected[2] = 2;
    expected[10] = 4;
    expected[12] = 8;
    EXPECT_EQ(outcome.bits, floatBits(expected));
}

TEST_P(MaxPoolV3Grad3x3Stride2, NanTargetsAndMissingMatchesAreDroppedZerosMatch) {
    std::vector<double> input(25, 1.0);
    input[7] = -0.0;  // row 1, column 2: in windows (0,0) and (0,1)
    input[24] = kNaN;
    // (0,0): +0 matches the -0 at (1,2); (0,1): NaN target, dropped; (1,0): 9 is nowhere, dropped; (1,1): the
    // 1 at (2,2) comes before the NaN at (4,4).
    const Outcome outcome = runExact(input, {0.0, kNaN, 9, 1}, {-0.0, 5, 6, 7});
    std::vector<float> expected(25, 0.0f);
    expected[7] = 0.0f;  // 0 + -0 is +0
    expected[12] = 7.0f;
    EXPECT_EQ(outcome.bits, floatBits(expected));
}

TEST_P(MaxPoolV3Grad3x3Stride2, NegativeZeroGradientGivesPositiveZero) {
    const Outcome outcome = runExact(std::vector<double>(25, 2.0), {2, 2, 2, 2}, {-0.0, -0.0, -0.0, -0.0});
    EXPECT_EQ(outcome.bits, floatBits(std::vector<float>(25, 0.0f)));
}

INSTANTIATE_TEST_SUITE_P(Layouts, MaxPoolV3Grad3x3Stride2, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool> &info) { return info.param ? "Nhwc" : "Nchw"; });

// ------------------------------------------------------------------------------------ random differential

int64_t uniform(std::mt19937 &rng, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

double randomValue(std::mt19937 &rng, bool specials) {
    if (specials) switch (uniform(rng, 0, 9)) {
            case 0:
                return kNaN;
            case 1:
                return std::numeric_limits<double>::infinity();
            case 2:
                return -0.0;
            case 3:
                return 0.0;
            default:
                break;
        }
    return static_cast<double>(uniform(rng, -3, 3));  // many ties
}

// Logical values for a problem: origOutput the true forward or perturbed (window elements, values
// nowhere, NaN, zeros), gradients that need rounding in float16.
void randomOperands(std::mt19937 &rng, const Problem &p, std::vector<double> &input, std::vector<double> &output,
                    std::vector<double> &grad) {
    const auto win = p.windows();
    const bool specials = uniform(rng, 0, 2) == 0;
    input.resize(static_cast<size_t>(p.n * p.c * p.h * p.w));
    for (double &v : input) v = randomValue(rng, specials);
    std::vector<float> asFloat(input.begin(), input.end());
    if (p.type == ACL_FLOAT16)
        for (float &v : asFloat) v = static_cast<float>(v);  // small integers and specials are exact in fp16
    const std::vector<float> forward = reference::maxPoolV3Forward(asFloat, p.n, p.c, p.h, p.w, p.params);
    output.assign(forward.begin(), forward.end());
    if (uniform(rng, 0, 1))
        for (double &v : output) switch (uniform(rng, 0, 5)) {
                case 0:
                    v = kNaN;
                    break;
                case 1:
                    v = static_cast<double>(uniform(rng, -4, 4));
                    break;
                case 2:
                    v = uniform(rng, 0, 1) ? 0.0 : -0.0;
                    break;
                default:
                    break;
            }
    grad.resize(output.size());
    for (double &g : grad) g = static_cast<double>(uniform(rng, -2048, 2048)) / 64.0;
    if (specials) grad[static_cast<size_t>(uniform(rng, 0, int64_t(grad.size()) - 1))] = kNaN;
    (void)win;
}

// Random operands for p, run with the forced implementation (which must be the one that ran; outGrad's view
// outGradOffset elements into its storage) and compared with the reference; returns the plan text.
std::string expectRandomRunMatches(std::mt19937 &rng, const Problem &p, const char *implementation,
                                   int64_t outGradOffset = 0) {
    std::vector<double> input, output, grad;
    randomOperands(rng, p, input, output, grad);
    const Outcome outcome = run(p, input, output, grad, outGradOffset);
    EXPECT_EQ(outcome.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.implementation, implementation);
    if (outcome.phaseTwo == 0) expectMatchesReference(p, outcome);
    return outcome.plan;
}

struct Family {
    const char *implementation;
    bool nhwc;
    // Draws kernel, stride and padding for a problem the implementation accepts.
    void (*windows)(std::mt19937 &rng, reference::MaxPoolV3Params &params);
};

void stride2Windows(std::mt19937 &rng, reference::MaxPoolV3Params &p) {
    p.kernelH = p.kernelW = 3;
    p.strideH = p.strideW = 2;
    for (int64_t &pad : p.pads) pad = uniform(rng, 0, 4) == 0 ? uniform(rng, 2, 4) : uniform(rng, 0, 1);
    p.ceilMode = uniform(rng, 0, 1);
}

void disjointWindows(std::mt19937 &rng, reference::MaxPoolV3Params &p) {
    p.kernelH = uniform(rng, 1, 3);
    p.kernelW = uniform(rng, 1, 3);
    p.strideH = uniform(rng, p.kernelH, p.kernelH + 2);
    p.strideW = uniform(rng, p.kernelW, p.kernelW + 2);
    for (int64_t &pad : p.pads) pad = uniform(rng, 0, 1);
    p.ceilMode = uniform(rng, 0, 1);
}

void anyWindows(std::mt19937 &rng, reference::MaxPoolV3Params &p) {
    p.kernelH = uniform(rng, 1, 4);
    p.kernelW = uniform(rng, 1, 4);
    p.strideH = uniform(rng, 1, 3);
    p.strideW = uniform(rng, 1, 3);
    for (int64_t &pad : p.pads) pad = uniform(rng, 0, 1);
    p.ceilMode = uniform(rng, 0, 1);
}

TEST(MaxPoolV3GradImplementationsDifferential, ForcedImplementationsMatchTheReference) {
    const Family families[] = {{k3x3Stride2, false, stride2Windows}, {kChannelsLast3x3Stride2, true, stride2Windows},
                               {kDisjoint, false, disjointWindows},  {kDense, false, anyWindows},
                               {kDense, false, stride2Windows},      {kChannelsLast, true, anyWindows},
                               {kReference, false, anyWindows},      {kReference, true, stride2Windows}};
    std::mt19937 rng(20261201);
    for (const Family &family : families) {
        for (int threads = 1; threads <= 3; ++threads) {
            const ForcedRun forced(family.implementation, threads);
            for (int i = 0; i < 25; ++i) {
                Problem p;
                p.type = uniform(rng, 0, 1) ? ACL_FLOAT : ACL_FLOAT16;
                p.nhwc = family.nhwc;
                p.n = uniform(rng, 1, 2);
                p.c = uniform(rng, 1, family.nhwc ? 20 : 3);
                // Widths around and past a vector of windows (16 lanes: 33+ columns) and odd ones.
                p.h = uniform(rng, 1, 20);
                p.w = uniform(rng, 1, i % 2 ? 80 : 12);
                family.windows(rng, p.params);
                const auto win = p.windows();
                if (win.outH < 1 || win.outW < 1) continue;
                SCOPED_TRACE(std::string(family.implementation) + " threads " + std::to_string(threads) + ": " +
                             p.describe());
                std::vector<double> input, output, grad;
                randomOperands(rng, p, input, output, grad);
                const Outcome outcome = run(p, input, output, grad);
                ASSERT_EQ(outcome.phaseOne, 0) << aclGetRecentErrMsg();
                ASSERT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
                EXPECT_EQ(outcome.implementation, family.implementation);
                expectMatchesReference(p, outcome);
                if (testing::Test::HasFailure()) return;
            }
        }
    }
}

// The NCHW float32 rows read their operands in place and write whole vectors of gradInput straight into
// it, from masked loads at the rows' edges and lanes moved by the left padding (0, 1 or 2 columns): every
// instruction set this CPU has, widths around one and two vectors of windows (a window is two columns),
// both kinds of store, and gradInput rows on and off cache-line boundaries (streamed rows that do not start
// on one go through a scratch row) match the reference.
TEST(MaxPoolV3GradImplementationsDifferential, Float32RowsInPlaceOnEveryInstructionSet) {
    std::mt19937 rng(20261204);
    const int64_t widths[] = {1, 2, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 34, 35, 47, 63, 64, 65, 66, 67, 96, 112, 113};
    for (const int64_t target : {int64_t{HWY_STATIC_TARGET}, int64_t{HWY_AVX3}, int64_t{HWY_AVX2},
                                 int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_NEVER, POOLGRAD_STREAMING_STORES_ALWAYS}) {
            ASSERT_EQ(poolgradSetStreamingStores(streaming), ACL_SUCCESS);
            const ForcedRun forced(k3x3Stride2, 2);
            for (const int64_t w : widths)
                for (int64_t pad = 0; pad <= 2; ++pad) {
                    Problem p = problem(uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 9), w, 3, 2, pad);
                    p.params.ceilMode = uniform(rng, 0, 1);
                    const auto win = p.windows();
                    if (win.outH < 1 || win.outW < 1) continue;
                    const int64_t offset = uniform(rng, 0, 1);
                    SCOPED_TRACE(std::string(hwy::TargetName(target)) + (streaming == POOLGRAD_STREAMING_STORES_ALWAYS
                                                                            ? " streaming"
                                                                            : " cached") +
                                 " outGrad offset " + std::to_string(offset) + ": " + p.describe());
                    const std::string plan = expectRandomRunMatches(rng, p, k3x3Stride2, offset);
                    EXPECT_NE(plan.find("rows in place"), std::string::npos) << plan;
                    if (testing::Test::HasFailure()) {
                        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
                        return;
                    }
                }
        }
    }
    poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
}

// Float16 planes under the dense entry's SIMD row search are widened into float32 copies (in hardware with
// AVX2 / AVX-512, element by element below): every instruction set this CPU has, overlapping and disjoint
// windows, widths around one and two vectors of windows, ties, +-0 and NaN in the input and in origOutput,
// match the reference, and the plan says the planes were widened.
TEST(MaxPoolV3GradImplementationsDifferential, Float16RowSearchOnEveryInstructionSet) {
    std::mt19937 rng(20261206);
    const int64_t widths[] = {1, 7, 16, 17, 33, 40, 64, 65, 97};
    for (const int64_t target : {int64_t{HWY_STATIC_TARGET}, int64_t{HWY_AVX3}, int64_t{HWY_AVX2},
                                 int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        const ForcedRun forced(kDense, 2);
        for (const int64_t w : widths)
            for (int shape = 0; shape < 2; ++shape) {
                Problem p;
                p.type = ACL_FLOAT16;
                p.n = uniform(rng, 1, 2);
                p.c = uniform(rng, 1, 3);
                p.h = uniform(rng, 1, 12);
                p.w = w;
                (shape == 0 ? anyWindows : disjointWindows)(rng, p.params);
                const auto win = p.windows();
                if (win.outH < 1 || win.outW < 1) continue;
                SCOPED_TRACE(std::string(hwy::TargetName(target)) + ": " + p.describe());
                const std::string plan = expectRandomRunMatches(rng, p, kDense);
                EXPECT_NE(plan.find("float16 planes widened"), std::string::npos) << plan;
                if (testing::Test::HasFailure()) return;
            }
    }
}

// The dense entry's float32 row search (firstMatchPositions) has code made for each window width up to 7 and a
// loop over the taps beyond: every width from 1 to 10, window heights 1-3, strides 1 (contiguous loads), 2
// (de-interleaving loads) and 3 (gathers), rows of 16 to 40 windows and a few more, on every instruction set
// this CPU has, with ties, +-0, NaN and origOutput values that match late or nowhere, match the reference.
TEST(MaxPoolV3GradImplementationsDifferential, Float32RowSearchOfEveryWindowWidthOnEveryInstructionSet) {
    std::mt19937 rng(20261205);
    for (const int64_t target : {int64_t{HWY_STATIC_TARGET}, int64_t{HWY_AVX3}, int64_t{HWY_AVX2},
                                 int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        const ForcedRun forced(kDense, 2);
        for (int64_t kernelWidth = 1; kernelWidth <= 10; ++kernelWidth)
            for (int64_t stride = 1; stride <= 3; ++stride) {
                Problem p;
                p.n = 1;
                p.c = uniform(rng, 1, 2);
                p.params.kernelH = uniform(rng, 1, 3);
                p.params.kernelW = kernelWidth;
                p.params.strideH = uniform(rng, 1, 2);
                p.params.strideW = stride;
                p.params.pads = {uniform(rng, 0, p.params.kernelH / 2), uniform(rng, 0, kernelWidth / 2),
                                 uniform(rng, 0, p.params.kernelH / 2), uniform(rng, 0, kernelWidth / 2)};
                p.h = uniform(rng, p.params.kernelH, 9);
                p.w = kernelWidth + stride * uniform(rng, 15, 40) + uniform(rng, 0, stride);
                const auto win = p.windows();
                if (win.outH < 1 || win.outW < 1) continue;
                SCOPED_TRACE(std::string(hwy::TargetName(target)) + ": " + p.describe());
                const std::string plan = expectRandomRunMatches(rng, p, kDense);
                // 1x1 windows are disjoint: a copy, not a search.
                if (p.params.kernelH * kernelWidth > 1)
                    EXPECT_NE(plan.find("simd row search"), std::string::npos) << plan;
                if (testing::Test::HasFailure()) return;
            }
    }
}

// Random channels-last 3x3 stride-2 problems of each channel count (float16 for odd counts), H and W drawn
// from the ranges, forced onto the channels-last 3x3 stride-2 rows on each of `targets` this CPU has: each
// matches the reference.
struct ChannelsLastSizes {
    int64_t batch, heightLow, heightHigh, widthLow, widthHigh;
};
void expectChannelsLast3x3Stride2OnTargets(std::initializer_list<int64_t> targets,
                                           std::initializer_list<int64_t> channelCounts, const ChannelsLastSizes &sizes,
                                           std::mt19937 &rng) {
    for (const int64_t target : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        const ForcedRun forced(kChannelsLast3x3Stride2, 2);
        for (const int64_t channels : channelCounts) {
            Problem p;
            p.type = channels % 2 ? ACL_FLOAT16 : ACL_FLOAT;
            p.nhwc = true;
            p.n = sizes.batch;
            p.c = channels;
            p.h = uniform(rng, sizes.heightLow, sizes.heightHigh);
            p.w = uniform(rng, sizes.widthLow, sizes.widthHigh);
            stride2Windows(rng, p.params);
            const auto win = p.windows();
            if (win.outH < 1 || win.outW < 1) continue;
            SCOPED_TRACE(std::string(hwy::TargetName(target)) + ": " + p.describe());
            expectRandomRunMatches(rng, p, kChannelsLast3x3Stride2);
        }
    }
}

// Below AVX-512 a vector of channels is narrower than a cache line and the channels-last 3x3 stride-2 rows
// take two vectors a walk (then one, then single channels): each instruction set this CPU has, with channel
// counts that leave every kind of remainder, matches the reference.
TEST(MaxPoolV3GradImplementationsDifferential, ChannelsLast3x3Stride2OnEveryInstructionSet) {
    std::mt19937 rng(20261202);
    expectChannelsLast3x3Stride2OnTargets({HWY_AVX2, HWY_SSE4, HWY_SCALAR}, {8, 16, 19, 24, 33, 40}, {2, 3, 12, 3, 40},
                                          rng);
}

// The channels-last 3x3 stride-2 rows walk a row in blocks of windows (about 4 KiB of every operand's
// columns), each group of channels in turn, and carry the last window's third column to the next block: few
// channels make blocks of many windows, so wide rows cross several blocks, the last one partial (W 150 to
// 330: 74 to 165 windows, blocks of 73 windows at one channel). Each instruction set this CPU has, the
// widest included, matches the reference.
TEST(MaxPoolV3GradImplementationsDifferential, ChannelsLast3x3Stride2RowsCrossWindowBlocks) {
    std::mt19937 rng(20261206);
    expectChannelsLast3x3Stride2OnTargets({HWY_STATIC_TARGET, HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR}, {1, 2, 5, 17},
                                          {1, 3, 7, 150, 330}, rng);
}

// ------------------------------------------------------------------------------------ stride-1 gather

// A problem with its own kernel and pads ([top, bottom, left, right]) at stride 1.
Problem stride1Problem(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kernelH, int64_t kernelW,
                       std::array<int64_t, 4> pads, aclDataType type = ACL_FLOAT) {
    Problem p = problem(n, c, h, w, 1, 1, 0, type);
    p.params.kernelH = kernelH;
    p.params.kernelW = kernelW;
    p.params.pads = {pads[0], pads[1], pads[2], pads[3]};
    return p;
}

TEST(MaxPoolV3GradPlans, Stride1GatherDescribesItsPlanAndIsChosenForStride1) {
    // 16 columns: one vector of columns, so four input rows a group and a ring of bit_ceil(3 + 4) rows; four
    // items a thread (four planes cut in two blocks of input rows).
    EXPECT_EQ(runForced(kStride1, problem(1, 4, 16, 16, 3, 1, 1)).plan,
              "stride-1 first matches (3x3 taps unrolled) gathered, 3x3 windows from padding 1,1, 4 input rows at a "
              "time from a ring of 8 padded output rows; 2 blocks of input rows per plane, 8 items on 2 threads");
    // 56 columns: four vectors, one row a group, a ring of bit_ceil(5 + 1); two planes cut in four.
    EXPECT_EQ(runForced(kStride1, stride1Problem(1, 2, 20, 56, 5, 2, {2, 2, 1, 0})).plan,
              "stride-1 first matches gathered, 5x2 windows from padding 2,1, 1 input row at a time from a ring of "
              "8 padded output rows; 4 blocks of input rows per plane, 8 items on 2 threads");
    // Rows of 41 windows: more than the separable flat search takes.
    expectChosenByDefault(problem(2, 3, 12, 41, 3, 1, 1), kStride1);
}

// A problem an implementation must decline, and the words its reason must hold.
struct Declined {
    Problem problem;
    const char *reason;
};

// Each case, forced onto the implementation, fails phase 1 with 561003 and the reason in the message.
void expectDeclines(const char *implementation, std::initializer_list<Declined> cases) {
    const ForcedRun forced(implementation, 1);
    for (const Declined &declined : cases) {
        const Problem &p = declined.problem;
        SCOPED_TRACE(p.describe());
        const auto win = p.windows();
        const size_t in = static_cast<size_t>(p.n * p.c * p.h * p.w),
                     out = static_cast<size_t>(p.n * p.c * win.outH * win.outW);
        const Outcome outcome = run(p, iota(in), iota(out), std::vector<double>(out, 1.0));
        EXPECT_EQ(outcome.phaseOne, 561003);
        EXPECT_NE(std::string(aclGetRecentErrMsg()).find(declined.reason), std::string::npos) << aclGetRecentErrMsg();
    }
}

TEST(MaxPoolV3GradPlans, Stride1GatherDeclinesWhatItCannotTake) {
    Problem nhwc = problem(1, 2, 8, 16, 3, 1, 1);
    nhwc.nhwc = true;
    expectDeclines(kStride1, {
        {problem(1, 1, 8, 16, 3, 1, 1, ACL_FLOAT16), "float16 planes: the dense recompute widens them whole"},
        {nhwc, "input planes are not dense row-major"},
        {problem(1, 1, 8, 16, 3, 2, 1), "height windows do not move by 1 without dilation"},
        {problem(1, 1, 16, 16, 7, 1, 3), "windows of 7x7 taps: an element lies in more than 25"},
        {problem(1, 1, 8, 16, 1, 1, 0), "1x1 windows do not overlap"},
        {problem(1, 1, 8, 5, 3, 1, 1), "rows of 5 columns, fewer than 8"},
        // Pads of a whole kernel: windows wholly in padding, which send nothing.
        {stride1Problem(1, 1, 8, 16, 3, 3, {0, 0, 3, 3}), "width window 0 is not the kernel's clipped run"},
    });
}

// One row of 8 under 1x3 windows with one column of padding each side (8 windows, window ow covering columns
// ow - 1 .. ow + 1). The peak 5 at column 3 is the first match of windows 2, 3 and 4, whose gradients 2^25, 2
// and -2^25 sum to +0 only in that order (2^25 + 2 rounds back to 2^25; the other way round the sum is 2); the
// zeros' first matches are the first zero of each window, -0 among them (+0 == -0). Window 1's target is NaN
// and window 7's matches nothing: both dropped.
// The exact stride-1 cases run on both stride-1 implementations (the separable one scatters a plane of one row, and
// gathers the three-row plane in blocks of input rows on one thread).
class MaxPoolV3GradStride1 : public testing::TestWithParam<const char *> {};

TEST_P(MaxPoolV3GradStride1, ExactSumsOfFirstMatchesInOutputOrder) {
    const ForcedRun forced(GetParam(), 1);
    const Problem p = stride1Problem(1, 1, 1, 8, 1, 3, {0, 0, 1, 1});
    ASSERT_EQ(p.windows().outW, 8);
    const std::vector<double> input = {-0.0, 0, 0, 5, 0, 0, 0, 0};
    const std::vector<double> output = {0, kNaN, 5, 5, 5, 0, 0, 9};
    const double big = std::ldexp(1.0, 25);
    const std::vector<double> grad = {1, 2, big, 2, -big, 32, 64, 128};
    const Outcome outcome = run(p, input, output, grad);
    ASSERT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.implementation, GetParam());
    // Column 0 (-0, the first zero of windows 0 and 1): 1 (window 1 dropped); column 3: +0; column 4: window 5's
    // first zero, 32; column 5: window 6's, 64 (window 7 dropped).
    EXPECT_EQ(outcome.bits, floatBits({1, 0, 0, 0, 32, 64, 0, 0}));
}

// Three rows of 8 under 3x1 windows with one row of padding above and below: the peak 5 at (1, 0) is the first
// match of column 0's three windows, whose gradients 2^25, 2, -2^25 must be summed in output-row order (+0; 2
// the other way); elsewhere the zeros' first matches are row 0 for output rows 0 and 1 and row 1 for output row
// 2, each with gradient 1.
TEST_P(MaxPoolV3GradStride1, ExactSumsInOutputRowOrder) {
    const ForcedRun forced(GetParam(), 1);
    const Problem p = stride1Problem(1, 1, 3, 8, 3, 1, {1, 1, 0, 0});
    ASSERT_EQ(p.windows().outH, 3);
    std::vector<double> input(24, 0.0), output(24, 0.0), grad(24, 1.0);
    input[8] = 5;
    const double big = std::ldexp(1.0, 25);
    output[0] = output[8] = output[16] = 5;
    grad[0] = big, grad[8] = 2, grad[16] = -big;
    const Outcome outcome = run(p, input, output, grad);
    ASSERT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.implementation, GetParam());
    std::vector<float> expected(24, 0.0f);
    for (int w = 1; w < 8; ++w) expected[static_cast<size_t>(w)] = 2, expected[static_cast<size_t>(8 + w)] = 1;
    EXPECT_EQ(outcome.bits, floatBits(expected));
}

// Targets that are not their window's maximum: the separable search's winner (the maximum, first of equal
// values) is not the first match, and each such window is searched element by element. One row of 8 under 1x3
// windows, no padding (6 windows over columns ow .. ow + 2): window 0's target 1 first matches column 0 (not the
// 4 at column 1); window 1's target -0 matches the +0 at column 3; window 2's target 2 matches nothing (dropped);
// window 3's target NaN is dropped; windows 4 and 5 take their maxima, the 9 at column 6 (4 + 8).
TEST_P(MaxPoolV3GradStride1, TargetsThatAreNotTheMaximumTakeTheirFirstMatch) {
    const ForcedRun forced(GetParam(), 1);
    const Problem p = stride1Problem(1, 1, 1, 8, 1, 3, {0, 0, 0, 0});
    ASSERT_EQ(p.windows().outW, 6);
    const std::vector<double> input = {1, 4, 1, 0, 3, 1, 9, 1};
    const std::vector<double> output = {1, -0.0, 2, kNaN, 9, 9};
    const std::vector<double> grad = {1, 2, 16, 32, 4, 8};
    const Outcome outcome = run(p, input, output, grad);
    ASSERT_EQ(outcome.phaseTwo, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(outcome.implementation, GetParam());
    EXPECT_EQ(outcome.bits, floatBits({1, 0, 0, 2, 0, 0, 12, 0}));
}

INSTANTIATE_TEST_SUITE_P(Implementations, MaxPoolV3GradStride1, testing::Values(kStride1, kStride1Separable),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return std::string(info.param) == kStride1 ? "FirstMatchSearch" : "SeparableSearch";
                         });

TEST(MaxPoolV3GradPlans, SeparableStride1DescribesItsPlansAndIsChosenForNarrowRows) {
    // 2 x 32 planes of 20 x 20 for two threads: whole planes, scattered.
    EXPECT_EQ(runForced(kStride1Separable, problem(2, 32, 20, 20, 5, 1, 2)).plan,
              "stride-1 flat window winners checked against origOutput, rows 24 floats apart, 5x5 windows from padding "
              "2,2, scattered 4 planes interleaved; 1 block of input rows per plane, 64 items on 2 threads");
    // One plane for two threads: eight blocks of input rows, gathered.
    EXPECT_EQ(runForced(kStride1Separable, problem(1, 1, 16, 16, 3, 1, 1)).plan,
              "stride-1 flat window winners checked against origOutput, rows 18 floats apart, gathered, 3x3 windows "
              "from padding 1,1, 4 input rows at a time from a ring of 8 padded output rows; 8 blocks of input rows "
              "per plane, 8 items on 2 threads");
    expectChosenByDefault(problem(2, 8, 20, 20, 5, 1, 2), kStride1Separable);
    expectChosenByDefault(problem(1, 2, 17, 35, 3, 1, 1), kStride1Separable);
}

TEST(MaxPoolV3GradPlans, SeparableStride1DeclinesWhatItCannotTake) {
    Problem nhwc = problem(1, 2, 8, 16, 3, 1, 1);
    nhwc.nhwc = true;
    expectDeclines(kStride1Separable, {
        {problem(1, 1, 8, 16, 3, 1, 1, ACL_FLOAT16), "float16 planes: the search and the targets are float32"},
        {nhwc, "input planes are not dense row-major"},
        {problem(1, 1, 8, 16, 3, 2, 1), "height windows do not move by 1 without dilation"},
        {problem(1, 1, 8, 41, 3, 1, 1), "rows of 41 windows, more than 40"},
        {problem(1, 1, 16, 16, 7, 1, 3), "windows of 7x7 taps: an element lies in more than 25"},
        {stride1Problem(1, 1, 8, 16, 3, 3, {0, 0, 3, 3}), "width window 0 is not the kernel's clipped run"},
    });
}

// Random stride-1 problems forced onto the separable search on every instruction set this CPU has: narrow rows
// (up to 40 windows), kernels up to 5x5 with paddings up to the kernel less one, ceil mode, one to 40 planes (the
// scatter takes whole planes where there are four items a thread, the gather blocks of input rows below that; the
// scatter interleaves up to four planes, any count left over), one to three threads, cached and streaming stores,
// outGrad on and off cache lines; ties, +-0, NaN and targets that are not their window's maximum. Each matches the
// reference bit for bit, and both the scatter and the gather ran.
TEST(MaxPoolV3GradImplementationsDifferential, SeparableStride1OnEveryInstructionSet) {
    std::mt19937 rng(20261206);
    int scattered = 0, gathered = 0;
    for (const int64_t target : {int64_t{HWY_STATIC_TARGET}, int64_t{HWY_AVX3}, int64_t{HWY_AVX2},
                                 int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_NEVER, POOLGRAD_STREAMING_STORES_ALWAYS})
            for (int threads = 1; threads <= 3; ++threads) {
                ASSERT_EQ(poolgradSetStreamingStores(streaming), ACL_SUCCESS);
                const ForcedRun forced(kStride1Separable, threads);
                for (int i = 0; i < 8; ++i) {
                    int64_t kernelH = uniform(rng, 1, 5), kernelW = uniform(rng, 1, 5);
                    if (kernelH * kernelW == 1) kernelW = 2;
                    Problem p = stride1Problem(uniform(rng, 1, 2), i % 2 ? uniform(rng, 1, 3) : uniform(rng, 5, 20),
                                               uniform(rng, 1, 14), uniform(rng, 8, 38), kernelH, kernelW,
                                               {uniform(rng, 0, kernelH - 1), uniform(rng, 0, kernelH - 1),
                                                uniform(rng, 0, kernelW - 1), uniform(rng, 0, kernelW - 1)});
                    p.params.ceilMode = uniform(rng, 0, 1);
                    const auto win = p.windows();
                    if (win.outH < 1 || win.outW < 1 || win.outW > 40) continue;
                    const int64_t offset = uniform(rng, 0, 1);
                    SCOPED_TRACE(std::string(hwy::TargetName(target)) +
                                 (streaming == POOLGRAD_STREAMING_STORES_ALWAYS ? " streaming" : " cached") +
                                 " threads " + std::to_string(threads) + " outGrad offset " + std::to_string(offset) +
                                 ": " + p.describe());
                    const std::string plan = expectRandomRunMatches(rng, p, kStride1Separable, offset);
                    (plan.find("scattered") != std::string::npos ? scattered : gathered) += 1;
                    if (testing::Test::HasFailure()) {
                        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
                        return;
                    }
                }
            }
    }
    poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
    EXPECT_GT(scattered, 10);
    EXPECT_GT(gathered, 10);
}

// Random stride-1 problems forced onto the gather on every instruction set this CPU has: kernels up to 5x5,
// paddings up to the kernel less one (windows clipped at every edge), ceil mode, widths around one and two
// vectors of columns (a group makes up to four rows of one vector, two of two, or one row of up to four at a
// time), one to three threads, cached and streaming stores, outGrad on and off cache lines; ties, +-0, NaN and
// perturbed targets in the data. Each matches the reference bit for bit. Half the problems have 3x3 windows,
// whose search is its own code (its NaN rows above and below the plane included).
TEST(MaxPoolV3GradImplementationsDifferential, Stride1GatherOnEveryInstructionSet) {
    std::mt19937 rng(20261205);
    int threeByThree = 0, others = 0;
    const int64_t widths[] = {8, 9, 15, 16, 17, 20, 31, 32, 33, 47, 56, 64, 65, 70};
    for (const int64_t target : {int64_t{HWY_STATIC_TARGET}, int64_t{HWY_AVX3}, int64_t{HWY_AVX2},
                                 int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_NEVER, POOLGRAD_STREAMING_STORES_ALWAYS})
            for (int threads = 1; threads <= 3; ++threads) {
                ASSERT_EQ(poolgradSetStreamingStores(streaming), ACL_SUCCESS);
                const ForcedRun forced(kStride1, threads);
                for (const int64_t w : widths) {
                    int64_t kernelH = uniform(rng, 1, 5), kernelW = uniform(rng, 1, 5);
                    if (kernelH * kernelW == 1) kernelW = 2;
                    if (uniform(rng, 0, 1)) kernelH = kernelW = 3;
                    Problem p = stride1Problem(uniform(rng, 1, 2), uniform(rng, 1, 3), uniform(rng, 1, 14), w, kernelH,
                                               kernelW,
                                               {uniform(rng, 0, kernelH - 1), uniform(rng, 0, kernelH - 1),
                                                uniform(rng, 0, kernelW - 1), uniform(rng, 0, kernelW - 1)});
                    p.params.ceilMode = uniform(rng, 0, 1);
                    const auto win = p.windows();
                    if (win.outH < 1 || win.outW < 1) continue;
                    const int64_t offset = uniform(rng, 0, 1);
                    SCOPED_TRACE(std::string(hwy::TargetName(target)) +
                                 (streaming == POOLGRAD_STREAMING_STORES_ALWAYS ? " streaming" : " cached") +
                                 " threads " + std::to_string(threads) + " outGrad offset " + std::to_string(offset) +
                                 ": " + p.describe());
                    const std::string plan = expectRandomRunMatches(rng, p, kStride1, offset);
                    (plan.find("3x3 taps unrolled") != std::string::npos ? threeByThree : others) += 1;
                    if (testing::Test::HasFailure()) {
                        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
                        return;
                    }
                }
            }
    }
    poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
    EXPECT_GT(threeByThree, 40);
    EXPECT_GT(others, 40);
}

}  // namespace
