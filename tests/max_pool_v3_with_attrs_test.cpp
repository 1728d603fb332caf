// aclnnMaxPoolV3WithAttrs (SPEC §7.4), the forward of MaxPoolV3Grad, through the public C API: worked
// example values from SPEC §9 (WE-16, WE-17, WE-18 forward outputs), global pooling, NaN propagation,
// BF16, one test per validation rule, randomized differential tests against the naive reference
// (tests/reference/naive_max_pool_v3.*) with strided / permuted / offset views, and forward-then-grad
// round trips. Outputs are poisoned before every run.
#include <gtest/gtest.h>

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
#include "support/test_tensor.h"

namespace {

using max_pool_v3_test::expectBits;
using max_pool_v3_test::expectSuccess;
using max_pool_v3_test::filled;
using max_pool_v3_test::seedsWith;
using max_pool_v3_test::seedTrace;
using max_pool_v3_test::Storage;
using max_pool_v3_test::V3Attributes;
using max_pool_v3_test::V3Status;
using test_support::IntArray;
using test_support::TestTensor;

constexpr aclnnStatus kNullptr = 161001;
constexpr aclnnStatus kInvalid = 161002;
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

struct ForwardCall {
    const aclTensor *x;
    const aclIntArray *ksize, *strides;
    const char *paddingMode;
    const aclIntArray *pads;
    const char *dataFormat;
    bool globalPooling, ceilMode;
    aclTensor *y;
    bool nullWorkspaceSize = false, nullExecutor = false;
};

void expectOutcome(const ForwardCall &c, aclnnStatus code, std::initializer_list<const char *> mentions) {
    uint64_t workspaceSize = 0xFEEDFACEull;
    aclOpExecutor *executor = reinterpret_cast<aclOpExecutor *>(uintptr_t{0xDEAD0});
    const aclnnStatus status = aclnnMaxPoolV3WithAttrsGetWorkspaceSize(
        c.x, c.ksize, c.strides, c.paddingMode, c.pads, c.dataFormat, c.globalPooling, c.ceilMode, c.y,
        c.nullWorkspaceSize ? nullptr : &workspaceSize, c.nullExecutor ? nullptr : &executor);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, code) << message;
    if (status == 0) {
        EXPECT_EQ(workspaceSize, 0u);
        aclDestroyAclOpExecutor(executor);
        return;
    }
    if (!c.nullWorkspaceSize) EXPECT_EQ(workspaceSize, 0u);
    if (!c.nullExecutor) EXPECT_EQ(executor, nullptr);
    for (const char *word : mentions)
        EXPECT_NE(message.find(word), std::string::npos) << "message \"" << message << "\" lacks \"" << word << "\"";
}

class V3ForwardValidation : public testing::Test {
protected:
    V3ForwardValidation()
        : x({1, 2, 4, 4}, ACL_FLOAT), y({1, 2, 2, 2}, ACL_FLOAT), ksize({1, 1, 2, 2}), strides({1, 1, 2, 2}) {}
    ForwardCall call() { return {x, ksize, strides, nullptr, nullptr, nullptr, false, false, y}; }
    TestTensor x, y;
    IntArray ksize, strides;
};

TEST_F(V3ForwardValidation, BaselineIsAccepted) { expectOutcome(call(), 0, {}); }

TEST_F(V3ForwardValidation, Rule1NullPointers) {
    ForwardCall c = call();
    c.x = nullptr;
    expectOutcome(c, kNullptr, {"x"});
    c = call();
    c.ksize = nullptr;
    expectOutcome(c, kNullptr, {"ksize"});
    c = call();
    c.strides = nullptr;
    expectOutcome(c, kNullptr, {"strides"});
    c = call();
    c.y = nullptr;
    expectOutcome(c, kNullptr, {"y"});
    c = call();
    c.nullWorkspaceSize = true;
    expectOutcome(c, kNullptr, {"workspaceSize"});
    c = call();
    c.nullExecutor = true;
    expectOutcome(c, kNullptr, {"executor"});
}

TEST_F(V3ForwardValidation, Rule2DataTypes) {
    TestTensor xi({1, 2, 4, 4}, ACL_INT32), yi({1, 2, 2, 2}, ACL_INT32), xd({1, 2, 4, 4}, ACL_DOUBLE),
        yh({1, 2, 2, 2}, ACL_FLOAT16);
    ForwardCall c = call();
    c.x = xi;
    c.y = yi;
    expectOutcome(c, kInvalid, {"x", "dtype", "INT32"});
    c = call();
    c.x = xd;
    expectOutcome(c, kInvalid, {"x", "dtype"});
    c = call();
    c.y = yh;
    expectOutcome(c, kInvalid, {"y", "dtype", "FLOAT16"});
}

