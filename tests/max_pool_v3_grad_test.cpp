// aclnnMaxPoolV3Grad (SPEC §6, seed 004) through the public C API: the worked examples WE-14…WE-18 with
// expected values copied from SPEC §9, one test per validation row of §6, and randomized differential
// tests against the independent naive reference (tests/reference/naive_max_pool_v3.*) over NCHW/NHWC,
// CALCULATED/SAME/VALID, ceil mode, overlapping and disjoint windows, pads >= kernel, tie-heavy and
// special-value data, origOutput values that are not the true forward output, and strided, offset and
// permuted views of all four tensors. Outputs are poisoned before every run.
//
// Seeds: a fixed list plus one fresh seed per run (std::random_device, or POOLGRAD_TEST_SEED to
// reproduce); every failure prints the seed and the case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_max_pool_v3.h"
#include "support/differential_driver.h"
#include "support/float_bits.h"
#include "support/max_pool_v3_run.h"
#include "support/max_pool_v3_validation.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace max_pool_v3_test;
using namespace test_support;

// Every non-reference implementation accepts at least this share of the random cases (measured:
// channels-last 18%, dense 51%; a third of the lowest as margin).
constexpr double kMinimumShare = 0.06;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------------------------ worked examples

struct GradExample {
    std::vector<int64_t> inputShape, outputShape;
    std::vector<double> origInput, origOutput, grad;
    V3Attributes attributes;
    std::vector<double> outGrad;
};

void checkGrad(const GradExample &e, aclDataType type) {
    TestTensor origInput = filled(e.inputShape, type, e.origInput);
    TestTensor origOutput = filled(e.outputShape, type, e.origOutput);
    TestTensor grad = filled(e.outputShape, type, e.grad);
    TestTensor outGrad(e.inputShape, type);  // poisoned
    expectSuccess(max_pool_v3_test::runMaxPoolV3Grad(origInput, origOutput, grad, e.attributes, outGrad));
    expectBits(outGrad, e.outGrad, "outGrad");
}

class MaxPoolV3GradWorkedExamples : public testing::TestWithParam<aclDataType> {};

V3Attributes validTwoByTwo() { return {{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", std::nullopt, "NCHW", false, false}; }

TEST_P(MaxPoolV3GradWorkedExamples, WE14TieGoesToTheFirstMatchOnly) {
    checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {3, 3, 1, 3}, {3}, {5}, validTwoByTwo(), {5, 0, 0, 0}}, GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE15NanOutputDropsTheGradient) {
    checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {kNaN, 2, 1, 0}, {kNaN}, {1}, validTwoByTwo(), {0, 0, 0, 0}}, GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE15NanInputNeverMatches) {
    checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {kNaN, 2, 1, 0}, {2}, {1}, validTwoByTwo(), {0, 1, 0, 0}}, GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE16SameNhwcTwoChannels) {
    const V3Attributes attributes{{1, 2, 2, 1}, {1, 2, 2, 1}, "SAME", std::nullopt, "NHWC", false, false};
    checkGrad({{1, 3, 3, 2},
               {1, 2, 2, 2},
               {1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1},
               {5, 9, 6, 7, 8, 3, 9, 1},
               {1, 10, 2, 20, 3, 30, 4, 40},
               attributes,
               {0, 10, 0, 0, 0, 20, 0, 0, 1, 0, 2, 0, 0, 30, 3, 0, 4, 40}},
              GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE17CalculatedOverlapFloor) {
    const V3Attributes attributes{{1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{1, 1, 1, 1},
                                  "NCHW",       false,        false};
    checkGrad({{1, 1, 4, 4},
               {1, 1, 2, 2},
               {1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13},
               {8, 7, 16, 15},
               {1, 2, 3, 4},
               attributes,
               {0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0}},
              GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE17CalculatedOverlapCeil) {
    const V3Attributes attributes{{1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{1, 1, 1, 1},
                                  "NCHW",       false,        true};
    checkGrad({{1, 1, 4, 4},
               {1, 1, 3, 3},
               {1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13},
               {8, 7, 5, 16, 15, 13, 16, 15, 13},
               {1, 2, 3, 4, 5, 6, 7, 8, 9},
               attributes,
               {0, 0, 0, 0, 1, 2, 0, 3, 0, 0, 0, 0, 11, 13, 0, 15}},
              GetParam());
}

TEST_P(MaxPoolV3GradWorkedExamples, WE18OverlappingValidWindowsAccumulate) {
    const V3Attributes attributes{{1, 1, 2, 2}, {1, 1, 1, 1}, "VALID", std::nullopt, nullptr, false, false};
    checkGrad({{1, 1, 3, 3},
               {1, 1, 2, 2},
               {1, 2, 3, 4, 9, 5, 6, 7, 8},
               {9, 9, 9, 9},
               {1, 2, 3, 4},
               attributes,
               {0, 0, 0, 0, 10, 0, 0, 0, 0}},
              GetParam());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MaxPoolV3GradWorkedExamples, testing::Values(ACL_FLOAT, ACL_FLOAT16),
                         [](const testing::TestParamInfo<aclDataType> &info) {
                             return std::string(info.param == ACL_FLOAT ? "Float" : "Float16");
                         });

TEST(MaxPoolV3GradSemantics, Float16SumsInFloat32AndRoundsOnce) {
    // SPEC §3.6 (WE-10 analogue): 2048 + 1 + 1 in float32 is 2050; fp16 steps would stay at 2048.
    checkGrad({{1, 1, 3, 3},
               {1, 1, 2, 2},
               {1, 2, 3, 4, 9, 5, 6, 7, 8},
               {9, 9, 9, 9},
               {2048, 1, 1, 0},
               {{1, 1, 2, 2}, {1, 1, 1, 1}, "VALID", std::nullopt, "NCHW", false, false},
               {0, 0, 0, 0, 2050, 0, 0, 0, 0}},
              ACL_FLOAT16);
}

TEST(MaxPoolV3GradSemantics, SignedZerosAndInfinitiesMatch) {
    // +0 == -0 (the first zero in scan order wins), Inf == Inf; a -0 gradient sums to +0 (0 + -0).
    const V3Attributes attributes = validTwoByTwo();
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16}) {
        SCOPED_TRACE(type);
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {-1, -0.0, 0.0, -2}, {0.0}, {7}, attributes, {0, 7, 0, 0}}, type);
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {1, kInf, kInf, 2}, {kInf}, {3}, attributes, {0, 3, 0, 0}}, type);
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {1, 4, 4, 2}, {4}, {-0.0}, attributes, {0, 0.0, 0, 0}}, type);
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {1, 4, 4, 2}, {4}, {kInf}, attributes, {0, kInf, 0, 0}}, type);
        // An origOutput that is not in the window sends nothing.
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {1, 4, 4, 2}, {3}, {9}, attributes, {0, 0, 0, 0}}, type);
        // One that is in the window but not its maximum is matched all the same (seed rule).
        checkGrad({{1, 1, 2, 2}, {1, 1, 1, 1}, {1, 4, 4, 2}, {2}, {9}, attributes, {0, 0, 0, 9}}, type);
    }
}

