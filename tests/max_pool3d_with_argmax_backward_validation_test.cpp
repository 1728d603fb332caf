// Phase-1 validation of aclnnMaxPool3dWithArgmaxBackward, SPEC §4 rows 1..10 (and §1.2, §9 error paths).
// Every test starts from the valid seed call WE-1 (self (1,1,2,2,2), gradOutput/indices (1,1,1,1,1),
// k=s=2, p=0, d=1) and breaks exactly one rule; it checks the exact code, that *executor and
// *workspaceSize were cleared, and that aclGetRecentErrMsg() names the argument. Order tests break two
// rows at once and check that the earlier row is reported.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/address_reservation.h"
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

// The seed sample WE-1, valid as is.
struct BackwardCase {
    TensorSpec gradOutput{{1, 1, 1, 1, 1}, ACL_FLOAT};
    TensorSpec self{{1, 1, 2, 2, 2}, ACL_FLOAT};
    TensorSpec indices{{1, 1, 1, 1, 1}, ACL_INT32};
    TensorSpec gradInput{{1, 1, 2, 2, 2}, ACL_FLOAT};
    std::vector<int64_t> kernel{2, 2, 2}, stride{2, 2, 2}, padding{0, 0, 0}, dilation{1, 1, 1};
    bool ceilMode = false;

    BackwardCase &allFloatTypes(aclDataType type) {
        gradOutput.type = self.type = gradInput.type = type;
        return *this;
    }
    BackwardCase &allFormats(aclFormat format) {
        gradOutput.format = self.format = indices.format = gradInput.format = format;
        return *this;
    }
};

// Owns the operands of one call; every argument pointer can be replaced (e.g. by nullptr) before phaseOne().
class BackwardCall : public test_support::PhaseOneCall {
public:
    explicit BackwardCall(const BackwardCase &c = BackwardCase{})
        : gradOutput(makeTensor(c.gradOutput)),
          self(makeTensor(c.self)),
          indices(makeTensor(c.indices)),
          gradInput(makeTensor(c.gradInput)),
          kernel(c.kernel),
          stride(c.stride),
          padding(c.padding),
          dilation(c.dilation),
          ceilMode(c.ceilMode) {}
    PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutputArg, selfArg, indicesArg, kernelArg,
                                                                    strideArg, paddingArg, dilationArg, ceilMode,
                                                                    gradInputArg, workspaceSize, executor);
        });
    }
    aclnnStatus run() { return callPhaseTwo(aclnnMaxPool3dWithArgmaxBackward); }

    TestTensor gradOutput, self, indices, gradInput;
    IntArray kernel, stride, padding, dilation;
    bool ceilMode;

    const aclTensor *gradOutputArg = gradOutput;
    const aclTensor *selfArg = self;
    const aclTensor *indicesArg = indices;
    aclTensor *gradInputArg = gradInput;
    const aclIntArray *kernelArg = kernel;
    const aclIntArray *strideArg = stride;
    const aclIntArray *paddingArg = padding;
    const aclIntArray *dilationArg = dilation;
};

PhaseOneOutcome phaseOne(const BackwardCase &c) {
    BackwardCall call(c);
    return call.phaseOne();
}

// ---- baseline ---------------------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, BaselineSeedCallIsAcceptedAndRuns) {
    BackwardCall call;
    call.gradOutput.set(0, 0.4757);
    call.indices.set(0, 6);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u) << "SPEC §1.2: the CPU backend reports workspace 0";
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.at(i), i == 6 ? double(0.4757f) : 0.0) << "element " << i;
}

// ---- row 1: null pointers → 161001 ---------------------------------------------------------------------

class BackwardNullArgument : public ::testing::TestWithParam<const char *> {};

TEST_P(BackwardNullArgument, Row1NullPointerIs161001) {
    const std::string name = GetParam();
    BackwardCall call;
    if (name == "gradOutput") call.gradOutputArg = nullptr;
    if (name == "self") call.selfArg = nullptr;
    if (name == "indices") call.indicesArg = nullptr;
    if (name == "kernelSize") call.kernelArg = nullptr;
    if (name == "stride") call.strideArg = nullptr;
    if (name == "padding") call.paddingArg = nullptr;
    if (name == "dilation") call.dilationArg = nullptr;
    if (name == "gradInput") call.gradInputArg = nullptr;
    if (name == "workspaceSize") call.workspaceSizeArg = false;
    if (name == "executor") call.executorArg = false;
    const PhaseOneOutcome outcome = call.phaseOne();
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_NULLPTR, {name}, name != "workspaceSize", name != "executor"));
}