TEST_F(V3ForwardValidation, Rule3RanksAndFormats) {
    TestTensor x3({2, 4, 4}, ACL_FLOAT), y5({1, 2, 1, 2, 2}, ACL_FLOAT),
        xPrivate({1, 2, 4, 4}, ACL_FLOAT, ACL_FORMAT_NC1HWC0),
        yUndefined({1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_UNDEFINED);
    ForwardCall c = call();
    c.x = x3;
    expectOutcome(c, kInvalid, {"x", "rank"});
    c = call();
    c.y = y5;
    expectOutcome(c, kInvalid, {"y", "rank"});
    c = call();
    c.x = xPrivate;
    expectOutcome(c, kInvalid, {"x", "format", "NC1HWC0"});
    c = call();
    c.y = yUndefined;
    expectOutcome(c, kInvalid, {"y", "format", "UNDEFINED"});
}

TEST_F(V3ForwardValidation, Rule4Strings) {
    ForwardCall c = call();
    c.dataFormat = "NC";
    expectOutcome(c, kInvalid, {"dataFormat", "NC"});
    c = call();
    c.paddingMode = "calculated";
    expectOutcome(c, kInvalid, {"paddingMode", "calculated"});
}

TEST_F(V3ForwardValidation, Rule6CeilModeOnlyWithCalculated) {
    ForwardCall c = call();
    c.ceilMode = true;
    c.paddingMode = "SAME";
    expectOutcome(c, kInvalid, {"ceilMode", "SAME"});
    c.globalPooling = true;  // global pooling does not lift the rule
    expectOutcome(c, kInvalid, {"ceilMode"});
}

TEST_F(V3ForwardValidation, Rules7And8ListsAndBatchChannelEntries) {
    IntArray three({1, 2, 2}), kC({1, 3, 2, 2}), sN({2, 1, 2, 2});
    ForwardCall c = call();
    c.ksize = three;
    expectOutcome(c, kInvalid, {"ksize", "length 4"});
    c = call();
    c.pads = three;
    expectOutcome(c, kInvalid, {"pads", "length 4"});
    c = call();
    c.ksize = kC;
    expectOutcome(c, kInvalid, {"ksize[1]", "C"});
    c = call();
    c.strides = sN;
    expectOutcome(c, kInvalid, {"strides[0]", "N"});
}

TEST_F(V3ForwardValidation, KernelAndStrideMustBePositiveButHaveNoUpperLimit) {
    IntArray k0({1, 1, 0, 2}), sNeg({1, 1, 2, -1});
    ForwardCall c = call();
    c.ksize = k0;
    expectOutcome(c, kInvalid, {"ksize[2]", ">= 1"});
    c = call();
    c.strides = sNeg;
    expectOutcome(c, kInvalid, {"strides[3]", ">= 1"});
    // No 255 / 63 limits in the forward (SPEC §7.4): a 300-row kernel, stride 64.
    TestTensor tall({1, 1, 300, 2}, ACL_FLOAT), out({1, 1, 1, 1}, ACL_FLOAT);
    IntArray k300({1, 1, 300, 2}), s64({1, 1, 64, 64});
    expectOutcome({tall, k300, s64, "VALID", nullptr, "NCHW", false, false, out}, 0, {});
}

TEST_F(V3ForwardValidation, Rule10PadsAndGlobalPoolingIsSupported) {
    IntArray negative({0, -2, 0, 0});
    ForwardCall c = call();
    c.pads = negative;
    expectOutcome(c, kInvalid, {"pads[1]", "pad_bottom", "-2"});
    TestTensor y11({1, 2, 1, 1}, ACL_FLOAT);
    c = call();
    c.globalPooling = true;
    c.y = y11;
    expectOutcome(c, 0, {});
}

TEST_F(V3ForwardValidation, OutputShapeAndEmptyInputs) {
    TestTensor wrong({1, 2, 2, 3}, ACL_FLOAT);
    ForwardCall c = call();
    c.y = wrong;
    expectOutcome(c, kInvalid, {"y", "[1, 2, 2, 2]", "[1, 2, 2, 3]"});
    // No output position for a non-empty x: 3x3 kernel on 2x2, VALID.
    TestTensor small({1, 2, 2, 2}, ACL_FLOAT), none({1, 2, 0, 0}, ACL_FLOAT);
    IntArray k3({1, 1, 3, 3});
    expectOutcome({small, k3, strides, "VALID", nullptr, nullptr, false, false, none}, kInvalid, {"Ho", "x"});
    // Empty x: a no-op, and y must be empty too.
    TestTensor emptyX({0, 2, 4, 4}, ACL_FLOAT), emptyY({0, 2, 2, 2}, ACL_FLOAT);
    expectSuccess(max_pool_v3_test::runMaxPoolV3WithAttrs(
        emptyX, {{1, 1, 2, 2}, {1, 1, 2, 2}, nullptr, std::nullopt, nullptr, false, false}, emptyY));
    expectOutcome({emptyX, ksize, strides, nullptr, nullptr, nullptr, false, false, y}, kInvalid, {"x", "empty", "y"});
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

ForwardCase randomForwardCase(std::mt19937 &rng, bool contiguousNchw, int64_t maxSide = 9) {
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
            const ForwardCase fc = randomForwardCase(rng, i % 2 == 0);  // half contiguous NCHW
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
