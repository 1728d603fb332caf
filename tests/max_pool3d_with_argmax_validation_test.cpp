// Phase-1 validation of aclnnMaxPool3dWithArgmax, SPEC §7.1 rows 1..8 (and §1.2, §11 #13, #20).
// Every test starts from a valid call (self (1,1,2,4,4), k=s=(1,2,2), p=0, d=1 → out/indices
// (1,1,2,2,2)) and breaks exactly one rule; it checks the exact code, that *executor and *workspaceSize
// were cleared, and that aclGetRecentErrMsg() names the argument. Order tests break two rows at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using test_support::DoesNotMention;
using test_support::IntArray;
using test_support::IsAccepted;
using test_support::IsRejected;
using test_support::makeTensor;
using test_support::PhaseOneOutcome;
using test_support::RawTensor;
using test_support::TensorSpec;
using test_support::TestTensor;

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
    ForwardCase &allFormats(aclFormat format) {
        self.format = out.format = indices.format = format;
        return *this;
    }
    ForwardCase &outputShape(std::vector<int64_t> shape) {
        out.shape = indices.shape = std::move(shape);
        return *this;
    }
};

class ForwardCall : public test_support::PhaseOneCall {
public:
    explicit ForwardCall(const ForwardCase &c = ForwardCase{})
        : self(makeTensor(c.self)),
          out(makeTensor(c.out)),
          indices(makeTensor(c.indices)),
          kernel(c.kernel),
          stride(c.stride),
          padding(c.padding),
          dilation(c.dilation),
          ceilMode(c.ceilMode) {}
    PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(selfArg, kernelArg, strideArg, paddingArg, dilationArg,
                                                            ceilMode, outArg, indicesArg, workspaceSize, executor);
        });
    }
    aclnnStatus run() { return callPhaseTwo(aclnnMaxPool3dWithArgmax); }

    TestTensor self, out, indices;
    IntArray kernel, stride, padding, dilation;
    bool ceilMode;

    const aclTensor *selfArg = self;
    aclTensor *outArg = out;
    aclTensor *indicesArg = indices;
    const aclIntArray *kernelArg = kernel;
    const aclIntArray *strideArg = stride;
    const aclIntArray *paddingArg = padding;
    const aclIntArray *dilationArg = dilation;
};

PhaseOneOutcome phaseOne(const ForwardCase &c) {
    ForwardCall call(c);
    return call.phaseOne();
}

// ---- baseline ---------------------------------------------------------------------------------------

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

// ---- row 1: null pointers → 161001 ---------------------------------------------------------------------

class ForwardNullArgument : public ::testing::TestWithParam<const char *> {};

TEST_P(ForwardNullArgument, Row1NullPointerIs161001) {
    const std::string name = GetParam();
    ForwardCall call;
    if (name == "self") call.selfArg = nullptr;
    if (name == "kernelSize") call.kernelArg = nullptr;
    if (name == "stride") call.strideArg = nullptr;
    if (name == "padding") call.paddingArg = nullptr;
    if (name == "dilation") call.dilationArg = nullptr;
    if (name == "out") call.outArg = nullptr;
    if (name == "indices") call.indicesArg = nullptr;
    if (name == "workspaceSize") call.workspaceSizeArg = false;
    if (name == "executor") call.executorArg = false;
    EXPECT_TRUE(
        IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {name}, name != "workspaceSize", name != "executor"));
}

INSTANTIATE_TEST_SUITE_P(AllPointers, ForwardNullArgument,
                         ::testing::Values("self", "kernelSize", "stride", "padding", "dilation", "out", "indices",
                                           "workspaceSize", "executor"),
                         [](const auto &info) { return std::string(info.param); });

TEST(MaxPool3dWithArgmaxValidation, Row1SeveralNullsReportTheFirst) {
    ForwardCall call;
    call.strideArg = nullptr;
    call.outArg = nullptr;
    call.executorArg = false;
    const PhaseOneOutcome outcome = call.phaseOne();
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_NULLPTR, {"stride"}, true, false));
    EXPECT_TRUE(DoesNotMention(outcome, "out "));
}

// ---- row 2: dtypes → 161002 ----------------------------------------------------------------------------

class ForwardSelfDataType : public ::testing::TestWithParam<aclDataType> {};