INSTANTIATE_TEST_SUITE_P(AllPointers, BackwardNullArgument,
                         ::testing::Values("gradOutput", "self", "indices", "kernelSize", "stride", "padding",
                                           "dilation", "gradInput", "workspaceSize", "executor"),
                         [](const auto &info) { return std::string(info.param); });

TEST(MaxPool3dWithArgmaxBackwardValidation, Row1EveryPointerNullReportsTheFirstArgument) {
    BackwardCall call;
    call.gradOutputArg = call.selfArg = call.indicesArg = nullptr;
    call.kernelArg = call.strideArg = call.paddingArg = call.dilationArg = nullptr;
    call.gradInputArg = nullptr;
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"gradOutput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row1NullDilationBeforeNullGradInput) {
    BackwardCall call;
    call.dilationArg = nullptr;
    call.gradInputArg = nullptr;
    const PhaseOneOutcome outcome = call.phaseOne();
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_NULLPTR, {"dilation"}));
    EXPECT_TRUE(DoesNotMention(outcome, "gradInput"));
}

// ---- row 2: dtypes → 161002 ----------------------------------------------------------------------------

class BackwardSelfDataType : public ::testing::TestWithParam<aclDataType> {};

TEST_P(BackwardSelfDataType, Row2SelfDtypeOutsideFloatTypesIs161002) {
    // gradOutput and gradInput follow self so that only "self dtype ∈ {FLOAT, FLOAT16, BF16}" is broken.
    EXPECT_TRUE(
        IsRejected(phaseOne(BackwardCase{}.allFloatTypes(GetParam())), ACLNN_ERR_PARAM_INVALID, {"self", "dtype"}));
}

INSTANTIATE_TEST_SUITE_P(UnsupportedTypes, BackwardSelfDataType,
                         ::testing::Values(ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL,
                                           ACL_COMPLEX64),
                         [](const auto &info) { return "type" + std::to_string(static_cast<int>(info.param)); });

class BackwardIndicesDataType : public ::testing::TestWithParam<aclDataType> {};

TEST_P(BackwardIndicesDataType, Row2IndicesDtypeOutsideInt32Int64Is161002) {
    BackwardCase c;
    c.indices.type = GetParam();
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "dtype"}));
}

INSTANTIATE_TEST_SUITE_P(UnsupportedTypes, BackwardIndicesDataType,
                         ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT16, ACL_UINT32, ACL_UINT64,
                                           ACL_DOUBLE, ACL_BOOL),
                         [](const auto &info) { return "type" + std::to_string(static_cast<int>(info.param)); });

TEST(MaxPool3dWithArgmaxBackwardValidation, Row2GradOutputDtypeDiffersFromSelfIs161002) {
    BackwardCase c;
    c.gradOutput.type = ACL_FLOAT16;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "dtype"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row2GradInputDtypeDiffersFromSelfIs161002) {
    BackwardCase c;
    c.gradInput.type = ACL_BF16;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "dtype"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row2GradInputDoubleWithFloatSelfIs161002) {
    BackwardCase c;
    c.gradInput.type = ACL_DOUBLE;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row2SupportedDtypeCombinationsAreAccepted) {
    for (aclDataType value : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (aclDataType index : {ACL_INT32, ACL_INT64}) {
            SCOPED_TRACE(testing::Message() << "value " << value << " index " << index);
            BackwardCase c;
            c.allFloatTypes(value);
            c.indices.type = index;
            EXPECT_TRUE(IsAccepted(phaseOne(c)));
        }
}

// ---- row 3: formats → 161002 ---------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3GradOutputFormatDiffersFromSelfIs161002) {
    BackwardCase c;
    c.gradOutput.format = ACL_FORMAT_NCDHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "format"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3GradInputFormatDiffersFromSelfIs161002) {
    BackwardCase c;
    c.gradInput.format = ACL_FORMAT_NCHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "format"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3SelfFormatDiffersFromTheOthersIs161002) {
    BackwardCase c;
    c.self.format = ACL_FORMAT_NCDHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"self", "format"}));
}

