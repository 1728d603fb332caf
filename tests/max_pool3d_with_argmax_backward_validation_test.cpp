// Phase-1 validation of aclnnMaxPool3dWithArgmaxBackward, SPEC §4 rows 1..10 (and §1.2, §9 error paths).
// Every row starts from the valid seed call WE-1 (self (1,1,2,2,2), gradOutput/indices (1,1,1,1,1),
// k=s=2, p=0, d=1) and breaks exactly one rule; the table harness (support/validation_cases.h) checks the
// exact code, that *executor and *workspaceSize were cleared, that aclGetRecentErrMsg() names the argument
// and that gradInput was not written. Order rows break two rules at once and check that the earlier one
// is reported.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/phase_one_check.h"
#include "support/pool_validation_rows.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace test_support;

// The seed sample WE-1, valid as is.
struct BackwardCase {
    TensorSpec gradOutput{{1, 1, 1, 1, 1}, ACL_FLOAT};
    TensorSpec self{{1, 1, 2, 2, 2}, ACL_FLOAT};
    TensorSpec indices{{1, 1, 1, 1, 1}, ACL_INT32};
    TensorSpec gradInput{{1, 1, 2, 2, 2}, ACL_FLOAT};
    std::vector<int64_t> kernel{2, 2, 2}, stride{2, 2, 2}, padding{0, 0, 0}, dilation{1, 1, 1};
    bool ceilMode = false;

    BackwardCase &valueTypes(aclDataType type) {
        gradOutput.type = self.type = gradInput.type = type;
        return *this;
    }
    BackwardCase &inputView(std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
        self.shape = gradInput.shape = std::move(shape);
        self.strides = gradInput.strides = std::move(strides);
        return *this;
    }
    BackwardCase &outputShape(std::vector<int64_t> shape) {
        gradOutput.shape = indices.shape = std::move(shape);
        return *this;
    }
    static constexpr const char *outputArgument = "gradOutput";  // named when its size is wrong

    BackwardCase &allFormats(aclFormat format) {
        gradOutput.format = self.format = indices.format = gradInput.format = format;
        return *this;
    }
};

// Owns the operands of one call; every argument pointer can be replaced (e.g. by nullptr) before phaseOne().
class BackwardCall : public PhaseOneCall, public PoolListArguments {
public:
    explicit BackwardCall(const BackwardCase &c = BackwardCase{})
        : PoolListArguments(c),
          gradOutput(makeTensor(c.gradOutput)),
          self(makeTensor(c.self)),
          indices(makeTensor(c.indices)),
          gradInput(makeTensor(c.gradInput)) {}
    PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutputArg, selfArg, indicesArg, kernelArg,
                                                                    strideArg, paddingArg, dilationArg, ceilMode,
                                                                    gradInputArg, workspaceSize, executor);
        });
    }
    aclnnStatus run() { return callPhaseTwo(aclnnMaxPool3dWithArgmaxBackward); }
    std::vector<const TestTensor *> outputs() const { return {&gradInput}; }

    TestTensor gradOutput, self, indices, gradInput;

    const aclTensor *gradOutputArg = gradOutput;
    const aclTensor *selfArg = self;
    const aclTensor *indicesArg = indices;
    aclTensor *gradInputArg = gradInput;
};

using Row = ValidationRow<BackwardCase, BackwardCall>;

const auto phaseOne = phaseOneOf<BackwardCall, BackwardCase>;

const auto parameterRow = poolListRow<BackwardCase, BackwardCall>;

const std::vector<aclFormat> privateFormats{
    ACL_FORMAT_UNDEFINED,        ACL_FORMAT_NC1HWC0,         ACL_FORMAT_FRACTAL_Z,       ACL_FORMAT_NC1HWC0_C04,
    ACL_FORMAT_FRACTAL_NZ,       ACL_FORMAT_NDC1HWC0,        ACL_FRACTAL_Z_3D,           ACL_FORMAT_FRACTAL_NZ_C0_16,
    ACL_FORMAT_FRACTAL_NZ_C0_32, ACL_FORMAT_FRACTAL_NZ_C0_2, ACL_FORMAT_FRACTAL_NZ_C0_4, ACL_FORMAT_FRACTAL_NZ_C0_8};