TEST(MaxPoolV3GradSemantics, PaddingNeverReceivesAndWindowsInPaddingSendNothing) {
    // pads >= kernel are allowed: with pad_top 3 and a 2x2 kernel the first output row lies wholly in
    // padding, so its gradients are dropped. H = 2: Ho = floor((2 + 3 + 0 - 2) / 1) + 1 = 4.
    const V3Attributes attributes{{1, 1, 2, 1}, {1, 1, 1, 1}, "CALCULATED", std::vector<int64_t>{3, 0, 0, 0},
                                  "NCHW",       false,        false};
    // Windows (rows): o=0 -> {-3,-2}: none; o=1 -> {-2,-1}: none; o=2 -> {-1,0}: {0}; o=3 -> {0,1}.
    checkGrad({{1, 1, 2, 1}, {1, 1, 4, 1}, {5, 6}, {5, 5, 5, 6}, {1, 2, 4, 8}, attributes, {4, 8}}, ACL_FLOAT);
}

TEST(MaxPoolV3GradSemantics, NhwcReallyChangesTheLayout) {
    // The same memory read as NCHW (1,2,2,2) and as NHWC (1,2,2,2) gives different planes.
    const std::vector<double> memory{1, 8, 2, 7, 3, 6, 4, 5};
    const V3Attributes nchw{{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", std::nullopt, "NCHW", false, false};
    const V3Attributes nhwc{{1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", std::nullopt, "NHWC", false, false};
    // NCHW planes: c0 = {1,8,2,7} (max 8 at 1), c1 = {3,6,4,5} (max 6 at 5).
    checkGrad({{1, 2, 2, 2}, {1, 2, 1, 1}, memory, {8, 6}, {1, 2}, nchw, {0, 1, 0, 0, 0, 2, 0, 0}}, ACL_FLOAT);
    // NHWC planes: c0 = {1,2,3,4} (max 4 at flat 6), c1 = {8,7,6,5} (max 8 at flat 1).
    checkGrad({{1, 2, 2, 2}, {1, 1, 1, 2}, memory, {4, 8}, {1, 2}, nhwc, {0, 2, 0, 0, 0, 0, 1, 0}}, ACL_FLOAT);
}

TEST(MaxPoolV3GradSemantics, BroadcastInputsWithZeroStrides) {
    // origOutput and grad are one element each, seen through stride 0 by both channels.
    TestTensor origInput = filled({1, 2, 2, 2}, ACL_FLOAT, {1, 5, 3, 2, 7, 0, 7, 1});
    TestTensor origOutput({1, 2, 1, 1}, {0, 0, 0, 0}, 0, ACL_FLOAT), grad({1, 2, 1, 1}, {0, 0, 0, 0}, 2, ACL_FLOAT);
    origOutput.set(0, 7);
    grad.set(0, 3);
    TestTensor outGrad({1, 2, 2, 2}, ACL_FLOAT);
    expectSuccess(max_pool_v3_test::runMaxPoolV3Grad(origInput, origOutput, grad, validTwoByTwo(), outGrad));
    expectBits(outGrad, {0, 0, 0, 0, 3, 0, 0, 0}, "outGrad");
}

TEST(MaxPoolV3GradSemantics, RepeatableExecutorRereadsData) {
    TestTensor origInput = filled({1, 1, 2, 2}, ACL_FLOAT, {1, 2, 3, 4});
    TestTensor origOutput = filled({1, 1, 1, 1}, ACL_FLOAT, {4});
    TestTensor grad = filled({1, 1, 1, 1}, ACL_FLOAT, {1});
    TestTensor outGrad({1, 1, 2, 2}, ACL_FLOAT);
    IntArray ksize({1, 1, 2, 2}), strides({1, 1, 2, 2});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMaxPoolV3GradGetWorkspaceSize(origInput, origOutput, grad, ksize, strides, "VALID", nullptr, nullptr,
                                                 false, false, outGrad, &workspaceSize, &executor),
              0);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0);
    ASSERT_EQ(aclnnMaxPoolV3Grad(nullptr, 0, executor, nullptr), 0);
    expectBits(outGrad, {0, 0, 0, 1}, "first run");
    origOutput.set(0, 2);
    grad.set(0, 5);
    ASSERT_EQ(aclnnMaxPoolV3Grad(nullptr, 0, executor, nullptr), 0);
    expectBits(outGrad, {0, 5, 0, 0}, "second run");
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0);
}

// --------------------------------------------------------------------------------- validation rows

// A valid NCHW call: (1,2,4,4) -> (1,2,2,2), 2x2 windows, stride 2, CALCULATED with zero pads; one dtype.
struct GradCase : max_pool_v3_test::V3AttributeSpecs {
    TensorSpec origInput{{1, 2, 4, 4}}, origOutput{{1, 2, 2, 2}}, grad{{1, 2, 2, 2}}, outGrad{{1, 2, 4, 4}};

    GradCase() {
        paddingMode = "CALCULATED";
        pads = std::vector<int64_t>{0, 0, 0, 0};
        dataFormat = "NCHW";
    }
    GradCase &types(aclDataType type) {
        origInput.type = origOutput.type = grad.type = outGrad.type = type;
        return *this;
    }
    GradCase &shapes(std::vector<int64_t> input, std::vector<int64_t> output) {
        origInput.shape = outGrad.shape = std::move(input);
        origOutput.shape = grad.shape = std::move(output);
        return *this;
    }
};

class GradCall : public test_support::PhaseOneCall, public max_pool_v3_test::V3AttributeArguments {
public:
    explicit GradCall(const GradCase &c)
        : V3AttributeArguments(c),
          origInput(test_support::makeTensor(c.origInput)),
          origOutput(test_support::makeTensor(c.origOutput)),
          grad(test_support::makeTensor(c.grad)),
          outGrad(test_support::makeTensor(c.outGrad)) {}
    test_support::PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPoolV3GradGetWorkspaceSize(origInputArg, origOutputArg, gradArg, ksizeArg, stridesArg,
                                                      paddingMode, padsArg, dataFormat, globalPooling, ceilMode,
                                                      outGradArg, workspaceSize, executor);
        });
    }
    std::vector<const TestTensor *> outputs() const { return {&outGrad}; }

    TestTensor origInput, origOutput, grad, outGrad;
    const aclTensor *origInputArg = origInput;
    const aclTensor *origOutputArg = origOutput;
    const aclTensor *gradArg = grad;
    aclTensor *outGradArg = outGrad;
};

