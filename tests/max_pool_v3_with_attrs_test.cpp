// aclnnMaxPoolV3WithAttrs (SPEC §7.4), the forward of MaxPoolV3Grad, through the public C API: worked
// example values from SPEC §9 (WE-16, WE-17, WE-18 forward outputs), global pooling, NaN propagation,
// BF16, one test per validation rule, randomized differential tests against the naive reference
// (tests/reference/naive_max_pool_v3.*) with strided / permuted / offset views, and forward-then-grad
// round trips. Outputs are poisoned before every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_max_pool_v3.h"
#include "support/differential_driver.h"
#include "support/max_pool_v3_run.h"
#include "support/max_pool_v3_validation.h"
#include "support/phase_one_check.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace max_pool_v3_test;
using namespace test_support;

// Every non-reference implementation accepts at least this share of the random cases (measured:
// channels-last 23-27%, dense 57-63%; a third of the lowest as margin).
constexpr double kMinimumShare = 0.07;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

void checkForward(const std::vector<int64_t> &xShape, const std::vector<double> &x, const V3Attributes &attributes,
                  const std::vector<int64_t> &yShape, const std::vector<double> &expected, aclDataType type) {
    TestTensor input = filled(xShape, type, x);
    TestTensor y(yShape, type);  // poisoned
    expectSuccess(max_pool_v3_test::runMaxPoolV3WithAttrs(input, attributes, y));
    expectBits(y, expected, "y");
}

class MaxPoolV3WithAttrsExamples : public testing::TestWithParam<aclDataType> {};

TEST_P(MaxPoolV3WithAttrsExamples, WE16SameNhwc) {
    checkForward({1, 3, 3, 2}, {1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1},
                 {{1, 2, 2, 1}, {1, 2, 2, 1}, "SAME", std::nullopt, "NHWC", false, false}, {1, 2, 2, 2},
                 {5, 9, 6, 7, 8, 3, 9, 1}, GetParam());
}