std::vector<Row> backwardRows() {
    std::vector<Row> rows;
    // ---- row 1: null pointers → 161001
    test_support::addNullPointerRows(
        rows, "Row1NullPointerIs161001_", std::pair{"gradOutput", &BackwardCall::gradOutputArg},
        std::pair{"self", &BackwardCall::selfArg}, std::pair{"indices", &BackwardCall::indicesArg},
        std::pair{"kernelSize", &BackwardCall::kernelArg}, std::pair{"stride", &BackwardCall::strideArg},
        std::pair{"padding", &BackwardCall::paddingArg}, std::pair{"dilation", &BackwardCall::dilationArg},
        std::pair{"gradInput", &BackwardCall::gradInputArg});
    rows.push_back(
        {"Row1EveryPointerNullReportsTheFirstArgument", {}, nullPointer, {"gradOutput"}, {}, [](BackwardCall &call) {
             call.gradOutputArg = call.selfArg = call.indicesArg = nullptr;
             call.kernelArg = call.strideArg = call.paddingArg = call.dilationArg = nullptr;
             call.gradInputArg = nullptr;
         }});
    rows.push_back(
        {"Row1NullDilationBeforeNullGradInput", {}, nullPointer, {"dilation"}, {"gradInput"}, [](BackwardCall &call) {
             call.dilationArg = nullptr;
             call.gradInputArg = nullptr;
         }});

    // ---- row 2: dtypes → 161002 (gradOutput and gradInput follow self in the self rows)
    addDtypeRows(rows);
    rows.push_back({"Row2GradOutputDtypeDiffersFromSelfIs161002",
                    [](BackwardCase &c) { c.gradOutput.type = ACL_FLOAT16; },
                    invalid,
                    {"gradOutput", "dtype"}});
    rows.push_back({"Row2GradInputDtypeDiffersFromSelfIs161002",
                    [](BackwardCase &c) { c.gradInput.type = ACL_BF16; },
                    invalid,
                    {"gradInput", "dtype"}});
    rows.push_back({"Row2GradInputDoubleWithFloatSelfIs161002",
                    [](BackwardCase &c) { c.gradInput.type = ACL_DOUBLE; },
                    invalid,
                    {"gradInput"}});

    // ---- row 3: formats → 161002
    rows.push_back({"Row3GradOutputFormatDiffersFromSelfIs161002",
                    [](BackwardCase &c) { c.gradOutput.format = ACL_FORMAT_NCDHW; },
                    invalid,
                    {"gradOutput", "format"}});
    rows.push_back({"Row3GradInputFormatDiffersFromSelfIs161002",
                    [](BackwardCase &c) { c.gradInput.format = ACL_FORMAT_NCHW; },
                    invalid,
                    {"gradInput", "format"}});
    rows.push_back({"Row3SelfFormatDiffersFromTheOthersIs161002",
                    [](BackwardCase &c) { c.self.format = ACL_FORMAT_NCDHW; },
                    invalid,
                    {"self", "format"}});
    for (aclFormat format : privateFormats) {
        // All four tensors share the format: only "no private/undefined format" is broken.
        rows.push_back({"Row3PrivateFormatOnAllTensorsIs161002_" + formatName(format),
                        [format](BackwardCase &c) { c.allFormats(format); },
                        invalid,
                        {"format"}});
        rows.push_back({"Row3PrivateFormatOnIndicesOnlyIs161002_" + formatName(format),
                        [format](BackwardCase &c) { c.indices.format = format; },
                        invalid,
                        {"indices", "format"}});
    }
    // Row 3 requires equal formats only for self, gradOutput and gradInput.
    rows.push_back({"Row3IndicesMayHaveAnotherPublicFormat",
                    [](BackwardCase &c) { c.indices.format = ACL_FORMAT_NCDHW; }, accepted});

    // ---- row 4: ranks → 161002
    rows.push_back({"Row4AllTensorsRank3Is161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 1, 1};
                        c.self.shape = c.gradInput.shape = {2, 2, 2};
                    },
                    invalid,
                    {"rank"}});
    rows.push_back({"Row4AllTensorsRank6Is161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, 1, 1};
                        c.self.shape = c.gradInput.shape = {1, 1, 1, 2, 2, 2};
                    },
                    invalid,
                    {"rank"}});
    rows.push_back({"Row4SelfAndGradInputRank3Is161002",
                    [](BackwardCase &c) {
                        c.self.shape = c.gradInput.shape = {2, 2, 2};
                    },
                    invalid,
                    {"self", "rank"}});
    rows.push_back({"Row4GradOutputRank4WithRank5SelfIs161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput", "rank"}});
    rows.push_back({"Row4IndicesRankDiffersIs161002",
                    [](BackwardCase &c) {
                        c.indices.shape = {1, 1, 1, 1};
                    },
                    invalid,
                    {"indices", "rank"}});
    rows.push_back({"Row4GradInputRankDiffersIs161002",
                    [](BackwardCase &c) {
                        c.gradInput.shape = {1, 2, 2, 2};
                    },
                    invalid,
                    {"gradInput", "rank"}});
    rows.push_back({"Row4GradInputRank6Is161002",
                    [](BackwardCase &c) { c.gradInput.shape = {1, 1, 1, 2, 2, 2}; },
                    invalid,
                    {"gradInput", "rank"}});

    // ---- row 5: kernelSize / stride / padding / dilation → 161002 (the _SPEC9 rows are §9's error paths)
    const std::vector<int64_t> k2{2, 2, 2}, s2{2, 2, 2}, p0{0, 0, 0}, d1{1, 1, 1};
    rows.push_back(parameterRow("KernelLength0", {}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelLength2_SPEC9", {2, 2}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelLength4", {2, 2, 2, 2}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelZero", {2, 0, 2}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelZeroLength1", {0}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("KernelNegative", {2, 2, -2}, s2, p0, d1, "kernelSize"));
    rows.push_back(parameterRow("StrideLength2", k2, {2, 2}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideLength4", k2, {2, 2, 2, 2}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideZero", k2, {2, 2, 0}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideZeroLength1", k2, {0}, p0, d1, "stride"));
    rows.push_back(parameterRow("StrideNegative", k2, {-1, 2, 2}, p0, d1, "stride"));
    rows.push_back(parameterRow("PaddingLength0", k2, s2, {}, d1, "padding"));
    rows.push_back(parameterRow("PaddingLength2", k2, s2, {0, 0}, d1, "padding"));
    rows.push_back(parameterRow("PaddingLength4", k2, s2, {0, 0, 0, 0}, d1, "padding"));
    rows.push_back(parameterRow("PaddingAboveHalfKernel_SPEC9", k2, s2, {2, 0, 0}, d1, "padding"));
    rows.push_back(parameterRow("PaddingAboveHalfKernelLength1", k2, s2, {2}, d1, "padding"));
    rows.push_back(parameterRow("PaddingAboveHalfOfItsOwnAxisKernel", {2, 2, 1}, {2, 2, 1}, {0, 0, 1}, d1, "padding"));
    rows.push_back(parameterRow("PaddingNegative", k2, s2, {0, -1, 0}, d1, "padding"));
    rows.push_back(parameterRow("DilationLength0", k2, s2, p0, {}, "dilation"));
    rows.push_back(parameterRow("DilationLength2", k2, s2, p0, {1, 1}, "dilation"));
    rows.push_back(parameterRow("DilationZero", k2, s2, p0, {1, 0, 1}, "dilation"));
    rows.push_back(parameterRow("DilationZeroLength1", k2, s2, p0, {0}, "dilation"));
    rows.push_back(parameterRow("DilationNegative", k2, s2, p0, {-1}, "dilation"));
    rows.push_back({"Row5PaddingOfHalfTheKernelIsAccepted",
                    [](BackwardCase &c) {
                        // p = k/2 = 1: out = floor((2 + 2 - 2) / 2) + 1 = 2 per axis.
                        c.padding = {1, 1, 1};
                        c.gradOutput.shape = c.indices.shape = {1, 1, 2, 2, 2};
                    },
                    accepted});
    rows.push_back({"Row5DilationAboveOneIsAccepted",
                    [](BackwardCase &c) {
                        // SPEC §11 #14: d >= 1 accepted. self 3x3x3, k 2, s 1, d 2: eff 3, out 1 per axis.
                        c.self.shape = c.gradInput.shape = {1, 1, 3, 3, 3};
                        c.stride = {1};
                        c.dilation = {2};
                    },
                    accepted});

    // ---- row 6: shapes → 161002
    rows.push_back({"Row6IndicesShapeDiffersFromGradOutputIs161002",
                    [](BackwardCase &c) {
                        c.indices.shape = {1, 1, 1, 1, 2};
                    },
                    invalid,
                    {"indices", "shape"}});
    rows.push_back({"Row6GradInputShapeDiffersFromSelfIs161002",
                    [](BackwardCase &c) {
                        c.gradInput.shape = {1, 1, 2, 2, 3};
                    },
                    invalid,
                    {"gradInput", "shape"}});
    rows.push_back({"Row6GradInputChannelsDifferFromSelfIs161002",
                    [](BackwardCase &c) {
                        c.gradInput.shape = {1, 2, 2, 2, 2};
                    },
                    invalid,
                    {"gradInput", "shape"}});

    // ---- row 7: INT32 indices and D*H*W > 2^31-1 → 161002
    rows.push_back({"Row7Int32IndicesWithPlaneAboveInt32MaxIs161002",
                    [](BackwardCase &c) { c = hugePlaneCase<BackwardCase>(int32Max + 1, ACL_INT32); },
                    invalid,
                    {"indices", "INT32"}});
    rows.push_back({"Row7Int32IndicesWithPlaneSpreadOverDHWAboveInt32MaxIs161002",
                    [](BackwardCase &c) {
                        c = hugePlaneCase<BackwardCase>(1, ACL_INT32);
                        c.self.shape = c.gradInput.shape = {1, 1, 2048, 1024, 1025};  // 2^21 * 1025 > 2^31 - 1
                        c.gradOutput = {{1, 1, 2048, 1024, 1}, ACL_FLOAT, ACL_FORMAT_ND, std::vector<int64_t>(5, 0)};
                        c.indices = {{1, 1, 2048, 1024, 1}, ACL_INT32, ACL_FORMAT_ND, std::vector<int64_t>(5, 0)};
                    },
                    invalid,
                    {"INT32"}});

    // An accepted call needs a gradInput that reaches each element once (docs/decisions.md): a dense view
    // over reserved address space that phase 1 never touches.
    const auto hugePlaneAccepted = [](const std::string &name, int64_t width, aclDataType indexType) {
        return Row{name,
                   [=](BackwardCase &c) { c = hugePlaneCase<BackwardCase>(width, indexType); },
                   accepted,
                   {},
                   {},
                   [width](BackwardCall &call) {
                       const std::vector<int64_t> shape{1, 1, 1, 1, width};
                       void *memory = call.keepReservedAddresses(static_cast<size_t>(width) * sizeof(float));
                       call.gradInputArg = call.keepRawTensor(shape, ACL_FLOAT, memory, shape);
                   }};
    };
    rows.push_back(hugePlaneAccepted("Row7Int32IndicesWithPlaneOfExactlyInt32MaxIsAccepted", int32Max, ACL_INT32));
    rows.push_back(hugePlaneAccepted("Row7Int64IndicesHaveNoPlaneLimit", int32Max + 1, ACL_INT64));

    // ---- row 8: N / C of gradOutput ≠ self → 161002
    rows.push_back({"Row8GradOutputBatchDiffersIs161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {2, 1, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput", "N"}});
    rows.push_back({"Row8GradOutputChannelsDifferIs161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 3, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput", "C"}});
    rows.push_back({"Row8Rank4GradOutputChannelsDifferIs161002",
                    [](BackwardCase &c) {
                        c.self.shape = c.gradInput.shape = {1, 2, 2, 2};
                        c.gradOutput.shape = c.indices.shape = {2, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput", "C"}});

    // ---- row 9 before row 10: an empty gradOutput whose spatial dims differ from (1,1,1) is a success
    rows.push_back({"Row9EmptyGradOutputWinsOverWrongSpatialSize",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 1, 0, 5, 5};
                    },
                    accepted});

    // ---- row 10: gradOutput spatial dims ≠ §3.3 → 161002
    rows.push_back({"Row10GradOutputSpatialSizeDiffersIs161002",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, 2};
                    },
                    invalid,
                    {"gradOutput"}});
    rows.push_back({"Row10ComputedOutputBelowOneIs161002",
                    [](BackwardCase &c) {
                        // self (1,1,1,1,1) with k 2: out = floor((1 - 2) / 2) + 1 = 0 on every axis.
                        c.self.shape = c.gradInput.shape = {1, 1, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput"}});

    // ---- library addition: views must fit their storage, non-empty tensors need data
    rows.push_back(
        {"GradInputViewPastItsStorageIs161002", {}, invalid, {"gradInput", "storage"}, {}, [](BackwardCall &call) {
             call.gradInputArg = call.keepRawTensor({1, 1, 2, 2, 2}, ACL_FLOAT, call.keepDeviceBuffer(64), {7});
         }});
    rows.push_back(
        {"GradOutputOffsetPastItsStorageIs161002", {}, invalid, {"gradOutput", "storage"}, {}, [](BackwardCall &call) {
             call.gradOutputArg =
                 call.keepRawTensor({1, 1, 1, 1, 1}, ACL_FLOAT, call.keepDeviceBuffer(64), {1}, nullptr, 1);
         }});
    rows.push_back(
        {"IndicesStridesPastItsStorageIs161002",
         [](BackwardCase &c) {
             c.self.shape = c.gradInput.shape = {1, 1, 2, 2, 4};
             c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1, 2};
         },
         invalid,
         {"indices"},
         {},
         [](BackwardCall &call) {
             static const std::vector<int64_t> strides{1, 1, 1, 1, 1};  // reaches element 1 of 1
             call.indicesArg = call.keepRawTensor({1, 1, 1, 1, 2}, ACL_INT32, call.keepDeviceBuffer(64), {1}, &strides);
         }});
    // Non-empty tensors with null data are accepted here and refused by the run unless an address was set
    // meanwhile (CANN's aclSetInputTensorAddr sample): tests/tensor_address_test.cpp.

    // ---- order: the earlier row wins
    rows.push_back({"OrderRow1BeforeRow2",
                    [](BackwardCase &c) { c.valueTypes(ACL_DOUBLE); },
                    nullPointer,
                    {"kernelSize"},
                    {"DOUBLE"},
                    [](BackwardCall &call) { call.kernelArg = nullptr; }});
    rows.push_back({"OrderRow2BeforeRow3",
                    [](BackwardCase &c) {
                        c.indices.type = ACL_FLOAT;
                        c.gradInput.format = ACL_FORMAT_NC1HWC0;
                    },
                    invalid,
                    {"indices", "dtype"},
                    {"format"}});
    rows.push_back({"OrderRow3BeforeRow4",
                    [](BackwardCase &c) {
                        c.gradOutput.format = ACL_FORMAT_FRACTAL_Z;
                        c.self.shape = c.gradInput.shape = {1, 1, 1, 2, 2, 2};
                    },
                    invalid,
                    {"gradOutput", "format"},
                    {"rank"}});
    rows.push_back({"OrderRow4BeforeRow5",
                    [](BackwardCase &c) {
                        c.indices.shape = {1, 1, 1};
                        c.kernel = {2, 2};
                    },
                    invalid,
                    {"indices", "rank"},
                    {"kernelSize"}});
    rows.push_back({"OrderRow5BeforeRow6",
                    [](BackwardCase &c) {
                        c.dilation = {0};
                        c.indices.shape = {1, 1, 1, 1, 2};
                    },
                    invalid,
                    {"dilation"},
                    {"indices"}});
    rows.push_back({"OrderRow6BeforeRow7",
                    [](BackwardCase &c) {
                        c = hugePlaneCase<BackwardCase>(int32Max + 1, ACL_INT32);
                        c.gradInput.shape = {1, 1, 1, 1, 7};
                    },
                    invalid,
                    {"gradInput", "shape"},
                    {"INT32"}});
    rows.push_back({"OrderRow7BeforeRow8",
                    [](BackwardCase &c) {
                        c = hugePlaneCase<BackwardCase>(int32Max + 1, ACL_INT32);
                        c.gradOutput.shape = c.indices.shape = {1, 2, 1, 1, 2};
                    },
                    invalid,
                    {"INT32"}});
    rows.push_back({"OrderRow8BeforeRow9",
                    [](BackwardCase &c) {
                        // An empty gradOutput with the wrong N is still an N mismatch.
                        c.gradOutput.shape = c.indices.shape = {0, 1, 1, 1, 1};
                    },
                    invalid,
                    {"gradOutput", "N"}});
    rows.push_back({"OrderRow8BeforeRow10",
                    [](BackwardCase &c) {
                        c.gradOutput.shape = c.indices.shape = {1, 2, 3, 3, 3};
                    },
                    invalid,
                    {"gradOutput", "C"}});
    return rows;
}

POOLGRAD_VALIDATION_TABLE(MaxPool3dWithArgmaxBackwardValidationRows, backwardRows());

// ---- calls that run, and rules shown over several calls ---------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, BaselineSeedCallIsAcceptedAndRuns) {
    BackwardCall call;
    call.gradOutput.set(0, 0.4757);
    call.indices.set(0, 6);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u) << "SPEC §1.2: the CPU backend reports workspace 0";
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.at(i), i == 6 ? double(0.4757f) : 0.0) << "element " << i;
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row2SupportedDtypeCombinationsAreAccepted) {
    expectEveryDtypePairAccepted<BackwardCase, BackwardCall>();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row3EveryPublicFormatIsAccepted) {
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC,
                             ACL_FORMAT_NCDHW, ACL_FORMAT_NC, ACL_FORMAT_NCL}) {
        SCOPED_TRACE(testing::Message() << "format " << format);
        EXPECT_TRUE(IsAccepted(phaseOne(BackwardCase{}.allFormats(format))));
    }
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row4AllRank4IsAcceptedAndRuns) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 1, 1, 1};
    c.self.shape = c.gradInput.shape = {1, 2, 2, 2};
    BackwardCall call(c);
    call.gradOutput.set(0, 2.5);
    call.indices.set(0, 3);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.at(i), i == 3 ? 2.5 : 0.0) << "element " << i;
}

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