class BackwardPrivateFormat : public ::testing::TestWithParam<aclFormat> {};

TEST_P(BackwardPrivateFormat, Row3PrivateFormatOnAllTensorsIs161002) {
    // All four tensors share the format: only "no private/undefined format" is broken.
    EXPECT_TRUE(IsRejected(phaseOne(BackwardCase{}.allFormats(GetParam())), ACLNN_ERR_PARAM_INVALID, {"format"}));
}

TEST_P(BackwardPrivateFormat, Row3PrivateFormatOnIndicesOnlyIs161002) {
    BackwardCase c;
    c.indices.format = GetParam();
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "format"}));
}

INSTANTIATE_TEST_SUITE_P(PrivateFormats, BackwardPrivateFormat,
                         ::testing::Values(ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z,
                                           ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NDC1HWC0,
                                           ACL_FRACTAL_Z_3D, ACL_FORMAT_FRACTAL_NZ_C0_16, ACL_FORMAT_FRACTAL_NZ_C0_32,
                                           ACL_FORMAT_FRACTAL_NZ_C0_2, ACL_FORMAT_FRACTAL_NZ_C0_4,
                                           ACL_FORMAT_FRACTAL_NZ_C0_8),
                         [](const auto &info) {
                             const int value = static_cast<int>(info.param);
                             return value < 0 ? std::string("UNDEFINED") : "format" + std::to_string(value);
                         });

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3EveryPublicFormatIsAccepted) {
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC,
                             ACL_FORMAT_NCDHW, ACL_FORMAT_NC, ACL_FORMAT_NCL}) {
        SCOPED_TRACE(testing::Message() << "format " << format);
        EXPECT_TRUE(IsAccepted(phaseOne(BackwardCase{}.allFormats(format))));
    }
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3IndicesMayHaveAnotherPublicFormat) {
    // Row 3 requires equal formats only for self, gradOutput and gradInput.
    BackwardCase c;
    c.indices.format = ACL_FORMAT_NCDHW;
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

// ---- row 4: ranks → 161002 -----------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4AllTensorsRank3Is161002) {
    BackwardCase c;
    c.gradOutput.shape = {1, 1, 1};
    c.self.shape = {2, 2, 2};
    c.indices.shape = {1, 1, 1};
    c.gradInput.shape = {2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4AllTensorsRank6Is161002) {
    BackwardCase c;
    c.gradOutput.shape = {1, 1, 1, 1, 1, 1};
    c.self.shape = {1, 1, 1, 2, 2, 2};
    c.indices.shape = {1, 1, 1, 1, 1, 1};
    c.gradInput.shape = {1, 1, 1, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4SelfAndGradInputRank3Is161002) {
    BackwardCase c;
    c.self.shape = {2, 2, 2};
    c.gradInput.shape = {2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"self", "rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4GradOutputRank4WithRank5SelfIs161002) {
    BackwardCase c;
    c.gradOutput.shape = {1, 1, 1, 1};
    c.indices.shape = {1, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4IndicesRankDiffersIs161002) {
    BackwardCase c;
    c.indices.shape = {1, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4GradInputRankDiffersIs161002) {
    BackwardCase c;
    c.gradInput.shape = {1, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4GradInputRank6Is161002) {
    BackwardCase c;
    c.gradInput.shape = {1, 1, 1, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "rank"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4AllRank4IsAcceptedAndRuns) {
    BackwardCase c;
    c.gradOutput.shape = {1, 1, 1, 1};
    c.self.shape = {1, 2, 2, 2};
    c.indices.shape = {1, 1, 1, 1};
    c.gradInput.shape = {1, 2, 2, 2};
    BackwardCall call(c);
    call.gradOutput.set(0, 2.5);
    call.indices.set(0, 3);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.at(i), i == 3 ? 2.5 : 0.0) << "element " << i;
}

// ---- row 5: kernelSize / stride / padding / dilation → 161002 -------------------------------------------

struct ParameterCase {
    const char *label;
    std::vector<int64_t> kernel, stride, padding, dilation;
    const char *argument;  // the array the message must name
};

class BackwardBadParameter : public ::testing::TestWithParam<ParameterCase> {};

TEST_P(BackwardBadParameter, Row5Is161002) {
    const ParameterCase &p = GetParam();
    BackwardCase c;
    c.kernel = p.kernel;
    c.stride = p.stride;
    c.padding = p.padding;
    c.dilation = p.dilation;
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {p.argument}));
}

const std::vector<int64_t> k2{2, 2, 2}, s2{2, 2, 2}, p0{0, 0, 0}, d1{1, 1, 1};

INSTANTIATE_TEST_SUITE_P(
    Rules, BackwardBadParameter,
    ::testing::Values(ParameterCase{"KernelLength0", {}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"KernelLength2_SPEC9", {2, 2}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"KernelLength4", {2, 2, 2, 2}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"KernelZero", {2, 0, 2}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"KernelZeroLength1", {0}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"KernelNegative", {2, 2, -2}, s2, p0, d1, "kernelSize"},
                      ParameterCase{"StrideLength2", k2, {2, 2}, p0, d1, "stride"},
                      ParameterCase{"StrideLength4", k2, {2, 2, 2, 2}, p0, d1, "stride"},
                      ParameterCase{"StrideZero", k2, {2, 2, 0}, p0, d1, "stride"},
                      ParameterCase{"StrideZeroLength1", k2, {0}, p0, d1, "stride"},
                      ParameterCase{"StrideNegative", k2, {-1, 2, 2}, p0, d1, "stride"},
                      ParameterCase{"PaddingLength0", k2, s2, {}, d1, "padding"},
                      ParameterCase{"PaddingLength2", k2, s2, {0, 0}, d1, "padding"},
                      ParameterCase{"PaddingLength4", k2, s2, {0, 0, 0, 0}, d1, "padding"},
                      ParameterCase{"PaddingAboveHalfKernel_SPEC9", k2, s2, {2, 0, 0}, d1, "padding"},
                      ParameterCase{"PaddingAboveHalfKernelLength1", k2, s2, {2}, d1, "padding"},
                      ParameterCase{
                          "PaddingAboveHalfOfItsOwnAxisKernel", {2, 2, 1}, {2, 2, 1}, {0, 0, 1}, d1, "padding"},
                      ParameterCase{"PaddingNegative", k2, s2, {0, -1, 0}, d1, "padding"},
                      ParameterCase{"DilationLength0", k2, s2, p0, {}, "dilation"},
                      ParameterCase{"DilationLength2", k2, s2, p0, {1, 1}, "dilation"},
                      ParameterCase{"DilationZero", k2, s2, p0, {1, 0, 1}, "dilation"},
                      ParameterCase{"DilationZeroLength1", k2, s2, p0, {0}, "dilation"},
                      ParameterCase{"DilationNegative", k2, s2, p0, {-1}, "dilation"}),
    [](const auto &info) { return std::string(info.param.label); });

TEST(MaxPool3dWithArgmaxBackwardValidation, Row5AllowedLengthsAreAccepted) {
    // kernel length 1, stride length 0 (= kernel) and 1, padding length 1, dilation length 1.
    BackwardCase c;
    c.kernel = {2};
    c.stride = {};
    c.padding = {0};
    c.dilation = {1};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
    c.stride = {2};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row5PaddingOfHalfTheKernelIsAccepted) {
    // p = k/2 = 1: out = floor((2 + 2 - 2) / 2) + 1 = 2 per axis.
    BackwardCase c;
    c.padding = {1, 1, 1};
    c.gradOutput.shape = c.indices.shape = {1, 1, 2, 2, 2};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row5DilationAboveOneIsAccepted) {
    // SPEC §11 #14: d >= 1 accepted. self 3x3x3, k 2, s 1, d 2: eff 3, out 1 per axis.
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 3, 3, 3};
    c.stride = {1};
    c.dilation = {2};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

// ---- row 6: shapes → 161002 ----------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row6IndicesShapeDiffersFromGradOutputIs161002) {
    BackwardCase c;
    c.indices.shape = {1, 1, 1, 1, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices", "shape"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row6GradInputShapeDiffersFromSelfIs161002) {
    BackwardCase c;
    c.gradInput.shape = {1, 1, 2, 2, 3};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "shape"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row6GradInputChannelsDifferFromSelfIs161002) {
    BackwardCase c;
    c.gradInput.shape = {1, 2, 2, 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradInput", "shape"}));
}

// ---- row 7: INT32 indices and D*H*W > 2^31-1 → 161002 ---------------------------------------------------
// The huge tensors are views with all strides 0 over one element: phase 1 never reads data.

constexpr int64_t int32Max = 2147483647;

// A (1,1,1,1,width) input with kernel 1 and a W stride of 2^30: width 2^31-1 or 2^31 gives Wo = 2, so the
// output stays small and nothing in phase 1 scales with the huge plane.
BackwardCase hugePlaneCase(int64_t width, aclDataType indexType) {
    BackwardCase c;
    const std::vector<int64_t> zero5(5, 0);
    c.self = {{1, 1, 1, 1, width}, ACL_FLOAT, ACL_FORMAT_ND, zero5};
    c.gradInput = {{1, 1, 1, 1, width}, ACL_FLOAT, ACL_FORMAT_ND, zero5};
    c.gradOutput = {{1, 1, 1, 1, 2}, ACL_FLOAT};
    c.indices = {{1, 1, 1, 1, 2}, indexType};
    c.kernel = {1};
    c.stride = {1, 1, int64_t{1} << 30};
    c.padding = {0};
    c.dilation = {1};
    return c;
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row7Int32IndicesWithPlaneAboveInt32MaxIs161002) {
    EXPECT_TRUE(
        IsRejected(phaseOne(hugePlaneCase(int32Max + 1, ACL_INT32)), ACLNN_ERR_PARAM_INVALID, {"indices", "INT32"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row7Int32IndicesWithPlaneSpreadOverDHWAboveInt32MaxIs161002) {
    BackwardCase c = hugePlaneCase(1, ACL_INT32);
    c.self.shape = c.gradInput.shape = {1, 1, 2048, 1024, 1025};  // 2^21 * 1025 > 2^31 - 1
    c.gradOutput = {{1, 1, 2048, 1024, 1}, ACL_FLOAT, ACL_FORMAT_ND, std::vector<int64_t>(5, 0)};
    c.indices = {{1, 1, 2048, 1024, 1}, ACL_INT32, ACL_FORMAT_ND, std::vector<int64_t>(5, 0)};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"INT32"}));
}

// An accepted call needs a gradInput that reaches each element once (docs/decisions.md): a dense view
// over reserved address space that phase 1 never touches.
PhaseOneOutcome hugePlanePhaseOne(int64_t width, aclDataType indexType) {
    test_support::AddressReservation reservation(static_cast<size_t>(width) * sizeof(float));
    const std::vector<int64_t> shape{1, 1, 1, 1, width};
    RawTensor gradInput(shape, ACL_FLOAT, reservation.get(), shape);
    BackwardCall call(hugePlaneCase(width, indexType));
    call.gradInputArg = gradInput.get();
    return call.phaseOne();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row7Int32IndicesWithPlaneOfExactlyInt32MaxIsAccepted) {
    EXPECT_TRUE(IsAccepted(hugePlanePhaseOne(int32Max, ACL_INT32)));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row7Int64IndicesHaveNoPlaneLimit) {
    EXPECT_TRUE(IsAccepted(hugePlanePhaseOne(int32Max + 1, ACL_INT64)));
}

// ---- row 8: N / C of gradOutput ≠ self → 161002 ----------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row8GradOutputBatchDiffersIs161002) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {2, 1, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "N"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row8GradOutputChannelsDifferIs161002) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 3, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "C"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row8Rank4GradOutputChannelsDifferIs161002) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 2, 2, 2};
    c.gradOutput.shape = c.indices.shape = {2, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "C"}));
}

// ---- row 9: empty tensors → success, workspace 0, executor zero-fills gradInput -------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyGradOutputZeroFillsNonEmptyGradInput) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 1, 0, 1, 1};
    BackwardCall call(c);
    ASSERT_NE(call.gradInput.bitsAt(0), 0u) << "gradInput must start poisoned";
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.bitsAt(i), 0u) << "element " << i << " is not +0.0";
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyGradOutputZeroFillsStridedBf16GradInput) {
    BackwardCase c;
    c.allFloatTypes(ACL_BF16);
    c.gradOutput.shape = c.indices.shape = {2, 3, 0, 1, 1};
    c.self.shape = {2, 3, 2, 2, 2};
    c.gradInput = {{2, 3, 2, 2, 2}, ACL_BF16, ACL_FORMAT_ND, {60, 20, 9, 4, 2}};
    BackwardCall call(c);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < call.gradInput.elementCount(); ++i) EXPECT_EQ(call.gradInput.bitsAt(i), 0u) << i;
    EXPECT_EQ(call.gradInput.bytesOutsideViewChanged(), 0);
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptySelfWithNonEmptyGradOutputIsSuccess) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 0, 2, 2};
    BackwardCall call(c);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9ZeroBatchIsSuccess) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {0, 1, 2, 2, 2};
    c.gradOutput.shape = c.indices.shape = {0, 1, 1, 1, 1};
    BackwardCall call(c);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyTensorsMayHaveNullData) {
    // SPEC §2.4: an empty tensor's data may be null.
    const std::vector<int64_t> emptyShape{1, 1, 0, 2, 2}, gradOutputShape{1, 1, 1, 1, 1}, storage{1};
    test_support::DeviceBuffer gradOutputData(4), indicesData(4);
    RawTensor self(emptyShape, ACL_FLOAT, nullptr, {0});
    RawTensor gradInput(emptyShape, ACL_FLOAT, nullptr, {0});
    RawTensor gradOutput(gradOutputShape, ACL_FLOAT, gradOutputData.get(), storage);
    RawTensor indices(gradOutputShape, ACL_INT32, indicesData.get(), storage);
    BackwardCall call;
    call.selfArg = self.get();
    call.gradInputArg = gradInput.get();
    call.gradOutputArg = gradOutput.get();
    call.indicesArg = indices.get();
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    EXPECT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyGradOutputWinsOverWrongSpatialSize) {
    // Row 9 comes before row 10: an empty gradOutput whose spatial dims differ from (1,1,1) is a success.
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 1, 0, 5, 5};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