using GradRow = test_support::ValidationRow<GradCase, GradCall>;

std::vector<GradRow> gradRows() {
    std::vector<GradRow> rows;
    rows.push_back({"BaselineIsAccepted", {}, accepted});
    rows.push_back({"DefaultsMayBeNull",
                    [](GradCase &c) {
                        c.paddingMode = nullptr;
                        c.pads = std::nullopt;
                        c.dataFormat = nullptr;
                    },
                    accepted});

    // ---- row 1: null pointers → 161001
    test_support::addNullPointerRows(rows, "Row1NullPointerIs161001_", std::pair{"origInput", &GradCall::origInputArg},
                                     std::pair{"origOutput", &GradCall::origOutputArg},
                                     std::pair{"grad", &GradCall::gradArg}, std::pair{"ksize", &GradCall::ksizeArg},
                                     std::pair{"strides", &GradCall::stridesArg},
                                     std::pair{"outGrad", &GradCall::outGradArg});

    // ---- row 2: dtypes
    for (aclDataType type : {ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_INT8, ACL_INT64})
        rows.push_back({"Row2DtypeOutsideFloatFloat16Is161002_" + test_support::typeName(type),
                        [type](GradCase &c) { c.types(type); },
                        invalid,
                        {"origInput", "dtype"}});
    rows.push_back({"Row2OrigOutputDtypeDiffersIs161002",
                    [](GradCase &c) { c.origOutput.type = ACL_FLOAT16; },
                    invalid,
                    {"origOutput", "dtype", "FLOAT16"}});
    rows.push_back(
        {"Row2GradDtypeDiffersIs161002", [](GradCase &c) { c.grad.type = ACL_FLOAT16; }, invalid, {"grad", "dtype"}});
    rows.push_back({"Row2OutGradDtypeDiffersIs161002",
                    [](GradCase &c) { c.outGrad.type = ACL_FLOAT16; },
                    invalid,
                    {"outGrad", "dtype"}});

    // ---- row 3: ranks and formats
    rows.push_back({"Row3OrigInputRank3Is161002",
                    [](GradCase &c) {
                        c.origInput.shape = {2, 4, 4};
                    },
                    invalid,
                    {"origInput", "rank 4"}});
    rows.push_back({"Row3OrigOutputRank3Is161002",
                    [](GradCase &c) {
                        c.origOutput.shape = {2, 2, 2};
                    },
                    invalid,
                    {"origOutput", "rank"}});
    rows.push_back({"Row3GradRank3Is161002", [](GradCase &c) { c.grad.shape = {2, 2, 2}; }, invalid, {"grad", "rank"}});
    rows.push_back({"Row3OutGradRank5Is161002",
                    [](GradCase &c) {
                        c.outGrad.shape = {1, 2, 1, 4, 4};
                    },
                    invalid,
                    {"outGrad", "rank"}});
    for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_UNDEFINED, ACL_FORMAT_FRACTAL_NZ}) {
        const std::string suffix = "_" + test_support::formatName(format);
        rows.push_back({"Row3PrivateOrigInputFormatIs161002" + suffix,
                        [format](GradCase &c) { c.origInput.format = format; },
                        invalid,
                        {"origInput", "format"}});
        rows.push_back({"Row3PrivateGradFormatIs161002" + suffix,
                        [format](GradCase &c) { c.grad.format = format; },
                        invalid,
                        {"grad", "format"}});
        rows.push_back({"Row3PrivateOrigOutputFormatIs161002" + suffix,
                        [format](GradCase &c) { c.origOutput.format = format; },
                        invalid,
                        {"origOutput", "format"}});
    }
    // Public format tags are accepted whatever they say: the layout comes from dataFormat.
    rows.push_back({"Row3PublicFormatTagsAreAccepted",
                    [](GradCase &c) {
                        c.origInput.format = ACL_FORMAT_NHWC;
                        c.outGrad.format = ACL_FORMAT_NCL;
                    },
                    accepted});

    // ---- row 4: the dataFormat and paddingMode strings
    for (const char *bad : {"nchw", "NCDHW", "ND", "", "NHWC "})
        rows.push_back({"Row4DataFormatIs161002_" + max_pool_v3_test::nameOf(bad),
                        [bad](GradCase &c) { c.dataFormat = bad; },
                        invalid,
                        {"dataFormat", bad}});
    for (const char *bad : {"same", "Valid", "EXPLICIT", ""})
        rows.push_back({"Row4PaddingModeIs161002_" + max_pool_v3_test::nameOf(bad),
                        [bad](GradCase &c) { c.paddingMode = bad; },
                        invalid,
                        {"paddingMode", bad}});

    // ---- rows 5, 6: globalPooling, ceilMode only with CALCULATED
    rows.push_back(
        {"Row5GlobalPoolingIsRejected", [](GradCase &c) { c.globalPooling = true; }, invalid, {"globalPooling"}});
    for (const char *mode : {"SAME", "VALID"})
        rows.push_back({std::string("Row6CeilModeWithIs161002_") + mode,
                        [mode](GradCase &c) {
                            c.paddingMode = mode;
                            c.ceilMode = true;
                        },
                        invalid,
                        {"ceilMode", mode}});
    // CALCULATED: allowed (4x4, k2 s2: still 2x2).
    rows.push_back({"Row6CeilModeWithCalculatedIsAccepted", [](GradCase &c) { c.ceilMode = true; }, accepted});

    // ---- row 7: list lengths (checked with SAME / VALID too, though pads are then unused)
    rows.push_back({"Row7KsizeLength2Is161002",
                    [](GradCase &c) {
                        c.ksize = {2, 2};
                    },
                    invalid,
                    {"ksize", "length 4", "2"}});
    rows.push_back({"Row7StridesLength5Is161002",
                    [](GradCase &c) {
                        c.strides = {1, 1, 2, 2, 1};
                    },
                    invalid,
                    {"strides", "length 4", "5"}});
    rows.push_back({"Row7PadsLength2Is161002",
                    [](GradCase &c) {
                        c.pads = std::vector<int64_t>{2, 2};
                    },
                    invalid,
                    {"pads", "length 4"}});
    rows.push_back({"Row7PadsLength0Is161002",
                    [](GradCase &c) { c.pads = std::vector<int64_t>{}; },
                    invalid,
                    {"pads", "length 4", "0"}});
    rows.push_back({"Row7PadsLength2WithValidIs161002",
                    [](GradCase &c) {
                        c.paddingMode = "VALID";
                        c.pads = std::vector<int64_t>{2, 2};
                    },
                    invalid,
                    {"pads"}});

    // ---- row 8: the N and C entries of ksize and strides are 1
    rows.push_back({"Row8KsizeBatchEntryIs161002",
                    [](GradCase &c) {
                        c.ksize = {2, 1, 2, 2};
                    },
                    invalid,
                    {"ksize[0]", "N"}});
    rows.push_back({"Row8KsizeChannelEntryIs161002",
                    [](GradCase &c) {
                        c.ksize = {1, 2, 2, 2};
                    },
                    invalid,
                    {"ksize[1]", "C"}});
    rows.push_back({"Row8StridesBatchEntryIs161002",
                    [](GradCase &c) {
                        c.strides = {3, 1, 2, 2};
                    },
                    invalid,
                    {"strides[0]", "N"}});
    rows.push_back({"Row8StridesChannelEntryIs161002",
                    [](GradCase &c) {
                        c.strides = {1, 0, 2, 2};
                    },
                    invalid,
                    {"strides[1]", "C"}});
    // NHWC: C is at index 3, and [1,1,2,2] puts 2 there.
    const auto nhwc = [](GradCase &c) {
        c.shapes({1, 4, 4, 2}, {1, 2, 2, 2});
        c.ksize = {1, 2, 2, 1};
        c.dataFormat = "NHWC";
    };
    rows.push_back({"Row8NhwcStridesChannelEntryIs161002", nhwc, invalid, {"strides[3]", "C", "NHWC"}});
    rows.push_back({"Row8NhwcEntriesAreAccepted",
                    [nhwc](GradCase &c) {
                        nhwc(c);
                        c.strides = {1, 2, 2, 1};
                    },
                    accepted});

    // ---- row 9: kernel in [1, 255], stride in [1, 63]
    rows.push_back({"Row9KernelAbove255Is161002",
                    [](GradCase &c) {
                        c.ksize = {1, 1, 256, 2};
                    },
                    invalid,
                    {"ksize[2]", "H", "[1, 255]", "256"}});
    rows.push_back({"Row9KernelZeroIs161002",
                    [](GradCase &c) {
                        c.ksize = {1, 1, 2, 0};
                    },
                    invalid,
                    {"ksize[3]", "W", "0"}});
    rows.push_back({"Row9StrideAbove63Is161002",
                    [](GradCase &c) {
                        c.strides = {1, 1, 64, 2};
                    },
                    invalid,
                    {"strides[2]", "[1, 63]", "64"}});
    rows.push_back({"Row9StrideZeroIs161002",
                    [](GradCase &c) {
                        c.strides = {1, 1, 2, 0};
                    },
                    invalid,
                    {"strides[3]", "W"}});
    // The limits themselves are allowed: 255 x 63 on a 255-row input gives one output row.
    rows.push_back({"Row9LimitsAreAccepted",
                    [](GradCase &c) {
                        c.shapes({1, 1, 255, 2}, {1, 1, 1, 1});
                        c.ksize = {1, 1, 255, 2};
                        c.strides = {1, 1, 63, 63};
                        c.paddingMode = "VALID";
                        c.pads = std::nullopt;
                    },
                    accepted});

    // ---- row 10: CALCULATED pads are >= 0 (ignored, so not checked, with SAME and VALID)
    rows.push_back({"Row10NegativePadIs161002",
                    [](GradCase &c) {
                        c.pads = std::vector<int64_t>{0, 0, -1, 0};
                    },
                    invalid,
                    {"pads[2]", "pad_left", "-1"}});
    rows.push_back({"Row10NegativePadWithValidIsAccepted",
                    [](GradCase &c) {
                        c.pads = std::vector<int64_t>{0, 0, -1, 0};
                        c.paddingMode = "VALID";
                    },
                    accepted});
    // pads >= kernel are allowed: 4 + 5 + 5 - 2 = 12, /2 + 1 = 7 rows and columns.
    rows.push_back({"Row10PadsAboveTheKernelAreAccepted",
                    [](GradCase &c) {
                        c.pads = std::vector<int64_t>{5, 5, 5, 5};
                        c.origOutput.shape = c.grad.shape = {1, 2, 7, 7};
                    },
                    accepted});

    // ---- rows 11, 12: shapes
    rows.push_back({"Row11GradShapeDiffersFromOrigOutputIs161002",
                    [](GradCase &c) {
                        c.grad.shape = {1, 2, 2, 3};
                    },
                    invalid,
                    {"grad", "shape", "origOutput"}});
    rows.push_back({"Row11OrigOutputBatchDiffersIs161002",
                    [](GradCase &c) {
                        c.origOutput.shape = c.grad.shape = {2, 2, 2, 2};
                    },
                    invalid,
                    {"origOutput", "N"}});
    rows.push_back({"Row11OrigOutputChannelsDifferIs161002",
                    [](GradCase &c) {
                        c.origOutput.shape = c.grad.shape = {1, 3, 2, 2};
                    },
                    invalid,
                    {"origOutput", "C"}});
    rows.push_back({"Row11OutGradShapeDiffersFromOrigInputIs161002",
                    [](GradCase &c) {
                        c.outGrad.shape = {1, 2, 4, 5};
                    },
                    invalid,
                    {"outGrad", "shape", "origInput"}});
    rows.push_back({"Row12OrigOutputSpatialSizeIs161002",
                    [](GradCase &c) {
                        c.origOutput.shape = c.grad.shape = {1, 2, 3, 2};
                    },
                    invalid,
                    {"origOutput", "[1, 2, 2, 2]", "[1, 2, 3, 2]"}});
    // ceilMode changes the expected size: 5 rows, k2 s2 -> 2 (floor) or 3 (ceil).
    rows.push_back({"Row12FloorSizeOfFiveRowsIs2",
                    [](GradCase &c) {
                        c.shapes({1, 2, 5, 4}, {1, 2, 3, 2});
                    },
                    invalid,
                    {"origOutput"}});
    rows.push_back({"Row12CeilSizeOfFiveRowsIs3Accepted",
                    [](GradCase &c) {
                        c.shapes({1, 2, 5, 4}, {1, 2, 3, 2});
                        c.ceilMode = true;
                    },
                    accepted});

    // ---- library addition: views stay inside their storage
    // (Non-empty tensors with null data are accepted here and checked by the run: tests/tensor_address_test.cpp.)
    rows.push_back(
        {"LibraryAdditionViewPastItsStorageIs161002", {}, invalid, {"grad", "storage"}, {}, [](GradCall &call) {
             static const std::vector<int64_t> strides{8, 4, 2, 1};
             call.gradArg = call.keepRawTensor({1, 2, 2, 2}, ACL_FLOAT, reinterpret_cast<void *>(64), {4}, &strides);
         }});

    // ---- order: the first broken row wins
    // dtype (row 2) before rank (row 3).
    rows.push_back({"FirstBrokenRowWins_DtypeBeforeRank",
                    [](GradCase &c) {
                        c.origInput = {{2, 4, 4}, ACL_BF16};
                    },
                    invalid,
                    {"dtype"}});
    // Strings (row 4) before globalPooling (row 5) before ceil/mode (row 6) before lengths (row 7).
    rows.push_back({"FirstBrokenRowWins_DataFormatBeforeGlobalPooling",
                    [](GradCase &c) {
                        c.dataFormat = "NDHWC";
                        c.globalPooling = true;
                    },
                    invalid,
                    {"dataFormat"}});
    rows.push_back({"FirstBrokenRowWins_GlobalPoolingBeforeCeilMode",
                    [](GradCase &c) {
                        c.globalPooling = true;
                        c.ceilMode = true;
                        c.paddingMode = "SAME";
                    },
                    invalid,
                    {"globalPooling"}});
    rows.push_back({"FirstBrokenRowWins_CeilModeBeforeLengths",
                    [](GradCase &c) {
                        c.ceilMode = true;
                        c.paddingMode = "VALID";
                        c.ksize = {2, 2};
                    },
                    invalid,
                    {"ceilMode"}});
    // Lengths (7) before N/C entries (8) before limits (9) before pads (10) before shapes (11, 12).
    rows.push_back({"FirstBrokenRowWins_LengthsBeforeEntries",
                    [](GradCase &c) {
                        c.ksize = {2, 1, 2, 2};
                        c.strides = {2, 2};
                    },
                    invalid,
                    {"strides", "length"}});
    rows.push_back({"FirstBrokenRowWins_EntriesBeforePads",
                    [](GradCase &c) {
                        c.ksize = {2, 1, 2, 2};
                        c.pads = std::vector<int64_t>{-1, 0, 0, 0};
                    },
                    invalid,
                    {"ksize[0]"}});
    rows.push_back({"FirstBrokenRowWins_LimitsBeforePads",
                    [](GradCase &c) {
                        c.ksize = {1, 1, 300, 2};
                        c.pads = std::vector<int64_t>{-1, 0, 0, 0};
                    },
                    invalid,
                    {"ksize[2]"}});
    rows.push_back({"FirstBrokenRowWins_PadsBeforeShapes",
                    [](GradCase &c) {
                        c.pads = std::vector<int64_t>{-1, 0, 0, 0};
                        c.grad.shape = {1, 2, 3, 3};
                    },
                    invalid,
                    {"pads[0]"}});
    return rows;
}

