// Phase-1 validation of aclnnMaxPool3dWithArgmax, SPEC §7.1 rows 1..8 (and §1.2, §11 #13, #20).
// Every row starts from a valid call (self (1,1,2,4,4), k=s=(1,2,2), p=0, d=1 → out/indices
// (1,1,2,2,2)) and breaks exactly one rule; the table harness (support/validation_cases.h) checks the exact
// code, that *executor and *workspaceSize were cleared, that aclGetRecentErrMsg() names the argument and
// that out and indices were not written. Order rows break two rules at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "support/phase_one_check.h"
#include "support/pool_validation_rows.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace test_support;

struct ForwardCase {
    TensorSpec self{{1, 1, 2, 4, 4}, ACL_FLOAT};
    TensorSpec out{{1, 1, 2, 2, 2}, ACL_FLOAT};
    TensorSpec indices{{1, 1, 2, 2, 2}, ACL_INT64};
    std::vector<int64_t> kernel{1, 2, 2}, stride{1, 2, 2}, padding{0}, dilation{1};
    bool ceilMode = false;

    ForwardCase &valueTypes(aclDataType type) {
        self.type = out.type = type;
        return *this;
    }
    static constexpr const char *outputArgument = "out";  // named when its size is wrong

    ForwardCase &allFormats(aclFormat format) {
        self.format = out.format = indices.format = format;
        return *this;
    }
    ForwardCase &inputView(std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
        self.shape = std::move(shape);
        self.strides = std::move(strides);
        return *this;
    }
    ForwardCase &outputShape(std::vector<int64_t> shape) {
        out.shape = indices.shape = std::move(shape);
        return *this;
    }
};

class ForwardCall : public PhaseOneCall, public PoolListArguments {
public:
    explicit ForwardCall(const ForwardCase &c = ForwardCase{})
        : PoolListArguments(c), self(makeTensor(c.self)), out(makeTensor(c.out)), indices(makeTensor(c.indices)) {}
    PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(selfArg, kernelArg, strideArg, paddingArg, dilationArg,
                                                            ceilMode, outArg, indicesArg, workspaceSize, executor);
        });
    }
    aclnnStatus run() { return callPhaseTwo(aclnnMaxPool3dWithArgmax); }
    std::vector<const TestTensor *> outputs() const { return {&out, &indices}; }

    TestTensor self, out, indices;

    const aclTensor *selfArg = self;
    aclTensor *outArg = out;
    aclTensor *indicesArg = indices;
};

using Row = ValidationRow<ForwardCase, ForwardCall>;

const auto phaseOne = phaseOneOf<ForwardCall, ForwardCase>;

const auto parameterRow = poolListRow<ForwardCase, ForwardCall>;