// ---- row 9: empty tensors → success, workspace 0, executor zero-fills gradInput -------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyGradOutputZeroFillsNonEmptyGradInput) {
    BackwardCase c;
    c.gradOutput.shape = c.indices.shape = {1, 1, 0, 1, 1};
    BackwardCall call(c);
    ASSERT_NE(call.gradInput.bitsAt(0), 0u) << "gradInput must start poisoned";
    expectAcceptedAndRuns(call);
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(call.gradInput.bitsAt(i), 0u) << "element " << i << " is not +0.0";
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyGradOutputZeroFillsStridedBf16GradInput) {
    BackwardCase c;
    c.valueTypes(ACL_BF16);
    c.gradOutput.shape = c.indices.shape = {2, 3, 0, 1, 1};
    c.self.shape = {2, 3, 2, 2, 2};
    c.gradInput = {{2, 3, 2, 2, 2}, ACL_BF16, ACL_FORMAT_ND, {60, 20, 9, 4, 2}};
    BackwardCall call(c);
    expectAcceptedAndRuns(call);
    for (int64_t i = 0; i < call.gradInput.elementCount(); ++i) EXPECT_EQ(call.gradInput.bitsAt(i), 0u) << i;
    EXPECT_EQ(call.gradInput.bytesOutsideViewChanged(), 0);
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptySelfWithNonEmptyGradOutputIsSuccess) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {1, 1, 0, 2, 2};
    BackwardCall call(c);
    expectAcceptedAndRuns(call);
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9ZeroBatchIsSuccess) {
    BackwardCase c;
    c.self.shape = c.gradInput.shape = {0, 1, 2, 2, 2};
    c.gradOutput.shape = c.indices.shape = {0, 1, 1, 1, 1};
    BackwardCall call(c);
    expectAcceptedAndRuns(call);
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row9EmptyTensorsMayHaveNullData) {
    // SPEC §2.4: an empty tensor's data may be null.
    const std::vector<int64_t> emptyShape{1, 1, 0, 2, 2}, gradOutputShape{1, 1, 1, 1, 1}, storage{1};
    BackwardCall call;
    call.selfArg = call.keepRawTensor(emptyShape, ACL_FLOAT, nullptr, {0});
    call.gradInputArg = call.keepRawTensor(emptyShape, ACL_FLOAT, nullptr, {0});
    call.gradOutputArg = call.keepRawTensor(gradOutputShape, ACL_FLOAT, call.keepDeviceBuffer(4), storage);
    call.indicesArg = call.keepRawTensor(gradOutputShape, ACL_INT32, call.keepDeviceBuffer(4), storage);
    expectAcceptedAndRuns(call);
}

// ---- row 10: WE-3/WE-4, the ceil-mode widths -------------------------------------------------------------

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10WE3CeilModeWithFloorWidthIs161002) {
    expectCeilModeWidthsWE3<BackwardCase, BackwardCall>();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, Row10WE4LastWindowRuleGivesWidth3) {
    expectLastWindowRuleWE4<BackwardCase, BackwardCall>();
}

TEST(MaxPool3dWithArgmaxBackwardValidation, SelfDataIsNeverNeeded) {
    // SPEC §3.6: self's data is never read, only its shape and dtype.
    BackwardCall call;
    call.selfArg = call.keepRawTensor({1, 1, 2, 2, 2}, ACL_FLOAT, nullptr, {8});
    call.gradOutput.set(0, 1.5);
    call.indices.set(0, 5);
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(call.gradInput.at(5), 1.5);
}

}  // namespace