POOLGRAD_VALIDATION_TABLE(V3GradValidationRows, gradRows());

// ---- calls that run ------------------------------------------------------------------------------

TEST(V3GradValidation, Row13EmptyInputIsANoOp) {
    TestTensor input({0, 2, 4, 4}, ACL_FLOAT), output({0, 2, 2, 2}, ACL_FLOAT), g({0, 2, 2, 2}, ACL_FLOAT),
        out({0, 2, 4, 4}, ACL_FLOAT);
    const V3Status status = max_pool_v3_test::runMaxPoolV3Grad(
        input, output, g, {{1, 1, 2, 2}, {1, 1, 2, 2}, nullptr, std::nullopt, nullptr, false, false}, out);
    expectSuccess(status);
    EXPECT_EQ(status.workspaceSize, 0u);
    EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
    // Empty tensors may have no data at all.
    const int64_t inputShape[4] = {1, 2, 0, 4}, outputShape[4] = {1, 2, 0, 2};
    aclTensor *nullInput = aclCreateTensor(inputShape, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, inputShape, 4, nullptr);
    aclTensor *nullOutput =
        aclCreateTensor(outputShape, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, outputShape, 4, nullptr);
    aclTensor *nullGrad =
        aclCreateTensor(outputShape, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, outputShape, 4, nullptr);
    aclTensor *nullOut = aclCreateTensor(inputShape, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, inputShape, 4, nullptr);
    expectSuccess(max_pool_v3_test::runMaxPoolV3Grad(
        nullInput, nullOutput, nullGrad, {{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", std::nullopt, nullptr, false, false},
        nullOut));
    for (aclTensor *t : {nullInput, nullOutput, nullGrad, nullOut}) aclDestroyTensor(t);
}

TEST(V3GradValidation, Row13NoOutputPositionWritesZeros) {
    // 2x3 input, 3x3 VALID kernel: Ho = 0, Wo = 1; outGrad (poisoned, permuted, gapped) becomes zeros.
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16})
        for (bool nhwc : {false, true}) {
            const auto inShape = max_pool_v3_test::layoutShape(nhwc, 1, 2, 2, 3);
            const auto outShape = max_pool_v3_test::layoutShape(nhwc, 1, 2, 0, 1);
            TestTensor input(inShape, type), output(outShape, type), g(outShape, type);
            std::mt19937 rng(7);
            TestTensor out = max_pool_v3_test::makeOperand(inShape, type, Storage::PermutedGapped, rng);
            const V3Attributes attributes{nhwc ? std::vector<int64_t>{1, 3, 3, 1} : std::vector<int64_t>{1, 1, 3, 3},
                                          {1, 1, 1, 1},
                                          "VALID",
                                          std::nullopt,
                                          nhwc ? "NHWC" : "NCHW",
                                          false,
                                          false};
            expectSuccess(max_pool_v3_test::runMaxPoolV3Grad(input, output, g, attributes, out));
            expectBits(out, std::vector<double>(12, 0.0), "outGrad");
        }
}