TEST_P(ForwardSelfDataType, Row2SelfDtypeOutsideFloatTypesIs161002) {
    EXPECT_TRUE(IsRejected(phaseOne(ForwardCase{}.valueTypes(GetParam())), ACLNN_ERR_PARAM_INVALID, {"self", "dtype"}));
}

INSTANTIATE_TEST_SUITE_P(UnsupportedTypes, ForwardSelfDataType,
                         ::testing::Values(ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL,
                                           ACL_COMPLEX64),
                         [](const auto &info) { return "type" + std::to_string(static_cast<int>(info.param)); });

class ForwardIndicesDataType : public ::testing::TestWithParam<aclDataType> {};

TEST_P(ForwardIndicesDataType, Row2IndicesDtypeOutsideInt32Int64Is161002) {
    ForwardCase c;
    c.indices.type = GetParam();
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "dtype"}));
}

INSTANTIATE_TEST_SUITE_P(UnsupportedTypes, ForwardIndicesDataType,
                         ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT16, ACL_UINT32, ACL_UINT64,
                                           ACL_DOUBLE, ACL_BOOL),
                         [](const auto &info) { return "type" + std::to_string(static_cast<int>(info.param)); });

TEST(MaxPool3dWithArgmaxValidation, Row2OutDtypeDiffersFromSelfIs161002) {
    for (aclDataType type : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
        SCOPED_TRACE(testing::Message() << "out dtype " << type);
        ForwardCase c;
        c.out.type = type;
        EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out", "dtype"}));
    }
}

TEST(MaxPool3dWithArgmaxValidation, Row2SupportedDtypeCombinationsAreAccepted) {
    for (aclDataType value : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (aclDataType index : {ACL_INT32, ACL_INT64}) {
            SCOPED_TRACE(testing::Message() << "value " << value << " index " << index);
            ForwardCase c;
            c.valueTypes(value);
            c.indices.type = index;
            EXPECT_TRUE(IsAccepted(phaseOne(c)));
        }
}

// ---- row 3: formats → 161002 ---------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxValidation, Row3OutFormatDiffersFromSelfIs161002) {
    ForwardCase c;
    c.out.format = ACL_FORMAT_NCDHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out", "format"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row3IndicesFormatDiffersFromSelfIs161002) {
    ForwardCase c;
    c.indices.format = ACL_FORMAT_NCHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "format"}));
}

class ForwardRejectedFormat : public ::testing::TestWithParam<aclFormat> {};

TEST_P(ForwardRejectedFormat, Row3SelfFormatOutsideNdNcdhwNchwIs161002) {
    // All three tensors share the format: only "self format ∈ {ND, NCDHW, NCHW}" is broken.
    EXPECT_TRUE(
        IsRejected(phaseOne(ForwardCase{}.allFormats(GetParam())), ACLNN_ERR_PARAM_INVALID, {"self", "format"}));
}

INSTANTIATE_TEST_SUITE_P(Formats, ForwardRejectedFormat,
                         ::testing::Values(ACL_FORMAT_NDHWC /* §11 #20 */, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN,
                                           ACL_FORMAT_NC, ACL_FORMAT_NCL, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0,
                                           ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_FRACTAL_NZ,
                                           ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D, ACL_FORMAT_FRACTAL_NZ_C0_16),
                         [](const auto &info) {
                             const int value = static_cast<int>(info.param);
                             return value < 0 ? std::string("UNDEFINED") : "format" + std::to_string(value);
                         });

TEST(MaxPool3dWithArgmaxValidation, Row3NdNcdhwNchwAreAccepted) {
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW}) {
        SCOPED_TRACE(testing::Message() << "format " << format);
        EXPECT_TRUE(IsAccepted(phaseOne(ForwardCase{}.allFormats(format))));
    }
}

// ---- row 4: ranks → 161002 -----------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxValidation, Row4SelfRank3Is161002) {
    ForwardCase c;
    c.self.shape = {2, 4, 4};
    c.outputShape({2, 2, 2});
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"self", "rank"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row4SelfRank6Is161002) {
    ForwardCase c;
    c.self.shape = {1, 1, 1, 2, 4, 4};
    c.outputShape({1, 1, 1, 2, 2, 2});
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"self", "rank"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row4OutRankDiffersIs161002) {
    ForwardCase c;
    c.out.shape = {1, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out", "rank"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row4IndicesRankDiffersIs161002) {
    ForwardCase c;
    c.indices.shape = {1, 1, 1, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "rank"}));
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