TEST_P(MaxPoolV3WithAttrsExamples, WE17CalculatedFloorAndCeil) {
    const std::vector<double> x{1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13};
    V3Attributes attributes{{1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{1, 1, 1, 1},
                            "NCHW",       false,        false};
    checkForward({1, 1, 4, 4}, x, attributes, {1, 1, 2, 2}, {8, 7, 16, 15}, GetParam());
    attributes.ceilMode = true;
    checkForward({1, 1, 4, 4}, x, attributes, {1, 1, 3, 3}, {8, 7, 5, 16, 15, 13, 16, 15, 13}, GetParam());
}

TEST_P(MaxPoolV3WithAttrsExamples, WE18OverlappingValid) {
    checkForward({1, 1, 3, 3}, {1, 2, 3, 4, 9, 5, 6, 7, 8},
                 {{1, 1, 2, 2}, {1, 1, 1, 1}, "VALID", std::nullopt, nullptr, false, false}, {1, 1, 2, 2}, {9, 9, 9, 9},
                 GetParam());
}

TEST_P(MaxPoolV3WithAttrsExamples, GlobalPoolingTakesTheWholePlane) {
    // ksize / strides / pads values are not used (they must still be well-formed).
    const std::vector<double> x{1, -2, 3, 7, 5, -6, 0, 2, 4, -9, -8, -7, -6, -5, -4, -3, -2, -1};
    checkForward({1, 2, 3, 3}, x,
                 {{1, 1, 2, 2}, {1, 1, 5, 5}, nullptr, std::vector<int64_t>{3, 3, 3, 3}, "NCHW", true, false},
                 {1, 2, 1, 1}, {7, -1}, GetParam());
    // The same memory as NHWC (1,3,3,2): channel 0 = even positions, channel 1 = odd positions.
    checkForward({1, 3, 3, 2}, x, {{1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", std::nullopt, "NHWC", true, false}, {1, 1, 1, 2},
                 {5, 7}, GetParam());
}

TEST_P(MaxPoolV3WithAttrsExamples, NanPropagatesAndEmptyWindowsGiveMinusInfinity) {
    checkForward({1, 1, 2, 4}, {1, kNaN, 5, 2, 3, 4, kInf, 8},
                 {{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", std::nullopt, "NCHW", false, false}, {1, 1, 1, 2}, {kNaN, kInf},
                 GetParam());
    // pad_left 3 >= kernel 2: the first output column's window lies in the padding.
    checkForward({1, 1, 1, 2}, {4, -3},
                 {{1, 1, 1, 2}, {1, 1, 1, 2}, "CALCULATED", std::vector<int64_t>{0, 0, 3, 0}, "NCHW", false, false},
                 {1, 1, 1, 2}, {-kInf, 4}, GetParam());
    // Ties and signed zeros: the value is an input value, bit for bit (-0 stays -0 when it wins).
    checkForward({1, 1, 1, 2}, {-0.0, -1}, {{1, 1, 1, 2}, {1, 1, 1, 2}, "VALID", std::nullopt, "NCHW", false, false},
                 {1, 1, 1, 1}, {-0.0}, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MaxPoolV3WithAttrsExamples, testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16),
                         [](const testing::TestParamInfo<aclDataType> &info) {
                             return std::string(info.param == ACL_FLOAT     ? "Float"
                                                : info.param == ACL_FLOAT16 ? "Float16"
                                                                            : "Bf16");
                         });

TEST(MaxPoolV3WithAttrsExamplesBf16, ValuesAreCopiedBitExactly) {
    // Values with all 8 significant bits of BF16 in use: the output must be the input element's bits.
    checkForward({1, 1, 1, 4}, {1.0078125, 3.015625, -250, 3.0},
                 {{1, 1, 1, 2}, {1, 1, 1, 2}, "VALID", std::nullopt, "NCHW", false, false}, {1, 1, 1, 2},
                 {3.015625, 3.0}, ACL_BF16);
}

// ------------------------------------------------------------------------------------------- validation

// A valid call: x (1,2,4,4) -> y (1,2,2,2), 2x2 windows, stride 2, every default (nullptr) attribute.
struct ForwardValidationCase : max_pool_v3_test::V3AttributeSpecs {
    TensorSpec x{{1, 2, 4, 4}}, y{{1, 2, 2, 2}};
};

class ForwardCall : public test_support::PhaseOneCall, public max_pool_v3_test::V3AttributeArguments {
public:
    explicit ForwardCall(const ForwardValidationCase &c)
        : V3AttributeArguments(c), x(test_support::makeTensor(c.x)), y(test_support::makeTensor(c.y)) {}
    test_support::PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(xArg, ksizeArg, stridesArg, paddingMode, padsArg, dataFormat,
                                                           globalPooling, ceilMode, yArg, workspaceSize, executor);
        });
    }
    std::vector<const TestTensor *> outputs() const { return {&y}; }

    TestTensor x, y;
    const aclTensor *xArg = x;
    aclTensor *yArg = y;
};

using ForwardRow = test_support::ValidationRow<ForwardValidationCase, ForwardCall>;

std::vector<ForwardRow> forwardRows() {
    std::vector<ForwardRow> rows;
    rows.push_back({"BaselineIsAccepted", {}, accepted});

    // ---- rule 1: null pointers → 161001
    test_support::addNullPointerRows(rows, "Rule1NullPointerIs161001_", std::pair{"x", &ForwardCall::xArg},
                                     std::pair{"ksize", &ForwardCall::ksizeArg},
                                     std::pair{"strides", &ForwardCall::stridesArg},
                                     std::pair{"y", &ForwardCall::yArg});

    // ---- rule 2: dtypes
    rows.push_back({"Rule2IntegerXIs161002",
                    [](ForwardValidationCase &c) { c.x.type = c.y.type = ACL_INT32; },
                    invalid,
                    {"x", "dtype", "INT32"}});
    rows.push_back(
        {"Rule2DoubleXIs161002", [](ForwardValidationCase &c) { c.x.type = ACL_DOUBLE; }, invalid, {"x", "dtype"}});
    rows.push_back({"Rule2YDtypeDiffersIs161002",
                    [](ForwardValidationCase &c) { c.y.type = ACL_FLOAT16; },
                    invalid,
                    {"y", "dtype", "FLOAT16"}});

    // ---- rule 3: ranks and formats
    rows.push_back({"Rule3XRank3Is161002",
                    [](ForwardValidationCase &c) {
                        c.x.shape = {2, 4, 4};
                    },
                    invalid,
                    {"x", "rank"}});
    rows.push_back({"Rule3YRank5Is161002",
                    [](ForwardValidationCase &c) {
                        c.y.shape = {1, 2, 1, 2, 2};
                    },
                    invalid,
                    {"y", "rank"}});
    rows.push_back({"Rule3PrivateXFormatIs161002",
                    [](ForwardValidationCase &c) { c.x.format = ACL_FORMAT_NC1HWC0; },
                    invalid,
                    {"x", "format", "NC1HWC0"}});
    rows.push_back({"Rule3UndefinedYFormatIs161002",
                    [](ForwardValidationCase &c) { c.y.format = ACL_FORMAT_UNDEFINED; },
                    invalid,
                    {"y", "format", "UNDEFINED"}});

    // ---- rule 4: strings; rule 6: ceilMode only with CALCULATED (global pooling does not lift it)
    rows.push_back({"Rule4DataFormatIs161002",
                    [](ForwardValidationCase &c) { c.dataFormat = "NC"; },
                    invalid,
                    {"dataFormat", "NC"}});
    rows.push_back({"Rule4PaddingModeIs161002",
                    [](ForwardValidationCase &c) { c.paddingMode = "calculated"; },
                    invalid,
                    {"paddingMode", "calculated"}});
    rows.push_back({"Rule6CeilModeWithSameIs161002",
                    [](ForwardValidationCase &c) {
                        c.ceilMode = true;
                        c.paddingMode = "SAME";
                    },
                    invalid,
                    {"ceilMode", "SAME"}});
    rows.push_back({"Rule6CeilModeWithSameAndGlobalPoolingIs161002",
                    [](ForwardValidationCase &c) {
                        c.ceilMode = true;
                        c.paddingMode = "SAME";
                        c.globalPooling = true;
                    },
                    invalid,
                    {"ceilMode"}});

    // ---- rules 7 and 8: list lengths, the N and C entries
    rows.push_back({"Rule7KsizeLength3Is161002",
                    [](ForwardValidationCase &c) {
                        c.ksize = {1, 2, 2};
                    },
                    invalid,
                    {"ksize", "length 4"}});
    rows.push_back({"Rule7PadsLength3Is161002",
                    [](ForwardValidationCase &c) {
                        c.pads = std::vector<int64_t>{1, 2, 2};
                    },
                    invalid,
                    {"pads", "length 4"}});
    rows.push_back({"Rule8KsizeChannelEntryIs161002",
                    [](ForwardValidationCase &c) {
                        c.ksize = {1, 3, 2, 2};
                    },
                    invalid,
                    {"ksize[1]", "C"}});
    rows.push_back({"Rule8StridesBatchEntryIs161002",
                    [](ForwardValidationCase &c) {
                        c.strides = {2, 1, 2, 2};
                    },
                    invalid,
                    {"strides[0]", "N"}});

    // ---- kernel and stride must be positive but have no upper limit (SPEC §7.4)
    rows.push_back({"KernelZeroIs161002",
                    [](ForwardValidationCase &c) {
                        c.ksize = {1, 1, 0, 2};
                    },
                    invalid,
                    {"ksize[2]", ">= 1"}});
    rows.push_back({"NegativeStrideIs161002",
                    [](ForwardValidationCase &c) {
                        c.strides = {1, 1, 2, -1};
                    },
                    invalid,
                    {"strides[3]", ">= 1"}});
    rows.push_back({"KernelOf300AndStrideOf64AreAccepted",
                    [](ForwardValidationCase &c) {
                        c.x.shape = {1, 1, 300, 2};
                        c.y.shape = {1, 1, 1, 1};
                        c.ksize = {1, 1, 300, 2};
                        c.strides = {1, 1, 64, 64};
                        c.paddingMode = "VALID";
                        c.dataFormat = "NCHW";
                    },
                    accepted});

    // ---- rule 10: pads; global pooling is supported
    rows.push_back({"Rule10NegativePadIs161002",
                    [](ForwardValidationCase &c) {
                        c.pads = std::vector<int64_t>{0, -2, 0, 0};
                    },
                    invalid,
                    {"pads[1]", "pad_bottom", "-2"}});
    rows.push_back({"Rule10GlobalPoolingIsAccepted",
                    [](ForwardValidationCase &c) {
                        c.globalPooling = true;
                        c.y.shape = {1, 2, 1, 1};
                    },
                    accepted});

    // ---- output shape and empty inputs
    rows.push_back({"OutputShapeDiffersIs161002",
                    [](ForwardValidationCase &c) {
                        c.y.shape = {1, 2, 2, 3};
                    },
                    invalid,
                    {"y", "[1, 2, 2, 2]", "[1, 2, 2, 3]"}});
    // No output position for a non-empty x: 3x3 kernel on 2x2, VALID.
    rows.push_back({"NoOutputPositionIs161002",
                    [](ForwardValidationCase &c) {
                        c.x.shape = {1, 2, 2, 2};
                        c.y.shape = {1, 2, 0, 0};
                        c.ksize = {1, 1, 3, 3};
                        c.paddingMode = "VALID";
                    },
                    invalid,
                    {"Ho", "x"}});
    // Empty x: y must be empty too.
    rows.push_back({"EmptyXWithNonEmptyYIs161002",
                    [](ForwardValidationCase &c) {
                        c.x.shape = {0, 2, 4, 4};
                    },
                    invalid,
                    {"x", "empty", "y"}});
    return rows;
}

POOLGRAD_VALIDATION_TABLE(V3ForwardValidationRows, forwardRows());

TEST(V3ForwardValidation, EmptyXIsANoOp) {
    TestTensor emptyX({0, 2, 4, 4}, ACL_FLOAT), emptyY({0, 2, 2, 2}, ACL_FLOAT);
    expectSuccess(max_pool_v3_test::runMaxPoolV3WithAttrs(
        emptyX, {{1, 1, 2, 2}, {1, 1, 2, 2}, nullptr, std::nullopt, nullptr, false, false}, emptyY));
}

// A channels-last forward without indices streams its values when they exceed 4 MiB, as one with indices
// does (it used to ask whether its absent indices were large enough, and never streamed), and gives the
// reference's values bit for bit.
TEST(V3WithAttrsStreaming, LargeNhwcValuesStreamWithoutIndices) {
    pool_diff::LibraryControlsGuard reset;
    poolgradSetNumThreads(1);
    std::mt19937 rng(53);
    std::vector<double> x(static_cast<size_t>(260 * 258 * 64));
    for (double &value : x) value = static_cast<double>(std::uniform_int_distribution<int>(-50, 50)(rng));
    const TestTensor input = filled({1, 260, 258, 64}, ACL_FLOAT, x);
    const V3Attributes attributes{{1, 3, 3, 1}, {1, 2, 2, 1}, "VALID", std::nullopt, "NHWC", false, false};
    std::vector<uint64_t> expected;
    for (const char *name : {"cpu_argmax_forward_reference", "cpu_argmax_forward_channels_last"}) {
        SCOPED_TRACE(name);
        ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
        TestTensor y({1, 129, 128, 64}, ACL_FLOAT);  // poisoned; 4 MiB + 32 KiB
        expectSuccess(max_pool_v3_test::runMaxPoolV3WithAttrs(input, attributes, y));
        EXPECT_EQ(y.bytesOutsideViewChanged(), 0);
        poolgradRunReport report{};
        ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        EXPECT_STREQ(report.implementation, name);
        if (expected.empty()) {
            expected = pool_diff::snapshot(y);
        } else {
            EXPECT_NE(std::string(report.plan).find("streaming stores"), std::string::npos) << report.plan;
            EXPECT_EQ(pool_diff::snapshot(y), expected);
        }
    }
}

// ------------------------------------------------------------------------------- differential tests

int64_t uniform(std::mt19937 &rng, int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

struct ForwardCase {
    aclDataType type = ACL_FLOAT;
    bool nhwc = false;
    int64_t n = 1, c = 1, h = 1, w = 1, outH = 1, outW = 1;
    reference::MaxPoolV3Params params;
    Storage storage[2] = {Storage::Contiguous, Storage::Contiguous};
    bool specials = false;

    V3Attributes attributes() const { return max_pool_v3_test::attributesFor(params, nhwc); }

    std::string describe() const {
        return max_pool_v3_test::describeProblem(type, nhwc, n, c, h, w, params, outH, outW) + " global" +
               std::to_string(params.globalPooling) + (specials ? " specials" : "") + " storage " +
               max_pool_v3_test::storageName(storage[0]) + ' ' + max_pool_v3_test::storageName(storage[1]);
    }
};

// wideStride2: float32 rows of 34 to 60 columns under windows three wide at stride 2 along W, left and right
// padding 0 or 1 (what the stride-2 forward takes); threeByThree (with wideStride2): windows 3 high at stride 2
// too, top and bottom padding 0 or 1 (what the 3x3 stride-2 forward takes); stride1: windows up to 5x5 moving by 1,
// paddings up to half the kernel, rows of 20 to 40 columns (what the stride-1 forward takes); stride1Float32 (with
// stride1): float32 rows of 20 to 38 columns (at most 40 windows: what the flat stride-1 forward takes too).
ForwardCase randomForwardCase(std::mt19937 &rng, bool contiguousNchw, int64_t maxSide = 9, bool wideStride2 = false,
                              bool threeByThree = false, bool stride1 = false, bool stride1Float32 = false) {
    for (;;) {
        ForwardCase fc;
        const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
        fc.type = types[uniform(rng, 0, 2)];
        fc.nhwc = !contiguousNchw && uniform(rng, 0, 1);
        fc.n = uniform(rng, 1, 2);
        fc.c = uniform(rng, 1, 3);
        fc.h = uniform(rng, 1, maxSide);
        fc.w = uniform(rng, 1, maxSide);
        reference::MaxPoolV3Params &p = fc.params;
        p.mode = static_cast<reference::V3PaddingMode>(uniform(rng, 0, 2));
        p.kernelH = uniform(rng, 1, 5);
        p.kernelW = uniform(rng, 1, 5);
        p.strideH = uniform(rng, 1, 4);
        p.strideW = uniform(rng, 1, 4);
        if (p.mode == reference::V3PaddingMode::Calculated) {
            for (int64_t &pad : p.pads) pad = uniform(rng, 0, 6) == 0 ? uniform(rng, 3, 6) : uniform(rng, 0, 2);
            p.ceilMode = uniform(rng, 0, 1);
        }
        p.globalPooling = uniform(rng, 0, 9) == 0;
        if (wideStride2) {
            fc.type = ACL_FLOAT;
            fc.w = uniform(rng, 34, 60);
            p.mode = reference::V3PaddingMode::Calculated;
            p.kernelW = 3;
            p.strideW = 2;
            p.pads[2] = uniform(rng, 0, 1);
            p.pads[3] = uniform(rng, 0, 1);
            p.globalPooling = false;
        }
        if (threeByThree) {
            p.kernelH = 3;
            p.strideH = 2;
            p.pads[0] = uniform(rng, 0, 1);
            p.pads[1] = uniform(rng, 0, 1);
        }
        if (stride1) {
            fc.w = uniform(rng, 20, 40);
            // Clamped rather than drawn from a narrower range, so that the draws after it stay those of the seeds.
            if (stride1Float32) fc.w = std::min<int64_t>(fc.w, 38);
            if (stride1Float32) fc.type = ACL_FLOAT;
            p.mode = reference::V3PaddingMode::Calculated;
            p.strideH = p.strideW = 1;
            if (p.kernelH * p.kernelW == 1) p.kernelW = 2;
            p.pads[0] = p.pads[1] = uniform(rng, 0, p.kernelH / 2);
            p.pads[2] = p.pads[3] = uniform(rng, 0, p.kernelW / 2);
            p.globalPooling = false;
        }
        const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(fc.h, fc.w, p);
        fc.outH = windows.outH;
        fc.outW = windows.outW;
        if (fc.outH < 1 || fc.outW < 1) continue;
        for (Storage &s : fc.storage)
            s = contiguousNchw ? Storage::Contiguous : static_cast<Storage>(uniform(rng, 0, 3));
        fc.specials = uniform(rng, 0, 3) == 0;
        return fc;
    }
}

std::vector<double> randomInput(std::mt19937 &rng, int64_t count, bool specials) {
    std::vector<double> values(static_cast<size_t>(count));
    for (double &v : values) {
        v = static_cast<double>(uniform(rng, -20, 20)) / 4.0;
        if (specials) {
            switch (uniform(rng, 0, 11)) {
                case 0:
                    v = kNaN;
                    break;
                case 1:
                    v = kInf;
                    break;
                case 2:
                    v = -kInf;
                    break;
                case 3:
                    v = -0.0;
                    break;
                default:
                    break;
            }
        }
    }
    return values;
}

// The operands of a case in their layouts, x holding random data, and the reference's y.
struct PreparedForward {
    TestTensor x, y;
    std::vector<float> expected;
};

PreparedForward prepareForward(const ForwardCase &fc, std::mt19937 &rng) {
    PreparedForward pf{
        max_pool_v3_test::makeOperand(max_pool_v3_test::layoutShape(fc.nhwc, fc.n, fc.c, fc.h, fc.w), fc.type,
                                      fc.storage[0], rng),
        max_pool_v3_test::makeOperand(max_pool_v3_test::layoutShape(fc.nhwc, fc.n, fc.c, fc.outH, fc.outW), fc.type,
                                      fc.storage[1], rng),
        {}};
    max_pool_v3_test::storeLogical(pf.x, fc.nhwc, fc.n, fc.c, fc.h, fc.w,
                                   randomInput(rng, fc.n * fc.c * fc.h * fc.w, fc.specials));
    const std::vector<float> stored = max_pool_v3_test::loadLogical(pf.x, fc.nhwc, fc.n, fc.c, fc.h, fc.w);
    pf.expected = reference::maxPoolV3Forward(stored, fc.n, fc.c, fc.h, fc.w, fc.params);
    return pf;
}

// The case as one call of the differential driver.
pool_diff::OperatorCall forwardCall(const ForwardCase &fc, PreparedForward &pf) {
    pool_diff::OperatorCall call;
    call.task = pool_diff::kForwardTask;
    call.trace = fc.describe();
    call.outputs = {{&pf.y, "y"}};
    call.inputs = {{&pf.x, "x"}};
    call.run = [&fc, &pf] { return max_pool_v3_test::runMaxPoolV3WithAttrs(pf.x, fc.attributes(), pf.y); };
    call.check = [&fc, &pf](const pool_diff::TwoPhase &) {
        const std::vector<uint64_t> bits =
            max_pool_v3_test::loadLogicalBits(pf.y, fc.nhwc, fc.n, fc.c, fc.outH, fc.outW);
        for (size_t i = 0; i < bits.size(); ++i) {
            if (std::isnan(pf.expected[i]))
                EXPECT_TRUE(max_pool_v3_test::bitsAreNan(fc.type, bits[i])) << "y logical element " << i;
            else
                EXPECT_EQ(bits[i], max_pool_v3_test::bitsIn(fc.type, pf.expected[i]))
                    << "y logical element " << i << " expected " << pf.expected[i];
        }
    };
    return call;
}

TEST(MaxPoolV3WithAttrsDifferential, MatchesTheNaiveReference) {
    for (uint64_t seed : seedsWith({1, 2})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed * 2654435761u));
        for (int i = 0; i < 300; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            const ForwardCase fc = randomForwardCase(rng, i % 3 == 0);
            PreparedForward pf = prepareForward(fc, rng);
            pool_diff::OperatorCall call = forwardCall(fc, pf);
            SCOPED_TRACE(call.trace);
            pool_diff::runChoice(call, "");
            if (testing::Test::HasFailure()) return;
        }
    }
}

TEST(MaxPoolV3WithAttrsImplementations, EveryForwardImplementationMatchesTheReference) {
    pool_diff::DifferentialDriver driver("MaxPoolV3WithAttrs");
    for (uint64_t seed : seedsWith({7})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed));
        for (int i = 0; i < 80; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            // Half contiguous NCHW; every fourth of those with the stride-2 forward's wide rows, every other one of
            // them with 3x3 windows at stride 2 (the 3x3 stride-2 forward's); one in eight more contiguous with
            // windows moving by 1 (the stride-1 forward's), two in three of those float32 on rows of at most 40
            // windows (the flat stride-1 forward's too).
            const bool stride1 = i % 8 == 3, stride1Float32 = stride1 && i / 8 % 3 != 0;
            const ForwardCase fc = randomForwardCase(rng, i % 2 == 0 || stride1, 9, i % 8 == 0 || i % 8 == 4,
                                                     i % 8 == 4, stride1, stride1Float32);
            PreparedForward pf = prepareForward(fc, rng);
            pool_diff::OperatorCall call = forwardCall(fc, pf);
            if (!driver.run(call)) return;
        }
    }
    driver.expectAcceptance(kMinimumShare);
}