TEST(V3GradValidation, SpecErrorPathExamples) {
    // SPEC §9: WE-14 with strides [1,1,64,2]; with ceilMode + VALID; with globalPooling; with BF16 tensors.
    for (int variant = 0; variant < 4; ++variant) {
        const aclDataType type = variant == 3 ? ACL_BF16 : ACL_FLOAT;
        TestTensor input = filled({1, 1, 2, 2}, type, {3, 3, 1, 3});
        TestTensor output = filled({1, 1, 1, 1}, type, {3});
        TestTensor g = filled({1, 1, 1, 1}, type, {5});
        TestTensor out({1, 1, 2, 2}, type);
        V3Attributes attributes = validTwoByTwo();
        if (variant == 0) attributes.strides = {1, 1, 64, 2};
        if (variant == 1) attributes.ceilMode = true;
        if (variant == 2) attributes.globalPooling = true;
        SCOPED_TRACE(variant);
        const V3Status status = max_pool_v3_test::runMaxPoolV3Grad(input, output, g, attributes, out);
        EXPECT_EQ(status.phaseOne, invalid) << status.message;
        EXPECT_EQ(status.phaseTwo, -1);
        EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
    }
}

// ------------------------------------------------------------------------------ differential tests

struct RandomCase {
    aclDataType type = ACL_FLOAT;
    bool nhwc = false;
    int64_t n = 1, c = 1, h = 1, w = 1;
    reference::MaxPoolV3Params params;
    Storage storage[4] = {Storage::Contiguous, Storage::Contiguous, Storage::Contiguous, Storage::Contiguous};
    bool trueForward = true;  // origOutput is the forward output (else perturbed)
    bool specials = false;    // NaN / Inf / -0 in the data
    int64_t outH = 0, outW = 0;