// ---- row 5: kernelSize / stride / padding / dilation → 161002 -------------------------------------------

struct ParameterCase {
    const char *label;
    std::vector<int64_t> kernel, stride, padding, dilation;
    const char *argument;
};

class ForwardBadParameter : public ::testing::TestWithParam<ParameterCase> {};

TEST_P(ForwardBadParameter, Row5Is161002) {
    const ParameterCase &p = GetParam();
    ForwardCase c;
    c.kernel = p.kernel;
    c.stride = p.stride;
    c.padding = p.padding;
    c.dilation = p.dilation;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {p.argument}));
}

const std::vector<int64_t> k122{1, 2, 2}, s122{1, 2, 2}, p0{0}, d1{1};

INSTANTIATE_TEST_SUITE_P(
    Rules, ForwardBadParameter,
    ::testing::Values(ParameterCase{"KernelLength0", {}, s122, p0, d1, "kernelSize"},
                      ParameterCase{"KernelLength2", {2, 2}, s122, p0, d1, "kernelSize"},
                      ParameterCase{"KernelLength4", {1, 1, 2, 2}, s122, p0, d1, "kernelSize"},
                      ParameterCase{"KernelZero", {0, 2, 2}, s122, p0, d1, "kernelSize"},
                      ParameterCase{"KernelNegative", {1, -2, 2}, s122, p0, d1, "kernelSize"},
                      ParameterCase{"StrideLength2", k122, {2, 2}, p0, d1, "stride"},
                      ParameterCase{"StrideLength4", k122, {1, 1, 2, 2}, p0, d1, "stride"},
                      ParameterCase{"StrideZero", k122, {1, 2, 0}, p0, d1, "stride"},
                      ParameterCase{"StrideZeroLength1", k122, {0}, p0, d1, "stride"},
                      ParameterCase{"StrideNegative", k122, {-1}, p0, d1, "stride"},
                      ParameterCase{"PaddingLength0", k122, s122, {}, d1, "padding"},
                      ParameterCase{"PaddingLength2", k122, s122, {0, 0}, d1, "padding"},
                      ParameterCase{"PaddingAboveHalfKernel", k122, s122, {0, 2, 0}, d1, "padding"},
                      ParameterCase{
                          "PaddingLength1AboveHalfOfKernel1", k122, s122, {1}, d1, "padding"},  // D axis: 1 > 1/2
                      ParameterCase{"PaddingNegative", k122, s122, {0, 0, -1}, d1, "padding"},
                      ParameterCase{"DilationLength0", k122, s122, p0, {}, "dilation"},
                      ParameterCase{"DilationLength2", k122, s122, p0, {1, 1}, "dilation"},
                      ParameterCase{"DilationZero", k122, s122, p0, {1, 1, 0}, "dilation"},
                      ParameterCase{"DilationNegative", k122, s122, p0, {-1}, "dilation"}),
    [](const auto &info) { return std::string(info.param.label); });

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

TEST(MaxPool3dWithArgmaxValidation, Row5PaddingOfHalfTheKernelIsAccepted) {
    // H/W: k 2, p 1, s 2, in 4 → floor((4 + 2 - 2) / 2) + 1 = 3.
    ForwardCase c;
    c.padding = {0, 1, 1};
    c.outputShape({1, 1, 2, 3, 3});
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

// ---- row 6: empty self → out and indices must be empty → success -----------------------------------------

TEST(MaxPool3dWithArgmaxValidation, Row6EmptySelfWithEmptyOutputsIsSuccessAndRuns) {
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};
    c.outputShape({1, 1, 0, 2, 2});
    ForwardCall call(c);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxValidation, Row6ZeroBatchIsSuccess) {
    ForwardCase c;
    c.self.shape = {0, 1, 2, 4, 4};
    c.outputShape({0, 1, 2, 2, 2});
    ForwardCall call(c);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxValidation, Row6EmptyTensorsMayHaveNullData) {
    RawTensor self({1, 1, 0, 4, 4}, ACL_FLOAT, nullptr, {0});
    RawTensor out({1, 1, 0, 2, 2}, ACL_FLOAT, nullptr, {0});
    RawTensor indices({1, 1, 0, 2, 2}, ACL_INT64, nullptr, {0});
    ForwardCall call;
    call.selfArg = self.get();
    call.outArg = out.get();
    call.indicesArg = indices.get();
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxValidation, Row6EmptySelfWithNonEmptyOutIs161002) {
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};
    c.indices.shape = {1, 1, 0, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row6EmptySelfWithNonEmptyIndicesIs161002) {
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};
    c.out.shape = {1, 1, 0, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices"}));
}