std::vector<Row> forwardRows() {
    std::vector<Row> rows;
    // ---- row 1: null pointers → 161001
    test_support::addNullPointerRows(
        rows, "Row1NullPointerIs161001_", std::pair{"self", &ForwardCall::selfArg},
        std::pair{"kernelSize", &ForwardCall::kernelArg}, std::pair{"stride", &ForwardCall::strideArg},
        std::pair{"padding", &ForwardCall::paddingArg}, std::pair{"dilation", &ForwardCall::dilationArg},
        std::pair{"out", &ForwardCall::outArg}, std::pair{"indices", &ForwardCall::indicesArg});
    rows.push_back({"Row1SeveralNullsReportTheFirst", {}, nullPointer, {"stride"}, {"out "}, [](ForwardCall &call) {
                        call.strideArg = nullptr;
                        call.outArg = nullptr;
                        call.executorArg = false;
                    }});

    // ---- row 2: dtypes → 161002
    addDtypeRows(rows);

    // ---- row 3: formats → 161002
    rows.push_back({"Row3OutFormatDiffersFromSelfIs161002",
                    [](ForwardCase &c) { c.out.format = ACL_FORMAT_NCDHW; },
                    invalid,
                    {"out", "format"}});
    rows.push_back({"Row3IndicesFormatDiffersFromSelfIs161002",
                    [](ForwardCase &c) { c.indices.format = ACL_FORMAT_NCHW; },
                    invalid,
                    {"indices", "format"}});
    // All three tensors share the format: only "self format ∈ {ND, NCDHW, NCHW}" is broken.
    for (aclFormat format :
         {ACL_FORMAT_NDHWC /* §11 #20 */, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NC, ACL_FORMAT_NCL,
          ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_FRACTAL_NZ,
          ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D, ACL_FORMAT_FRACTAL_NZ_C0_16})
        rows.push_back({"Row3SelfFormatOutsideNdNcdhwNchwIs161002_" + formatName(format),
                        [format](ForwardCase &c) { c.allFormats(format); },
                        invalid,
                        {"self", "format"}});

    // ---- row 4: ranks → 161002
    rows.push_back({"Row4SelfRank3Is161002",
                    [](ForwardCase &c) {
                        c.self.shape = {2, 4, 4};
                        c.outputShape({2, 2, 2});
                    },
                    invalid,
                    {"self", "rank"}});
    rows.push_back({"Row4SelfRank6Is161002",
                    [](ForwardCase &c) {
                        c.self.shape = {1, 1, 1, 2, 4, 4};
                        c.outputShape({1, 1, 1, 2, 2, 2});
                    },
                    invalid,
                    {"self", "rank"}});
    rows.push_back({"Row4OutRankDiffersIs161002",
                    [](ForwardCase &c) {
                        c.out.shape = {1, 2, 2, 2};
                    },
                    invalid,
                    {"out", "rank"}});
    rows.push_back({"Row4IndicesRankDiffersIs161002",
                    [](ForwardCase &c) { c.indices.shape = {1, 1, 1, 2, 2, 2}; },
                    invalid,
                    {"indices", "rank"}});

    // ---- row 5: kernelSize / stride / padding / dilation → 161002
    const std::vector<int64_t> k122{1, 2, 2}, s122{1, 2, 2}, p0{0}, d1{1};
    rows.push_back(parameterRow("KernelLength0", {}, s122, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelLength2", {2, 2}, s122, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelLength4", {1, 1, 2, 2}, s122, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelZero", {0, 2, 2}, s122, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelNegative", {1, -2, 2}, s122, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("StrideLength2", k122, {2, 2}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideLength4", k122, {1, 1, 2, 2}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideZero", k122, {1, 2, 0}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideZeroLength1", k122, {0}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideNegative", k122, {-1}, p0, d1, "stride"));
    rows.push_back(parameterRow("PaddingLength0", k122, s122, {}, d1, "padding"));
    rows.push_back(parameterRow("PaddingLength2", k122, s122, {0, 0}, d1, "padding"));
    rows.push_back(parameterRow("PaddingAboveHalfKernel", k122, s122, {0, 2, 0}, d1, "padding"));
    rows.push_back(parameterRow("PaddingLength1AboveHalfOfKernel1", k122, s122, {1}, d1, "padding"));  // D: 1 > 1/2
    rows.push_back(parameterRow("PaddingNegative", k122, s122, {0, 0, -1}, d1, "padding"));
    rows.push_back(parameterRow("DilationLength0", k122, s122, p0, {}, "dilation"));
    rows.push_back(parameterRow("DilationLength2", k122, s122, p0, {1, 1}, "dilation"));
    rows.push_back(parameterRow("DilationZero", k122, s122, p0, {1, 1, 0}, "dilation"));
    rows.push_back(parameterRow("DilationNegative", k122, s122, p0, {-1}, "dilation"));
    rows.push_back({"Row5PaddingOfHalfTheKernelIsAccepted",
                    [](ForwardCase &c) {
                        // H/W: k 2, p 1, s 2, in 4 → floor((4 + 2 - 2) / 2) + 1 = 3.
                        c.padding = {0, 1, 1};
                        c.outputShape({1, 1, 2, 3, 3});
                    },
                    accepted});

    // ---- row 6: empty self → out and indices must be empty
    rows.push_back({"Row6EmptySelfWithNonEmptyOutIs161002",
                    [](ForwardCase &c) {
                        c.self.shape = {1, 1, 0, 4, 4};
                        c.indices.shape = {1, 1, 0, 2, 2};
                    },
                    invalid,
                    {"out"}});
    rows.push_back({"Row6EmptySelfWithNonEmptyIndicesIs161002",
                    [](ForwardCase &c) {
                        c.self.shape = {1, 1, 0, 4, 4};
                        c.out.shape = {1, 1, 0, 2, 2};
                    },
                    invalid,
                    {"indices"}});

    // ---- row 7: output size < 1, out/indices shape ≠ expected → 161002
    rows.push_back({"Row7ComputedOutputBelowOneIs161002",
                    [](ForwardCase &c) {
                        // H = W = 1 with k 2: floor((1 - 2) / 2) + 1 = 0.
                        c.self.shape = {1, 1, 2, 1, 1};
                        c.outputShape({1, 1, 2, 1, 1});
                    },
                    invalid,
                    {"output"}});
    rows.push_back({"Row7EmptyOutputsForNonEmptySelfAre161002",
                    [](ForwardCase &c) {
                        // SPEC §11 #13: an output axis of 0 is an error when self is not empty.
                        c.self.shape = {1, 1, 2, 1, 1};
                        c.outputShape({1, 1, 2, 0, 0});
                    },
                    invalid,
                    {"output"}});
    rows.push_back({"Row7OutShapeDiffersIs161002",
                    [](ForwardCase &c) {
                        c.out.shape = {1, 1, 2, 2, 3};
                    },
                    invalid,
                    {"out", "shape"}});
    rows.push_back({"Row7IndicesShapeDiffersIs161002",
                    [](ForwardCase &c) {
                        c.indices.shape = {1, 2, 2, 2, 2};
                    },
                    invalid,
                    {"indices", "shape"}});
    rows.push_back({"Row7OutBatchDiffersIs161002",
                    [](ForwardCase &c) {
                        c.outputShape({2, 1, 2, 2, 2});
                    },
                    invalid,
                    {"out"}});

    // ---- row 8: INT32 indices and D*H*W > 2^31-1 → 161002
    rows.push_back({"Row8Int32IndicesWithPlaneAboveInt32MaxIs161002",
                    [](ForwardCase &c) { c = hugePlaneCase<ForwardCase>(int32Max + 1, ACL_INT32); },
                    invalid,
                    {"indices", "INT32"}});
    rows.push_back({"Row8Int32IndicesWithPlaneOfExactlyInt32MaxIsAccepted",
                    [](ForwardCase &c) { c = hugePlaneCase<ForwardCase>(int32Max, ACL_INT32); }, accepted});
    rows.push_back({"Row8Int64IndicesHaveNoPlaneLimit",
                    [](ForwardCase &c) { c = hugePlaneCase<ForwardCase>(int32Max + 1, ACL_INT64); }, accepted});

    // ---- library addition: views must fit their storage, non-empty tensors need data
    rows.push_back(
        {"OutViewPastItsStorageIs161002", {}, invalid, {"out", "storage"}, {}, [](ForwardCall &call) {
             call.outArg = call.keepRawTensor({1, 1, 2, 2, 2}, ACL_FLOAT, call.keepDeviceBuffer(64), {2, 2, 1});
         }});
    rows.push_back({"SelfOffsetPastItsStorageIs161002", {}, invalid, {"self", "storage"}, {}, [](ForwardCall &call) {
                        call.selfArg = call.keepRawTensor({1, 1, 2, 4, 4}, ACL_FLOAT, call.keepDeviceBuffer(256), {32},
                                                          nullptr, 1);
                    }});
    // Non-empty tensors with null data: accepted here, checked by the run (tests/tensor_address_test.cpp).

    // ---- order: the earlier row wins
    rows.push_back({"OrderRow1BeforeRow2",
                    [](ForwardCase &c) { c.valueTypes(ACL_DOUBLE); },
                    nullPointer,
                    {"indices"},
                    {"DOUBLE"},
                    [](ForwardCall &call) { call.indicesArg = nullptr; }});
    rows.push_back({"OrderRow2BeforeRow3",
                    [](ForwardCase &c) {
                        c.out.type = ACL_FLOAT16;
                        c.allFormats(ACL_FORMAT_NDHWC);
                    },
                    invalid,
                    {"out", "dtype"},
                    {"format"}});
    rows.push_back({"OrderRow3BeforeRow4",
                    [](ForwardCase &c) {
                        c.out.format = ACL_FORMAT_NCDHW;
                        c.self.shape = {4, 4, 4};
                    },
                    invalid,
                    {"out", "format"},
                    {"rank"}});
    rows.push_back({"OrderRow4BeforeRow5",
                    [](ForwardCase &c) {
                        c.out.shape = {1, 2, 2, 2};
                        c.padding = {-1};
                    },
                    invalid,
                    {"out", "rank"},
                    {"padding"}});
    rows.push_back({"OrderRow5BeforeRow6",
                    [](ForwardCase &c) {
                        c.self.shape = {1, 1, 0, 4, 4};  // empty self with non-empty outputs: row 6 would fail too
                        c.kernel = {0};
                    },
                    invalid,
                    {"kernelSize"}});
    rows.push_back({"OrderRow6BeforeRow7",
                    [](ForwardCase &c) {
                        // Empty self with empty outputs of the "wrong" shape: the empty path succeeds first.
                        c.self.shape = {1, 1, 0, 4, 4};
                        c.outputShape({1, 1, 0, 7, 7});
                    },
                    accepted});
    rows.push_back({"OrderRow7BeforeRow8",
                    [](ForwardCase &c) {
                        c = hugePlaneCase<ForwardCase>(int32Max + 1, ACL_INT32);
                        c.out.shape = {1, 1, 1, 1, 3};
                    },
                    invalid,
                    {"out", "shape"},
                    {"INT32"}});
    return rows;
}

POOLGRAD_VALIDATION_TABLE(MaxPool3dWithArgmaxValidationRows, forwardRows());

// ---- calls that run, and rules shown over several calls ---------------------------------------------

TEST(MaxPool3dWithArgmaxValidation, BaselineIsAcceptedAndRuns) {
    ForwardCall call;
    for (int64_t i = 0; i < 32; ++i) call.self.set(i, static_cast<double>(i));
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u) << "SPEC §1.2: the CPU backend reports workspace 0";
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const std::vector<double> expected{5, 7, 13, 15, 21, 23, 29, 31};
    EXPECT_EQ(call.out.values(), expected);
    EXPECT_EQ(call.indices.values(), expected);
}