TEST(MaxPoolV3WithAttrsThreads, ThreadCountsGiveIdenticalResults) {
    pool_diff::DifferentialDriver driver("MaxPoolV3WithAttrs threads");
    std::mt19937 rng(99);
    for (int i = 0; i < 24; ++i) {
        SCOPED_TRACE("case " + std::to_string(i));
        const ForwardCase fc = randomForwardCase(rng, i % 2 == 0, 14);
        PreparedForward pf = prepareForward(fc, rng);
        pool_diff::OperatorCall call = forwardCall(fc, pf);
        if (!driver.run(call, {1, 2, 3})) return;
    }
}

// ----------------------------------------------------------------------------- forward then grad

TEST(MaxPoolV3RoundTrip, ForwardOutputFeedsTheGrad) {
    for (uint64_t seed : seedsWith({3})) {
        SCOPED_TRACE(seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed + 1000));
        for (int i = 0; i < 120; ++i) {
            ForwardCase fc = randomForwardCase(rng, i % 4 == 0);
            fc.params.globalPooling = false;  // the grad does not support it
            if (fc.type == ACL_BF16) fc.type = ACL_FLOAT16;
            const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(fc.h, fc.w, fc.params);
            fc.outH = windows.outH;
            fc.outW = windows.outW;
            if (fc.outH < 1 || fc.outW < 1) continue;
            SCOPED_TRACE("case " + std::to_string(i) + ": " + fc.describe());
            const auto inShape = max_pool_v3_test::layoutShape(fc.nhwc, fc.n, fc.c, fc.h, fc.w);
            const auto outShape = max_pool_v3_test::layoutShape(fc.nhwc, fc.n, fc.c, fc.outH, fc.outW);
            TestTensor x = max_pool_v3_test::makeOperand(inShape, fc.type, fc.storage[0], rng);
            TestTensor y = max_pool_v3_test::makeOperand(outShape, fc.type, fc.storage[1], rng);
            TestTensor grad = max_pool_v3_test::makeOperand(outShape, fc.type, Storage::Gapped, rng);
            TestTensor outGrad = max_pool_v3_test::makeOperand(inShape, fc.type, fc.storage[1], rng);
            max_pool_v3_test::storeLogical(x, fc.nhwc, fc.n, fc.c, fc.h, fc.w,
                                           randomInput(rng, fc.n * fc.c * fc.h * fc.w, fc.specials));
            std::vector<double> gradValues(static_cast<size_t>(fc.n * fc.c * fc.outH * fc.outW));
            for (double &g : gradValues) g = static_cast<double>(uniform(rng, -64, 64)) / 8.0;
            max_pool_v3_test::storeLogical(grad, fc.nhwc, fc.n, fc.c, fc.outH, fc.outW, gradValues);

            const V3Attributes attributes = fc.attributes();
            expectSuccess(max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y));
            expectSuccess(max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, outGrad));

            const std::vector<float> xs = max_pool_v3_test::loadLogical(x, fc.nhwc, fc.n, fc.c, fc.h, fc.w);
            const std::vector<float> forward = reference::maxPoolV3Forward(xs, fc.n, fc.c, fc.h, fc.w, fc.params);
            const std::vector<float> sums = reference::maxPoolV3GradSums(
                xs, forward, max_pool_v3_test::loadLogical(grad, fc.nhwc, fc.n, fc.c, fc.outH, fc.outW), fc.n, fc.c,
                fc.h, fc.w, fc.params);
            const std::vector<uint64_t> bits =
                max_pool_v3_test::loadLogicalBits(outGrad, fc.nhwc, fc.n, fc.c, fc.h, fc.w);
            for (size_t k = 0; k < bits.size(); ++k) {
                if (std::isnan(sums[k]))
                    EXPECT_TRUE(max_pool_v3_test::bitsAreNan(fc.type, bits[k])) << k;
                else
                    EXPECT_EQ(bits[k], max_pool_v3_test::bitsIn(fc.type, sums[k])) << "outGrad logical " << k;
            }
            EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
            if (testing::Test::HasFailure()) return;
        }
    }
}

}  // namespace