// ---- row 10: gradOutput spatial dims ≠ §3.3 → 161002 -----------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10GradOutputSpatialSizeDiffersIs161002) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10ComputedOutputBelowOneIs161002) {
    // self (1,1,1,1,1) with k 2: out = floor((1 - 2) / 2) + 1 = 0 on every axis.
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
}

BackwardCase ceilCase(bool ceilMode, int64_t gradOutputWidth, std::vector<int64_t> padding) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 1, 1, 5};
    c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, gradOutputWidth};
    c.kernel = {1, 1, 2};
    c.stride = {1, 1, 2};
    c.padding = std::move(padding);
    c.ceilMode = ceilMode;
    return c;
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10WE3CeilModeWithFloorWidthIs161002) {
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(false, 2, {0}))));
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(true, 3, {0}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(true, 2, {0})), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(false, 3, {0})), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10WE4LastWindowRuleGivesWidth3) {
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase(true, 3, {0, 0, 1}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase(true, 4, {0, 0, 1})), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
}

// ---- library addition: views must fit their storage, non-empty tensors need data -----------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, GradInputViewPastItsStorageIs161002) {
    test_support::DeviceBuffer data(64);
    RawTensor gradInput({1, 1, 2, 2, 2}, ACL_FLOAT, data.get(), {7});
    BackwardCall call;
    call.gradInputArg = gradInput.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"gradInput", "storage"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, GradOutputOffsetPastItsStorageIs161002) {
    test_support::DeviceBuffer data(64);
    RawTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT, data.get(), {1}, nullptr, 1);
    BackwardCall call;
    call.gradOutputArg = gradOutput.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "storage"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, IndicesStridesPastItsStorageIs161002) {
    test_support::DeviceBuffer data(64);
    const std::vector<int64_t> strides{1, 1, 1, 1, 1};
    RawTensor indices({1, 1, 1, 1, 2}, ACL_INT32, data.get(), {1}, &strides);  // reaches element 1 of 1
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 2, 2, 4};
    c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, 2};
    BackwardCall call(c);
    call.indicesArg = indices.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"indices"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, NonEmptyGradOutputWithNullDataIs161001) {
    RawTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT, nullptr, {1});
    BackwardCall call;
    call.gradOutputArg = gradOutput.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"gradOutput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, NonEmptyIndicesWithNullDataIs161001) {
    RawTensor indices({1, 1, 1, 1, 1}, ACL_INT32, nullptr, {1});
    BackwardCall call;
    call.indicesArg = indices.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"indices"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, NonEmptyGradInputWithNullDataIs161001) {
    RawTensor gradInput({1, 1, 2, 2, 2}, ACL_FLOAT, nullptr, {8});
    BackwardCall call;
    call.gradInputArg = gradInput.get();
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"gradInput"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, SelfDataIsNeverNeeded) {
    // SPEC §3.6: self's data is never read, only its shape and dtype.
    RawTensor self({1, 1, 2, 2, 2}, ACL_FLOAT, nullptr, {8});
    BackwardCall call;
    call.selfArg = self.get();
    call.gradOutput.set(0, 1.5);
    call.indices.set(0, 5);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(call.gradInput.at(5), 1.5);
}