TEST(MaxPool3dWithArgmaxValidation, Row2OutDtypeDiffersFromSelfIs161002) {
    for (aclDataType type : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
        SCOPED_TRACE(testing::Message() << "out dtype " << type);
        ForwardCase c;
        c.out.type = type;
        EXPECT_TRUE(IsRejected(phaseOne(c), invalid, {"out", "dtype"}));
    }
}

TEST(MaxPool3dWithArgmaxValidation, Row2SupportedDtypeCombinationsAreAccepted) {
    expectEveryDtypePairAccepted<ForwardCase, ForwardCall>();
}

TEST(MaxPool3dWithArgmaxValidation, Row3NdNcdhwNchwAreAccepted) {
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW}) {
        SCOPED_TRACE(testing::Message() << "format " << format);
        EXPECT_TRUE(IsAccepted(phaseOne(ForwardCase{}.allFormats(format))));
    }
}

TEST(MaxPool3dWithArgmaxValidation, Row4Rank4IsAcceptedAndRuns) {
    ForwardCase c;
    c.self.shape = {1, 2, 4, 4};
    c.outputShape({1, 2, 2, 2});
    ForwardCall call(c);
    for (int64_t i = 0; i < 32; ++i) call.self.set(i, static_cast<double>(-i));
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const std::vector<double> indices{0, 2, 8, 10, 16, 18, 24, 26};
    EXPECT_EQ(call.indices.values(), indices);
}