// ---- row 7: output size < 1, out/indices shape ≠ expected → 161002 ---------------------------------------

TEST(MaxPool3dWithArgmaxValidation, Row7ComputedOutputBelowOneIs161002) {
    // H = W = 1 with k 2: floor((1 - 2) / 2) + 1 = 0.
    ForwardCase c;
    c.self.shape = {1, 1, 2, 1, 1};
    c.outputShape({1, 1, 2, 1, 1});
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"output"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row7EmptyOutputsForNonEmptySelfAre161002) {
    // SPEC §11 #13: an output axis of 0 is an error when self is not empty.
    ForwardCase c;
    c.self.shape = {1, 1, 2, 1, 1};
    c.outputShape({1, 1, 2, 0, 0});
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"output"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row7OutShapeDiffersIs161002) {
    ForwardCase c;
    c.out.shape = {1, 1, 2, 2, 3};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out", "shape"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row7IndicesShapeDiffersIs161002) {
    ForwardCase c;
    c.indices.shape = {1, 2, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "shape"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row7OutBatchDiffersIs161002) {
    ForwardCase c;
    c.outputShape({2, 1, 2, 2, 2});
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

ForwardCase ceilCase(bool ceilMode, int64_t width, std::vector<int64_t> padding) {
    ForwardCase c;
    c.self.shape = {1, 1, 1, 1, 5};
    c.outputShape({1, 1, 1, 1, width});
    c.kernel = {1, 1, 2};
    c.stride = {1, 1, 2};
    c.padding = std::move(padding);
    c.ceilMode = ceilMode;
    return c;
}

TEST(MaxPool3dWithArgmaxValidation, Row7WE3CeilModeChangesTheExpectedWidth) {
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(false, 2, {0}))));
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(true, 3, {0}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(true, 2, {0})), ACLNN_ERR_PARAM_INVALID, {"out"}));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(false, 3, {0})), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row7WE4LastWindowRuleGivesWidth3) {
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(true, 3, {0, 0, 1}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(true, 4, {0, 0, 1})), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

// ---- row 8: INT32 indices and D*H*W > 2^31-1 → 161002 ---------------------------------------------------

constexpr int64_t int32Max = 2147483647;

// A (1,1,1,1,width) input (all strides 0 over one element: phase 1 reads no data) with kernel 1 and a W
// stride of 2^30: width 2^31-1 or 2^31 gives Wo = 2.
ForwardCase hugePlaneCase(int64_t width, aclDataType indexType) {
    ForwardCase c;
    c.self = {{1, 1, 1, 1, width}, ACL_FLOAT, ACL_FORMAT_ND, std::vector<int64_t>(5, 0)};
    c.outputShape({1, 1, 1, 1, 2});
    c.indices.type = indexType;
    c.kernel = {1};
    c.stride = {1, 1, int64_t{1} << 30};
    return c;
}

TEST(MaxPool3dWithArgmaxValidation, Row8Int32IndicesWithPlaneAboveInt32MaxIs161002) {
    EXPECT_TRUE(
        IsRejected(phaseOne(hugePlaneCase(int32Max + 1, ACL_INT32)), ACLNN_ERR_PARAM_INVALID, {"indices", "INT32"}));
}

TEST(MaxPool3dWithArgmaxValidation, Row8Int32IndicesWithPlaneOfExactlyInt32MaxIsAccepted) {
    EXPECT_TRUE(IsAccepted(phaseOne(hugePlaneCase(int32Max, ACL_INT32))));
}

TEST(MaxPool3dWithArgmaxValidation, Row8Int64IndicesHaveNoPlaneLimit) {
    EXPECT_TRUE(IsAccepted(phaseOne(hugePlaneCase(int32Max + 1, ACL_INT64))));
}

// ---- library addition: views must fit their storage, non-empty tensors need data -----------------------

TEST(MaxPool3dWithArgmaxValidation, OutViewPastItsStorageIs161002) {
    test_support::DeviceBuffer data(64);
    RawTensor out({1, 1, 2, 2, 2}, ACL_FLOAT, data.get(), {2, 2, 1});
    ForwardCall call;
    call.outArg = out.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"out", "storage"}));
}