    V3Attributes attributes() const { return max_pool_v3_test::attributesFor(params, nhwc); }

    std::string describe() const {
        std::string text = max_pool_v3_test::describeProblem(type, nhwc, n, c, h, w, params, outH, outW) +
                           (trueForward ? " forward-output" : " perturbed-output") + (specials ? " specials" : "") +
                           " storage";
        for (Storage s : storage) text += std::string(" ") + max_pool_v3_test::storageName(s);
        return text;
    }
};

int64_t uniform(std::mt19937 &rng, int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

struct CaseLimits {
    int64_t maxPlanes = 3;  // n and c each in [1, maxPlanes]
    int64_t maxSide = 8;
    bool allowEmptyOutput = true;
    bool forceContiguousNchw = false;
    // 3x3 windows at stride 2 on contiguous NCHW or NHWC operands: what the specialised entries take.
    bool kernel3Stride2 = false;
    // float32 windows up to 5x5 (not 1x1; 3x3 half the time) moving by 1: what the stride-1 gather takes on
    // contiguous NCHW.
    bool stride1 = false;
};

RandomCase randomCase(std::mt19937 &rng, const CaseLimits &limits) {
    for (;;) {
        RandomCase rc;
        rc.type = uniform(rng, 0, 1) ? ACL_FLOAT : ACL_FLOAT16;
        rc.nhwc = !limits.forceContiguousNchw && uniform(rng, 0, 1);
        rc.n = uniform(rng, 1, limits.maxPlanes);
        rc.c = uniform(rng, 1, limits.maxPlanes);
        rc.h = uniform(rng, 1, limits.maxSide);
        rc.w = uniform(rng, 1, limits.maxSide);
        reference::MaxPoolV3Params &p = rc.params;
        p.mode = static_cast<reference::V3PaddingMode>(uniform(rng, 0, 2));
        p.kernelH = uniform(rng, 1, 4);
        p.kernelW = uniform(rng, 1, 4);
        // Half disjoint (stride >= kernel), half overlapping where possible.
        const bool disjoint = uniform(rng, 0, 1);
        p.strideH = disjoint ? uniform(rng, p.kernelH, p.kernelH + 2) : uniform(rng, 1, p.kernelH);
        p.strideW = disjoint ? uniform(rng, p.kernelW, p.kernelW + 2) : uniform(rng, 1, p.kernelW);
        if (limits.kernel3Stride2) {
            p.kernelH = p.kernelW = 3;
            p.strideH = p.strideW = 2;
        }
        if (limits.stride1) {
            rc.type = ACL_FLOAT;
            p.kernelH = uniform(rng, 1, 5);
            p.kernelW = p.kernelH == 1 ? uniform(rng, 2, 5) : uniform(rng, 1, 5);
            if (uniform(rng, 0, 1)) p.kernelH = p.kernelW = 3;  // Inception's windows: their own search
            p.strideH = p.strideW = 1;
        }
        if (p.mode == reference::V3PaddingMode::Calculated) {
            for (int64_t &pad : p.pads) pad = uniform(rng, 0, 5) == 0 ? uniform(rng, 3, 6) : uniform(rng, 0, 2);
            p.ceilMode = uniform(rng, 0, 1);
        } else {
            for (int64_t &pad : p.pads) pad = uniform(rng, -2, 2);  // unused (and unchecked) by SAME / VALID
        }
        const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(rc.h, rc.w, p);
        rc.outH = windows.outH;
        rc.outW = windows.outW;
        if (!limits.allowEmptyOutput && rc.outH * rc.outW == 0) continue;
        for (Storage &s : rc.storage)
            s = limits.forceContiguousNchw || limits.kernel3Stride2 ? Storage::Contiguous
                                                                    : static_cast<Storage>(uniform(rng, 0, 3));
        rc.trueForward = uniform(rng, 0, 2) == 0;
        rc.specials = uniform(rng, 0, 3) == 0;
        return rc;
    }
}

double randomValue(std::mt19937 &rng, bool specials) {
    if (specials) {
        switch (uniform(rng, 0, 9)) {
            case 0:
                return kNaN;
            case 1:
                return kInf;
            case 2:
                return -kInf;
            case 3:
                return -0.0;
            case 4:
                return 0.0;
            default:
                break;
        }
    }
    return static_cast<double>(uniform(rng, -3, 3));  // small integers: many ties
}

double randomGrad(std::mt19937 &rng, aclDataType type, bool specials) {
    if (specials && uniform(rng, 0, 15) == 0) {
        const double choices[] = {kNaN, kInf, -kInf, -0.0};
        return choices[uniform(rng, 0, 3)];
    }
    if (type == ACL_FLOAT) return std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
    return static_cast<double>(uniform(rng, -2048, 2048)) / 64.0;  // fp16-exact, sums need rounding
}

// Everything one run needs and produces: operands in the case's layouts, and the reference result.
struct PreparedCase {
    TestTensor origInput, origOutput, grad, outGrad;
    std::vector<float> expectedSums;
};

PreparedCase prepare(const RandomCase &rc, std::mt19937 &rng) {
    const bool nhwc = rc.nhwc;
    const auto inShape = max_pool_v3_test::layoutShape(nhwc, rc.n, rc.c, rc.h, rc.w);
    const auto outShape = max_pool_v3_test::layoutShape(nhwc, rc.n, rc.c, rc.outH, rc.outW);
    PreparedCase pc{max_pool_v3_test::makeOperand(inShape, rc.type, rc.storage[0], rng),
                    max_pool_v3_test::makeOperand(outShape, rc.type, rc.storage[1], rng),
                    max_pool_v3_test::makeOperand(outShape, rc.type, rc.storage[2], rng),
                    max_pool_v3_test::makeOperand(inShape, rc.type, rc.storage[3], rng),
                    {}};
    const int64_t inCount = rc.n * rc.c * rc.h * rc.w, outCount = rc.n * rc.c * rc.outH * rc.outW;
    std::vector<double> input(static_cast<size_t>(inCount));
    for (double &v : input) v = randomValue(rng, rc.specials);
    max_pool_v3_test::storeLogical(pc.origInput, nhwc, rc.n, rc.c, rc.h, rc.w, input);
    const std::vector<float> storedInput = max_pool_v3_test::loadLogical(pc.origInput, nhwc, rc.n, rc.c, rc.h, rc.w);

    // origOutput: the true forward, or per position one of: the forward value, some window element
    // (not necessarily the maximum), a random small integer (maybe in the window, maybe not), NaN, a zero.
    const std::vector<float> forward = reference::maxPoolV3Forward(storedInput, rc.n, rc.c, rc.h, rc.w, rc.params);
    const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(rc.h, rc.w, rc.params);
    std::vector<double> output(static_cast<size_t>(outCount));
    for (int64_t plane = 0, q = 0; plane < rc.n * rc.c; ++plane)
        for (int64_t oh = 0; oh < rc.outH; ++oh)
            for (int64_t ow = 0; ow < rc.outW; ++ow, ++q) {
                double value = forward[static_cast<size_t>(q)];
                if (!rc.trueForward) {
                    const auto rows =
                        reference::maxPoolV3Taps(oh, rc.params.strideH, windows.padTop, rc.params.kernelH, rc.h);
                    const auto cols =
                        reference::maxPoolV3Taps(ow, rc.params.strideW, windows.padLeft, rc.params.kernelW, rc.w);
                    switch (uniform(rng, 0, 5)) {
                        case 0:
                            break;
                        case 1:
                        case 2:
                            if (!rows.empty() && !cols.empty()) {
                                const int64_t hh = rows[uniform(rng, 0, int64_t(rows.size()) - 1)];
                                const int64_t ww = cols[uniform(rng, 0, int64_t(cols.size()) - 1)];
                                value = storedInput[static_cast<size_t>((plane * rc.h + hh) * rc.w + ww)];
                            }
                            break;
                        case 3:
                            value = static_cast<double>(uniform(rng, -4, 4));
                            break;
                        case 4:
                            value = kNaN;
                            break;
                        default:
                            value = uniform(rng, 0, 1) ? 0.0 : -0.0;
                            break;
                    }
                }
                output[static_cast<size_t>(q)] = value;
            }
    max_pool_v3_test::storeLogical(pc.origOutput, nhwc, rc.n, rc.c, rc.outH, rc.outW, output);

    std::vector<double> gradValues(static_cast<size_t>(outCount));
    for (double &g : gradValues) g = randomGrad(rng, rc.type, rc.specials);
    max_pool_v3_test::storeLogical(pc.grad, nhwc, rc.n, rc.c, rc.outH, rc.outW, gradValues);

    pc.expectedSums = reference::maxPoolV3GradSums(
        storedInput, max_pool_v3_test::loadLogical(pc.origOutput, nhwc, rc.n, rc.c, rc.outH, rc.outW),
        max_pool_v3_test::loadLogical(pc.grad, nhwc, rc.n, rc.c, rc.outH, rc.outW), rc.n, rc.c, rc.h, rc.w, rc.params);
    return pc;
}

// The case as one call of the differential driver: outGrad against the reference's float32 sums.
pool_diff::OperatorCall gradCall(const RandomCase &rc, PreparedCase &pc) {
    pool_diff::OperatorCall call;
    call.task = pool_diff::kRecomputeTask;
    call.trace = rc.describe();
    call.outputs = {{&pc.outGrad, "outGrad"}};
    call.inputs = {{&pc.origInput, "origInput"}, {&pc.origOutput, "origOutput"}, {&pc.grad, "grad"}};
    call.run = [&rc, &pc] {
        return max_pool_v3_test::runMaxPoolV3Grad(pc.origInput, pc.origOutput, pc.grad, rc.attributes(), pc.outGrad);
    };
    call.check = [&rc, &pc](const pool_diff::TwoPhase &status) {
        EXPECT_EQ(status.workspaceSize, 0u);
        const std::vector<uint64_t> bits =
            max_pool_v3_test::loadLogicalBits(pc.outGrad, rc.nhwc, rc.n, rc.c, rc.h, rc.w);
        int mismatches = 0;
        for (size_t i = 0; i < bits.size() && mismatches < 5; ++i) {
            const float sum = pc.expectedSums[i];
            const bool ok = std::isnan(sum) ? max_pool_v3_test::bitsAreNan(rc.type, bits[i])
                                            : bits[i] == max_pool_v3_test::bitsIn(rc.type, sum);
            if (!ok) {
                ++mismatches;
                ADD_FAILURE() << "outGrad logical element " << i << ": bits 0x" << std::hex << bits[i]
                              << ", expected float sum " << std::dec << sum;
            }
        }
    };
    return call;
}

TEST(MaxPoolV3GradDifferential, MatchesTheNaiveReference) {
    for (uint64_t seed : seedsWith({1, 2, 3})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed ^ (seed >> 32)));
        for (int i = 0; i < 400; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            const RandomCase rc = randomCase(rng, {});
            PreparedCase pc = prepare(rc, rng);
            pool_diff::OperatorCall call = gradCall(rc, pc);
            SCOPED_TRACE(call.trace);
            pool_diff::runChoice(call, "");
            if (testing::Test::HasFailure()) return;
        }
    }
}