TEST(MaxPool3dWithArgmaxValidation, Row5AllowedLengthsAreAccepted) {
    ForwardCase c;
    c.kernel = {2};
    c.stride = {};  // = kernel
    c.padding = {0, 0, 0};
    c.dilation = {1, 1, 1};
    c.outputShape({1, 1, 1, 2, 2});
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
    c.stride = {2};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST(MaxPool3dWithArgmaxValidation, Row6EmptySelfWithEmptyOutputsIsSuccessAndRuns) {
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};
    c.outputShape({1, 1, 0, 2, 2});
    ForwardCall call(c);
    expectAcceptedAndRuns(call);
}

TEST(MaxPool3dWithArgmaxValidation, Row6ZeroBatchIsSuccess) {
    ForwardCase c;
    c.self.shape = {0, 1, 2, 4, 4};
    c.outputShape({0, 1, 2, 2, 2});
    ForwardCall call(c);
    expectAcceptedAndRuns(call);
}

TEST(MaxPool3dWithArgmaxValidation, Row6EmptyTensorsMayHaveNullData) {
    ForwardCall call;
    call.selfArg = call.keepRawTensor({1, 1, 0, 4, 4}, ACL_FLOAT, nullptr, {0});
    call.outArg = call.keepRawTensor({1, 1, 0, 2, 2}, ACL_FLOAT, nullptr, {0});
    call.indicesArg = call.keepRawTensor({1, 1, 0, 2, 2}, ACL_INT64, nullptr, {0});
    expectAcceptedAndRuns(call);
}

TEST(MaxPool3dWithArgmaxValidation, Row7WE3CeilModeChangesTheExpectedWidth) {
    expectCeilModeWidthsWE3<ForwardCase, ForwardCall>();
}

TEST(MaxPool3dWithArgmaxValidation, Row7WE4LastWindowRuleGivesWidth3) {
    expectLastWindowRuleWE4<ForwardCase, ForwardCall>();
}

}  // namespace