// ---- order: the earlier row wins ------------------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow1BeforeRow2) {
    BackwardCase c;
    c.allFloatTypes(ACL_DOUBLE);
    BackwardCall call(c);
    call.kernelArg = nullptr;
    const PhaseOneOutcome outcome = call.phaseOne();
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_NULLPTR, {"kernelSize"}));
    EXPECT_TRUE(DoesNotMention(outcome, "DOUBLE"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow2BeforeRow3) {
    BackwardCase c;
    c.indices.type = ACL_FLOAT;
    c.gradInput.format = ACL_FORMAT_NC1HWC0;
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"indices", "dtype"}));
    EXPECT_TRUE(DoesNotMention(outcome, "format"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow3BeforeRow4) {
    BackwardCase c;
    c.gradOutput.format = ACL_FORMAT_FRACTAL_Z;
    c.self.shape = c.gradInput.shape = {1, 1, 1, 2, 2, 2};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"gradOutput", "format"}));
    EXPECT_TRUE(DoesNotMention(outcome, "rank"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow4BeforeRow5) {
    BackwardCase c;
    c.indices.shape = {1, 1, 1};
    c.kernel = {2, 2};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"indices", "rank"}));
    EXPECT_TRUE(DoesNotMention(outcome, "kernelSize"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow5BeforeRow6) {
    BackwardCase c;
    c.dilation = {0};
    c.indices.shape = {1, 1, 1, 1, 2};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"dilation"}));
    EXPECT_TRUE(DoesNotMention(outcome, "indices"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow6BeforeRow7) {
    BackwardCase c = hugePlaneCase(int32Max + 1, ACL_INT32);
    c.gradInput.shape = {1, 1, 1, 1, 7};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"gradInput", "shape"}));
    EXPECT_TRUE(DoesNotMention(outcome, "INT32"));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow7BeforeRow8) {
    BackwardCase c = hugePlaneCase(int32Max + 1, ACL_INT32);
    c.gradOutput.shape = c.indices.shape = {1, 2, 1, 1, 2};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, ACLNN_ERR_PARAM_INVALID, {"INT32"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow8BeforeRow9) {
    // An empty gradOutput with the wrong N is still an N mismatch.
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {0, 1, 1, 1, 1};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "N"}));
}