TEST(MaxPoolV3GradDifferential, LargerPlanes) {
    // Fewer, larger cases: long rows for the disjoint single-write path and the overlap accumulation.
    for (uint64_t seed : seedsWith({5})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed * 7919));
        for (int i = 0; i < 30; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            CaseLimits limits;
            limits.maxPlanes = 3;
            limits.maxSide = 40;
            const RandomCase rc = randomCase(rng, limits);
            PreparedCase pc = prepare(rc, rng);
            pool_diff::OperatorCall call = gradCall(rc, pc);
            SCOPED_TRACE(call.trace);
            pool_diff::runChoice(call, "");
            if (testing::Test::HasFailure()) return;
        }
    }
}

TEST(MaxPoolV3GradImplementations, EveryImplementationMatchesTheReference) {
    pool_diff::DifferentialDriver driver("MaxPoolV3Grad");
    for (uint64_t seed : seedsWith({41, 42})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed ^ 0x5bd1e995u));
        for (int i = 0; i < 150; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            CaseLimits limits;
            limits.allowEmptyOutput = false;  // an empty output is a zero-fill, not this task
            limits.forceContiguousNchw = i % 4 == 0;
            // An eighth moving by 1 (contiguous NCHW float32, rows up to 56): the stride-1 gather's share.
            limits.stride1 = i % 8 == 4;
            // Some rows wide enough for full SIMD vectors of windows (8 or 16 lanes) at every stride.
            if (i % 4 < 2) limits.maxSide = 56;
            // Some with 3x3 windows at stride 2, NCHW or NHWC, rows up to two vectors of windows wide.
            if (i % 4 == 2) {
                limits.kernel3Stride2 = true;
                limits.maxSide = 70;
            }
            // Others with many channels: the channels-last kernel vectorises across C.
            if (i % 4 == 3) {
                limits.maxPlanes = 24;
                limits.maxSide = 6;
            }
            const RandomCase rc = randomCase(rng, limits);
            PreparedCase pc = prepare(rc, rng);
            pool_diff::OperatorCall call = gradCall(rc, pc);
            if (!driver.run(call)) return;
        }
    }
    driver.expectAcceptance(kMinimumShare);
    // The random layouts must reach the declining side of every dense kernel too.
    for (const auto &[name, log] : driver.acceptance())
        if (name.find("dense") != std::string::npos) EXPECT_LT(log.accepted, log.offered) << name;
}

TEST(MaxPoolV3GradThreads, ThreadCountsGiveBitIdenticalResults) {
    pool_diff::DifferentialDriver driver("MaxPoolV3Grad threads");
    for (uint64_t seed : seedsWith({61})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed + 17));
        for (int i = 0; i < 40; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            CaseLimits limits;
            limits.maxPlanes = 4;
            limits.maxSide = 12;
            limits.allowEmptyOutput = false;
            limits.forceContiguousNchw = i % 2 == 0;
            const RandomCase rc = randomCase(rng, limits);
            PreparedCase pc = prepare(rc, rng);
            pool_diff::OperatorCall call = gradCall(rc, pc);
            if (!driver.run(call, {1, 2, 3})) return;
        }
    }
}

}  // namespace