TEST(MaxPool3dWithArgmaxValidation, SelfOffsetPastItsStorageIs161002) {
    test_support::DeviceBuffer data(256);
    RawTensor self({1, 1, 2, 4, 4}, ACL_FLOAT, data.get(), {32}, nullptr, 1);
    ForwardCall call;
    call.selfArg = self.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"self", "storage"}));
}

TEST(MaxPool3dWithArgmaxValidation, NonEmptySelfWithNullDataIs161001) {
    RawTensor self({1, 1, 2, 4, 4}, ACL_FLOAT, nullptr, {32});
    ForwardCall call;
    call.selfArg = self.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"self"}));
}

TEST(MaxPool3dWithArgmaxValidation, NonEmptyOutWithNullDataIs161001) {
    RawTensor out({1, 1, 2, 2, 2}, ACL_FLOAT, nullptr, {8});
    ForwardCall call;
    call.outArg = out.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
}

TEST(MaxPool3dWithArgmaxValidation, NonEmptyIndicesWithNullDataIs161001) {
    RawTensor indices({1, 1, 2, 2, 2}, ACL_INT64, nullptr, {8});
    ForwardCall call;
    call.indicesArg = indices.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"indices"}));
}

// ---- order: the earlier row wins ------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxValidation, OrderRow1BeforeRow2) {
    ForwardCase c;
    c.valueTypes(ACL_DOUBLE);
    ForwardCall call(c);
    call.indicesArg = nullptr;
    const PhaseOneOutcome outcome = call.phaseOne();
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_NULLPTR, {"indices"}));
    EXPECT_TRUE(DoesNotMention(outcome, "DOUBLE"));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow2BeforeRow3) {
    ForwardCase c;
    c.out.type = ACL_FLOAT16;
    c.allFormats(ACL_FORMAT_NDHWC);
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"out", "dtype"}));
    EXPECT_TRUE(DoesNotMention(outcome, "format"));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow3BeforeRow4) {
    ForwardCase c;
    c.out.format = ACL_FORMAT_NCDHW;
    c.self.shape = {4, 4, 4};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"out", "format"}));
    EXPECT_TRUE(DoesNotMention(outcome, "rank"));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow4BeforeRow5) {
    ForwardCase c;
    c.out.shape = {1, 2, 2, 2};
    c.padding = {-1};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"out", "rank"}));
    EXPECT_TRUE(DoesNotMention(outcome, "padding"));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow5BeforeRow6) {
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};  // empty self with non-empty outputs: row 6 would fail too
    c.kernel = {0};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"kernelSize"}));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow6BeforeRow7) {
    // Empty self with empty outputs of the "wrong" shape: the empty path succeeds before shapes are compared.
    ForwardCase c;
    c.self.shape = {1, 1, 0, 4, 4};
    c.outputShape({1, 1, 0, 7, 7});
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST(MaxPool3dWithArgmaxValidation, OrderRow7BeforeRow8) {
    ForwardCase c = hugePlaneCase(int32Max + 1, ACL_INT32);
    c.out.shape = {1, 1, 1, 1, 3};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"out", "shape"}));
    EXPECT_TRUE(DoesNotMention(outcome, "INT32"));
}

TEST(MaxPool3dWithArgmaxValidation, FailedPhaseOneLeavesOutputsUntouched) {
    ForwardCase c;
    c.stride = {1, 1};
    ForwardCall call(c);
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"stride"}));
    for (int64_t i = 0; i < 8; ++i) {
        EXPECT_EQ(call.out.bitsAt(i), 0xA5A5A5A5u) << i;
        EXPECT_EQ(call.indices.bitsAt(i), 0xA5A5A5A5A5A5A5A5ull) << i;
    }
}

}  // namespace