TEST(MaxPool3dWithArgmaxBackwardValidation, OrderRow8BeforeRow10) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 2, 3, 3, 3};
    EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"gradOutput", "C"}));
}

// ---- SPEC §9 error-path examples on WE-1 ----------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Spec9ErrorPathExamples) {
    {
        BackwardCase c;
        c.kernel = {2, 2};
        EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"kernelSize"}));
    }
    {
        BackwardCase c;
        c.padding = {2, 0, 0};
        EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"padding"}));
    }
    {
        BackwardCall call;
        call.selfArg = nullptr;
        EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_NULLPTR, {"self"}));
    }
    {
        BackwardCase c;
        c.indices.type = ACL_FLOAT;
        EXPECT_TRUE(IsRejected(phaseOne(c), ACLNN_ERR_PARAM_INVALID, {"indices"}));
    }
}

TEST(MaxPool3dWithArgmaxBackwardValidation, FailedPhaseOneLeavesGradInputUntouched) {
    BackwardCase c;
    c.kernel = {2, 2};
    BackwardCall call(c);
    const uint64_t before = call.gradInput.bitsAt(0);
    EXPECT_TRUE(IsRejected(call.phaseOne(), ACLNN_ERR_PARAM_INVALID, {"kernelSize"}));
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.bitsAt(i), before) << i;
}

}  // namespace
