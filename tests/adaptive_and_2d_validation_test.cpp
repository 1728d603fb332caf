// Phase-1 validation of the adaptive operators (SPEC §7.2 forward, §5 backward; both the 3-D operators and the
// 2-D ones of §8, whose rows are the same on (N,)C,H,W tensors) and the key rows of the 2-D max-pool wrappers
// (aclnnMaxPool2dWithIndices / WithMask and their backwards: §7.1 and §4 rows applied to (N,)C,H,W, with the
// INT8 mask of §8). Every test starts from a valid call and breaks one rule; it checks the exact code, that
// *executor and *workspaceSize were cleared (SPEC §1.2), and that aclGetRecentErrMsg() names the argument.
// Order tests break two rows at once and check which one is reported. Empty tensors: success, workspace 0,
// and the backward zero-fills gradInput.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "support/address_reservation.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using test_support::DoesNotMention;
using test_support::IntArray;
using test_support::IsAccepted;
using test_support::IsRejected;
using test_support::PhaseOneOutcome;
using test_support::TestTensor;

constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

enum class Op {
    Adaptive3d,
    Adaptive2d,
    Adaptive3dBackward,
    Adaptive2dBackward,
    Indices2d,
    Mask2d,
    Indices2dBackward,
    Mask2dBackward,
};

const char *opName(Op op) {
    switch (op) {
        case Op::Adaptive3d:
            return "AdaptiveMaxPool3d";
        case Op::Adaptive2d:
            return "AdaptiveMaxPool2d";
        case Op::Adaptive3dBackward:
            return "AdaptiveMaxPool3dBackward";
        case Op::Adaptive2dBackward:
            return "AdaptiveMaxPool2dBackward";
        case Op::Indices2d:
            return "MaxPool2dWithIndices";
        case Op::Mask2d:
            return "MaxPool2dWithMask";
        case Op::Indices2dBackward:
            return "MaxPool2dWithIndicesBackward";
        case Op::Mask2dBackward:
            return "MaxPool2dWithMaskBackward";
    }
    return "?";
}

using Spec = test_support::TensorSpec;

// One call: tensors and lists by argument name; names in `nulls` are passed as nullptr (this includes
// "workspaceSize" and "executor").
struct Case {
    Op op = Op::Adaptive3d;
    std::map<std::string, Spec> tensors;
    std::map<std::string, std::vector<int64_t>> lists;
    bool ceilMode = false;
    std::set<std::string> nulls;

    Spec &operator[](const std::string &name) { return tensors.at(name); }
    // Applies `f` to every tensor.
    Case &all(const std::function<void(Spec &)> &f) {
        for (auto &[name, spec] : tensors) f(spec);
        return *this;
    }
};

// Owns the operands of a Case, calls phase 1, and can run phase 2 with the executor it got.
class Invocation : public test_support::PhaseOneCall {
public:
    explicit Invocation(const Case &c) : case_(c) {
        for (const auto &[name, spec] : c.tensors)
            tensors_[name] = std::make_unique<TestTensor>(test_support::makeTensor(spec));
        for (const auto &[name, values] : c.lists) lists_[name] = std::make_unique<IntArray>(values);
        workspaceSizeArg = c.nulls.count("workspaceSize") == 0;
        executorArg = c.nulls.count("executor") == 0;
    }

    TestTensor &tensor(const std::string &name) { return *tensors_.at(name); }

    PhaseOneOutcome phaseOne() {
        return callPhaseOne([this](uint64_t *ws, aclOpExecutor **ex) { return callOperator(ws, ex); });
    }

    // Phase 2 with the executor of a successful phaseOne(), then a stream sync.
    aclnnStatus run() {
        switch (case_.op) {
            case Op::Adaptive3d:
                return callPhaseTwo(aclnnAdaptiveMaxPool3d);
            case Op::Adaptive2d:
                return callPhaseTwo(aclnnAdaptiveMaxPool2d);
            case Op::Adaptive3dBackward:
                return callPhaseTwo(aclnnAdaptiveMaxPool3dBackward);
            case Op::Adaptive2dBackward:
                return callPhaseTwo(aclnnAdaptiveMaxPool2dBackward);
            case Op::Indices2d:
                return callPhaseTwo(aclnnMaxPool2dWithIndices);
            case Op::Mask2d:
                return callPhaseTwo(aclnnMaxPool2dWithMask);
            case Op::Indices2dBackward:
                return callPhaseTwo(aclnnMaxPool2dWithIndicesBackward);
            case Op::Mask2dBackward:
                return callPhaseTwo(aclnnMaxPool2dWithMaskBackward);
        }
        return -1;
    }

private:
    aclnnStatus callOperator(uint64_t *ws, aclOpExecutor **ex) {
        const bool ceil = case_.ceilMode;
        switch (case_.op) {
            case Op::Adaptive3d:
                return aclnnAdaptiveMaxPool3dGetWorkspaceSize(t("self"), l("outputSize"), t("outputOut"),
                                                              t("indicesOut"), ws, ex);
            case Op::Adaptive2d:
                return aclnnAdaptiveMaxPool2dGetWorkspaceSize(t("self"), l("outputSize"), t("outputOut"),
                                                              t("indicesOut"), ws, ex);
            case Op::Adaptive3dBackward:
                return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(t("gradOutput"), t("self"), t("indices"),
                                                                      t("gradInput"), ws, ex);
            case Op::Adaptive2dBackward:
                return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(t("gradOutput"), t("self"), t("indices"),
                                                                      t("gradInput"), ws, ex);
            case Op::Indices2d:
                return aclnnMaxPool2dWithIndicesGetWorkspaceSize(t("self"), l("kernelSize"), l("stride"), l("padding"),
                                                                 l("dilation"), ceil, t("out"), t("indices"), ws, ex);
            case Op::Mask2d:
                return aclnnMaxPool2dWithMaskGetWorkspaceSize(t("self"), l("kernelSize"), l("stride"), l("padding"),
                                                              l("dilation"), ceil, t("out"), t("indices"), ws, ex);
            case Op::Indices2dBackward:
                return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(t("gradOutput"), t("self"), t("indices"),
                                                                         l("kernelSize"), l("stride"), l("padding"),
                                                                         l("dilation"), ceil, t("gradInput"), ws, ex);
            case Op::Mask2dBackward:
                return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(t("gradOutput"), t("self"), t("indices"),
                                                                      l("kernelSize"), l("stride"), l("padding"),
                                                                      l("dilation"), ceil, t("gradInput"), ws, ex);
        }
        return -1;
    }

    aclTensor *t(const std::string &name) {
        if (case_.nulls.count(name) || !tensors_.count(name)) return nullptr;
        return tensors_.at(name)->get();
    }
    aclIntArray *l(const std::string &name) {
        if (case_.nulls.count(name) || !lists_.count(name)) return nullptr;
        return *lists_.at(name);
    }

    Case case_;
    std::map<std::string, std::unique_ptr<TestTensor>> tensors_;
    std::map<std::string, std::unique_ptr<IntArray>> lists_;
};

PhaseOneOutcome phaseOne(const Case &c) {
    Invocation invocation(c);
    return invocation.phaseOne();
}

// An empty-tensor call: accepted with workspace 0, and phase 2 succeeds.
void expectEmptyCallSucceeds(Invocation &invocation) {
    const PhaseOneOutcome outcome = invocation.phaseOne();
    ASSERT_TRUE(IsAccepted(outcome));
    EXPECT_EQ(outcome.workspaceSize, 0u);
    EXPECT_EQ(invocation.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// A backward with an empty gradOutput: succeeds and writes +0.0 over all of gradInput.
void expectZeroFilledGradInput(const Case &c) {
    Invocation invocation(c);
    expectEmptyCallSucceeds(invocation);
    TestTensor &gradInput = invocation.tensor("gradInput");
    for (int64_t i = 0; i < gradInput.elementCount(); ++i) ASSERT_EQ(gradInput.bitsAt(i), 0u) << "element " << i;
}

// ================================================================================================ valid cases

bool isTwoD(Op op) { return op != Op::Adaptive3d && op != Op::Adaptive3dBackward; }

// Leading dims followed by (d,h,w), or (h,w) for the 2-D operators.
std::vector<int64_t> shapeOf(Op op, std::vector<int64_t> leading, std::array<int64_t, 3> dhw) {
    if (!isTwoD(op)) leading.push_back(dhw[0]);
    leading.push_back(dhw[1]);
    leading.push_back(dhw[2]);
    return leading;
}

// Adaptive forward: self (2,3,[4,]5,6), outputSize ([2,]3,4) -> out/indices (2,3,[2,]3,4).
Case adaptiveForward(Op op) {
    Case c;
    c.op = op;
    c.tensors["self"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    c.tensors["outputOut"] = {shapeOf(op, {2, 3}, {2, 3, 4}), ACL_FLOAT};
    c.tensors["indicesOut"] = {shapeOf(op, {2, 3}, {2, 3, 4}), ACL_INT64};
    c.lists["outputSize"] = isTwoD(op) ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{2, 3, 4};
    return c;
}

// Adaptive backward: gradOutput/indices (2,3,[2,]3,7) (spatial sizes are free), self/gradInput (2,3,[4,]5,6).
Case adaptiveBackward(Op op) {
    Case c;
    c.op = op;
    c.tensors["gradOutput"] = {shapeOf(op, {2, 3}, {2, 3, 7}), ACL_FLOAT};
    c.tensors["self"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    c.tensors["indices"] = {shapeOf(op, {2, 3}, {2, 3, 7}), ACL_INT32};
    c.tensors["gradInput"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    return c;
}

// 2-D wrappers: self (2,3,6,8), k 2 s 2 p 0 d 1 -> out (2,3,3,4); mask (2,3,4,(ceil(12/16)+1)*32 = 64).
std::vector<int64_t> maskShapeFor(std::vector<int64_t> leading, int64_t kernelElements, int64_t Ho, int64_t Wo) {
    leading.push_back(kernelElements);
    leading.push_back(((Ho * Wo + 15) / 16 + 1) * 32);
    return leading;
}

void addPoolLists(Case &c) {
    c.lists["kernelSize"] = {2, 2};
    c.lists["stride"] = {2, 2};
    c.lists["padding"] = {0, 0};
    c.lists["dilation"] = {1, 1};
}

Case pool2dForward(Op op) {
    Case c;
    c.op = op;
    c.tensors["self"] = {{2, 3, 6, 8}, ACL_FLOAT};
    c.tensors["out"] = {{2, 3, 3, 4}, ACL_FLOAT};
    c.tensors["indices"] =
        op == Op::Mask2d ? Spec{maskShapeFor({2, 3}, 4, 3, 4), ACL_INT8} : Spec{{2, 3, 3, 4}, ACL_INT32};
    addPoolLists(c);
    return c;
}

Case pool2dBackward(Op op) {
    Case c;
    c.op = op;
    c.tensors["gradOutput"] = {{2, 3, 3, 4}, ACL_FLOAT};
    c.tensors["self"] = {{2, 3, 6, 8}, ACL_FLOAT};
    c.tensors["indices"] =
        op == Op::Mask2dBackward ? Spec{maskShapeFor({2, 3}, 4, 3, 4), ACL_INT8} : Spec{{2, 3, 3, 4}, ACL_INT32};
    c.tensors["gradInput"] = {{2, 3, 6, 8}, ACL_FLOAT};
    addPoolLists(c);
    return c;
}

Case validCase(Op op) {
    switch (op) {
        case Op::Adaptive3d:
        case Op::Adaptive2d:
            return adaptiveForward(op);
        case Op::Adaptive3dBackward:
        case Op::Adaptive2dBackward:
            return adaptiveBackward(op);
        case Op::Indices2d:
        case Op::Mask2d:
            return pool2dForward(op);
        case Op::Indices2dBackward:
        case Op::Mask2dBackward:
            return pool2dBackward(op);
    }
    return {};
}

std::string opParamName(const ::testing::TestParamInfo<Op> &info) { return opName(info.param); }

// ================================================================================================ all ops

class AdaptiveAnd2dValidation : public ::testing::TestWithParam<Op> {};

TEST_P(AdaptiveAnd2dValidation, ValidBaselineIsAcceptedWithWorkspaceZeroAndRuns) {
    Case c = validCase(GetParam());
    Invocation invocation(c);
    if (c.tensors.count("gradOutput")) {
        // Backward inputs need valid indices: zeros are valid for every op.
        TestTensor &indices = invocation.tensor("indices");
        TestTensor &gradOutput = invocation.tensor("gradOutput");
        for (int64_t i = 0; i < gradOutput.elementCount(); ++i) gradOutput.set(i, 1.0);
        for (int64_t i = 0; i < indices.elementCount(); ++i) indices.setBits(i, 0);
    } else {
        TestTensor &self = invocation.tensor("self");
        for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, static_cast<double>(i % 7));
    }
    const PhaseOneOutcome outcome = invocation.phaseOne();
    ASSERT_TRUE(IsAccepted(outcome));
    EXPECT_EQ(outcome.workspaceSize, 0u) << "SPEC §1.2: the CPU backend reports workspace 0";
    EXPECT_EQ(invocation.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

std::vector<std::string> pointerNames(Op op) {
    switch (op) {
        case Op::Adaptive3d:
        case Op::Adaptive2d:  // SPEC §7.2 row 1 order
            return {"workspaceSize", "executor", "self", "outputSize", "outputOut", "indicesOut"};
        case Op::Adaptive3dBackward:
        case Op::Adaptive2dBackward:  // SPEC §5 row 1
            return {"gradOutput", "self", "indices", "gradInput", "workspaceSize", "executor"};
        case Op::Indices2d:
        case Op::Mask2d:  // SPEC §7.1 row 1
            return {"self", "kernelSize", "stride",        "padding", "dilation",
                    "out",  "indices",    "workspaceSize", "executor"};
        case Op::Indices2dBackward:
        case Op::Mask2dBackward:  // SPEC §4 row 1
            return {"gradOutput", "self",     "indices",   "kernelSize",    "stride",
                    "padding",    "dilation", "gradInput", "workspaceSize", "executor"};
    }
    return {};
}

TEST_P(AdaptiveAnd2dValidation, Row1EachNullPointerIs161001AndNamesTheArgument) {
    for (const std::string &name : pointerNames(GetParam())) {
        SCOPED_TRACE(name);
        Case c = validCase(GetParam());
        c.nulls = {name};
        EXPECT_TRUE(IsRejected(phaseOne(c), kNull, {name}, name != "workspaceSize", name != "executor"));
    }
}

TEST_P(AdaptiveAnd2dValidation, Row1NullPointerWinsOverAnInvalidDtype) {
    // A null output (161001) is reported before a dtype error (161002) on self.
    Case c = validCase(GetParam());
    c["self"].type = ACL_DOUBLE;
    const std::string name = c.tensors.count("indicesOut")  ? "indicesOut"
                             : c.tensors.count("gradInput") ? "gradInput"
                                                            : "indices";
    c.nulls = {name};
    EXPECT_TRUE(IsRejected(phaseOne(c), kNull, {name}));
}

TEST_P(AdaptiveAnd2dValidation, Row2SelfDtypeDoubleIs161002) {
    // aclnnAdaptiveMaxPool2d takes DOUBLE, as CANN's op_api does (AdaptiveMaxPool2dTakesDoubleAndNhwc below).
    if (GetParam() == Op::Adaptive2d) GTEST_SKIP();
    Case c = validCase(GetParam());
    // Every floating operand follows self so that only "self dtype" is broken.
    for (auto &[name, spec] : c.tensors)
        if (spec.type == ACL_FLOAT) spec.type = ACL_DOUBLE;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"self", "dtype"}));
}

TEST_P(AdaptiveAnd2dValidation, Row2SelfDtypeIntegerIs161002) {
    Case c = validCase(GetParam());
    for (auto &[name, spec] : c.tensors)
        if (spec.type == ACL_FLOAT) spec.type = ACL_INT32;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"dtype"}));
}

TEST_P(AdaptiveAnd2dValidation, EveryFloatingDtypeAndIndexDtypeIsAccepted) {
    const bool mask = GetParam() == Op::Mask2d || GetParam() == Op::Mask2dBackward;
    for (aclDataType value : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (aclDataType index : {ACL_INT32, ACL_INT64}) {
            if (mask && index == ACL_INT64) continue;
            SCOPED_TRACE(std::string("dtype ") + std::to_string(value) + " index " + std::to_string(index));
            Case c = validCase(GetParam());
            for (auto &[name, spec] : c.tensors) {
                if (spec.type == ACL_FLOAT)
                    spec.type = value;
                else if (!mask)
                    spec.type = index;
            }
            EXPECT_TRUE(IsAccepted(phaseOne(c)));
        }
}

TEST_P(AdaptiveAnd2dValidation, IndicesDtypeOutsideTheAllowedSetIs161002) {
    const bool mask = GetParam() == Op::Mask2d || GetParam() == Op::Mask2dBackward;
    const std::string name = validCase(GetParam()).tensors.count("indicesOut") ? "indicesOut" : "indices";
    // Indices ops: INT32/INT64 only. Mask ops: INT8 only (SPEC §8).
    const std::vector<aclDataType> bad =
        mask ? std::vector<aclDataType>{ACL_INT32, ACL_UINT8, ACL_FLOAT, ACL_BOOL}
             : std::vector<aclDataType>{ACL_FLOAT, ACL_INT8, ACL_INT16, ACL_UINT32, ACL_UINT64, ACL_DOUBLE};
    for (aclDataType type : bad) {
        SCOPED_TRACE(std::to_string(type));
        Case c = validCase(GetParam());
        c[name].type = type;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "dtype"}));
    }
}

TEST_P(AdaptiveAnd2dValidation, OutputDtypeDiffersFromSelfIs161002) {
    Case c = validCase(GetParam());
    const std::string name = c.tensors.count("outputOut") ? "outputOut" : c.tensors.count("out") ? "out" : "gradInput";
    c[name].type = ACL_FLOAT16;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "dtype"}));
}

TEST_P(AdaptiveAnd2dValidation, RankOutsideTheAllowedPairIs161002) {
    // 3-D operators: rank 4 or 5; 2-D operators: rank 3 or 4. Every tensor gets the bad rank so that only the
    // rank rule (not "ranks differ") is broken.
    const bool twoD = isTwoD(GetParam());
    for (int64_t rank : twoD ? std::vector<int64_t>{2, 5} : std::vector<int64_t>{3, 6}) {
        SCOPED_TRACE("rank " + std::to_string(rank));
        Case c = validCase(GetParam());
        const int64_t valid = static_cast<int64_t>(c["self"].shape.size());
        for (auto &[name, spec] : c.tensors) {
            for (int64_t r = valid; r > rank; --r) spec.shape.erase(spec.shape.begin());
            for (int64_t r = valid; r < rank; ++r) spec.shape.insert(spec.shape.begin(), 1);
        }
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"rank"}));
    }
}

TEST_P(AdaptiveAnd2dValidation, RanksDifferIs161002) {
    // The unbatched form of one output-side tensor next to batched others (N = 1 so that the shape would match).
    Case c = validCase(GetParam());
    for (auto &[name, spec] : c.tensors) spec.shape[0] = 1;
    const std::string name = c.tensors.count("outputOut") ? "outputOut" : c.tensors.count("out") ? "out" : "gradInput";
    c[name].shape.erase(c[name].shape.begin());
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "rank"}));
}

TEST_P(AdaptiveAnd2dValidation, UnbatchedFormIsAccepted) {
    // 4-D (C,D,H,W) for the 3-D operators, 3-D (C,H,W) for the 2-D ones: every tensor without N.
    Case c = validCase(GetParam());
    for (auto &[name, spec] : c.tensors) spec.shape.erase(spec.shape.begin());
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST_P(AdaptiveAnd2dValidation, PrivateOrUndefinedFormatIs161002) {
    for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D,
                             ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_UNDEFINED}) {
        SCOPED_TRACE(std::to_string(format));
        Case c = validCase(GetParam());
        c.all([format](Spec &s) { s.format = format; });
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"format"}));
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveAnd2dValidation,
                         ::testing::Values(Op::Adaptive3d, Op::Adaptive2d, Op::Adaptive3dBackward,
                                           Op::Adaptive2dBackward, Op::Indices2d, Op::Mask2d, Op::Indices2dBackward,
                                           Op::Mask2dBackward),
                         opParamName);

// ================================================================================================ adaptive forward

class AdaptiveForwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool twoD() const { return isTwoD(GetParam()); }
};

TEST_P(AdaptiveForwardValidation, Row2SelfRankWinsOverItsDtype) {
    Case c = valid();
    c.all([](Spec &s) { s.shape.erase(s.shape.begin(), s.shape.begin() + 2); });  // rank 3 (3-D op) / 2 (2-D op)
    c["self"].type = ACL_DOUBLE;
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"self", "rank"}));
    EXPECT_TRUE(DoesNotMention(outcome, "dtype"));
}

TEST_P(AdaptiveForwardValidation, Row2IndicesRankDiffersIs161002) {
    Case c = valid();
    c["indicesOut"].shape.insert(c["indicesOut"].shape.begin(), 1);
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indicesOut", "rank"}));
}

TEST_P(AdaptiveForwardValidation, Row3OutputDtypeOutsideFloatTypesIs161002) {
    Case c = valid();
    c["outputOut"].type = ACL_INT32;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut", "dtype"}));
}

TEST_P(AdaptiveForwardValidation, Row3DtypeWinsOverFormat) {
    Case c = valid();
    c["indicesOut"].type = ACL_FLOAT;
    c["self"].format = ACL_FORMAT_NHWC;
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indicesOut", "dtype"}));
    EXPECT_TRUE(DoesNotMention(outcome, "format"));
}

TEST_P(AdaptiveForwardValidation, Row4SelfFormatOutsideTheAllowedSetIs161002) {
    // 3-D: ND, NCDHW, NCHW (SPEC §7.2, §11 #19/#20). 2-D: ND, NCHW and NHWC (as CANN's op_api).
    std::vector<aclFormat> bad{ACL_FORMAT_NDHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NC, ACL_FORMAT_NCL};
    if (twoD()) bad.push_back(ACL_FORMAT_NCDHW);
    if (!twoD()) bad.push_back(ACL_FORMAT_NHWC);
    for (aclFormat format : bad) {
        SCOPED_TRACE(std::to_string(format));
        Case c = valid();
        c.all([format](Spec &s) { s.format = format; });
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"self", "format"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row4AllowedFormatsAreAccepted) {
    std::vector<aclFormat> good{ACL_FORMAT_ND, ACL_FORMAT_NCHW};
    if (!twoD()) good.push_back(ACL_FORMAT_NCDHW);
    for (aclFormat format : good) {
        SCOPED_TRACE(std::to_string(format));
        Case c = valid();
        c.all([format](Spec &s) { s.format = format; });
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
}

TEST_P(AdaptiveForwardValidation, Row4OutputFormatDiffersFromSelfIs161002) {
    Case c = valid();
    c["outputOut"].format = ACL_FORMAT_NCHW;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut", "format"}));
}

TEST_P(AdaptiveForwardValidation, Row4FormatWinsOverOutputSizeLength) {
    Case c = valid();
    c["outputOut"].format = ACL_FORMAT_NCHW;
    c.lists["outputSize"] = {1, 2, 3, 4};
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"format"}));
    EXPECT_TRUE(DoesNotMention(outcome, "outputSize"));
}

TEST_P(AdaptiveForwardValidation, Row5OutputSizeLengthOutsideZeroOneOrSpatialDimsIs161002) {
    const std::vector<std::vector<int64_t>> bad =
        twoD() ? std::vector<std::vector<int64_t>>{{3, 4, 4}, {1, 3, 4, 4}}
               : std::vector<std::vector<int64_t>>{{3, 4}, {1, 2, 3, 4}, {2, 3, 4, 4, 4}};
    for (const auto &sizes : bad) {
        SCOPED_TRACE("length " + std::to_string(sizes.size()));
        Case c = valid();
        c.lists["outputSize"] = sizes;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputSize"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row5OutputSizeLengthZeroAndOneAreAccepted) {
    {
        Case c = valid();  // length 0: out spatial = self spatial
        c.lists["outputSize"] = {};
        c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
    {
        Case c = valid();  // length 1: every spatial axis 3
        c.lists["outputSize"] = {3};
        c["outputOut"].shape = c["indicesOut"].shape = shapeOf(GetParam(), {2, 3}, {3, 3, 3});
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
    {
        Case c = valid();  // O > I on every axis is fine
        c.lists["outputSize"] = twoD() ? std::vector<int64_t>{11, 13} : std::vector<int64_t>{9, 11, 13};
        c["outputOut"].shape = c["indicesOut"].shape = shapeOf(GetParam(), {2, 3}, {9, 11, 13});
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
}

TEST_P(AdaptiveForwardValidation, Row5LengthZeroWithOutputNotEqualToSelfIs161002) {
    Case c = valid();  // out keeps the (2,3,[2,]3,4) shape of outputSize ([2,]3,4), but outputSize is now empty
    c.lists["outputSize"] = {};
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut", "shape"}));
}

TEST_P(AdaptiveForwardValidation, Row5LeadingDimsOfOutputDifferFromSelfIs161002) {
    for (int dim : {0, 1}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        Case c = valid();
        c["outputOut"].shape[dim] += 1;
        c["indicesOut"].shape[dim] += 1;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row5OutputSpatialDiffersFromOutputSizeIs161002) {
    Case c = valid();
    c["outputOut"].shape.back() += 1;
    c["indicesOut"].shape.back() += 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut", "shape"}));
}

TEST_P(AdaptiveForwardValidation, Row5IndicesShapeDiffersFromOutputIs161002) {
    Case c = valid();
    c["indicesOut"].shape.back() -= 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indicesOut", "shape"}));
}

TEST_P(AdaptiveForwardValidation, Row5ShapeWinsOverOutputDtypeMismatch) {
    Case c = valid();
    c["outputOut"].type = ACL_FLOAT16;  // row 6
    c["indicesOut"].shape.back() -= 1;  // row 5
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indicesOut", "shape"}));
    EXPECT_TRUE(DoesNotMention(outcome, "dtype"));
}

TEST_P(AdaptiveForwardValidation, Row6OutputDtypeDiffersFromSelfIs161002) {
    for (aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        Case c = valid();
        c["outputOut"].type = type;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputOut", "dtype"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row6DtypeMismatchWinsOverOutputSizeZero) {
    Case c = valid();
    c["outputOut"].type = ACL_BF16;    // row 6
    c.lists["outputSize"].back() = 0;  // row 7 (out's shape follows so that row 5 holds)
    c["outputOut"].shape.back() = c["indicesOut"].shape.back() = 0;
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"outputOut", "dtype"}));
    EXPECT_TRUE(DoesNotMention(outcome, "outputSize"));
}

TEST_P(AdaptiveForwardValidation, Row7SelfDimOtherThanDimZeroIsZeroIs161002) {
    for (size_t dim = 1; dim < valid().tensors.at("self").shape.size(); ++dim) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        Case c = valid();
        c.lists["outputSize"] = {};  // out = self's shape, so only row 7 is broken
        c["self"].shape[dim] = 0;
        c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"self"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row7OutputSizeValueBelowOneIs161002) {
    for (int64_t value : {int64_t{0}, int64_t{-1}}) {
        SCOPED_TRACE(value);
        Case c = valid();
        c.lists["outputSize"] = {value};
        // out must match for row 5: a negative dim cannot be expressed, so use the one-value form with 0 only.
        if (value == 0) {
            c["outputOut"].shape = c["indicesOut"].shape = shapeOf(GetParam(), {2, 3}, {0, 0, 0});
        }
        const PhaseOneOutcome outcome = phaseOne(c);
        EXPECT_TRUE(IsRejected(outcome, kInvalid, {}));
        if (value == 0) EXPECT_TRUE(IsRejected(outcome, kInvalid, {"outputSize"}));
    }
}

TEST_P(AdaptiveForwardValidation, Row7EmptySelfDoesNotExcuseOutputSizeZero) {
    // Row 7 precedes row 8: self (0,3,...) with outputSize containing 0 is still 161002.
    Case c = valid();
    c["self"].shape[0] = 0;
    c.lists["outputSize"].back() = 0;
    c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
    for (size_t i = 0; i < c.lists["outputSize"].size(); ++i)
        c["outputOut"].shape[2 + i] = c["indicesOut"].shape[2 + i] = c.lists["outputSize"][i];
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"outputSize"}));
}

TEST_P(AdaptiveForwardValidation, Row7Int32IndicesOnAPlaneAbove2To31Is161002AndInt64IsAccepted) {
    // Phase 1 reads no data: a (1,1,2048,1024,1024) / (1,1,65536,32768) self of 2^31 elements is described by
    // a RawTensor over reserved address space (its storage dims claim the full size), which no other operand
    // shares.
    const std::vector<int64_t> selfShape =
        twoD() ? std::vector<int64_t>{1, 1, 65536, 32768} : std::vector<int64_t>{1, 1, 2048, 1024, 1024};
    const std::vector<int64_t> outShape =
        twoD() ? std::vector<int64_t>{1, 1, 1, 1} : std::vector<int64_t>{1, 1, 1, 1, 1};
    const std::vector<int64_t> sizes = twoD() ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{1, 1, 1};
    test_support::AddressReservation reservation((size_t{1} << 31) * sizeof(float));
    test_support::RawTensor self(selfShape, ACL_FLOAT, reservation.get(), selfShape);
    for (aclDataType index : {ACL_INT32, ACL_INT64}) {
        SCOPED_TRACE(std::to_string(index));
        TestTensor out(outShape, ACL_FLOAT), indices(outShape, index);
        IntArray outputSize(sizes);
        PhaseOneOutcome outcome;
        outcome.executor = test_support::garbageExecutor();
        outcome.status = twoD() ? aclnnAdaptiveMaxPool2dGetWorkspaceSize(self.get(), outputSize, out, indices,
                                                                         &outcome.workspaceSize, &outcome.executor)
                                : aclnnAdaptiveMaxPool3dGetWorkspaceSize(self.get(), outputSize, out, indices,
                                                                         &outcome.workspaceSize, &outcome.executor);
        outcome.message = aclGetRecentErrMsg();
        if (index == ACL_INT32) {
            EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indicesOut"}));
        } else {
            EXPECT_TRUE(IsAccepted(outcome));
            if (outcome.status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(outcome.executor);
        }
    }
}

TEST_P(AdaptiveForwardValidation, Row8EmptySelfIsSuccessWithWorkspaceZeroAndWritesNothing) {
    Case c = valid();
    c["self"].shape[0] = 0;  // N = 0 (3-D op 4-D form / 2-D op 3-D form: C = 0 is dim 0 as well)
    c["outputOut"].shape[0] = c["indicesOut"].shape[0] = 0;
    Invocation invocation(c);
    expectEmptyCallSucceeds(invocation);
    EXPECT_EQ(invocation.tensor("outputOut").bytesOutsideViewChanged(), 0);
    EXPECT_EQ(invocation.tensor("indicesOut").bytesOutsideViewChanged(), 0);
}

TEST_P(AdaptiveForwardValidation, Row8UnbatchedEmptyChannelIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });  // (C,[D,]H,W)
    c["self"].shape[0] = 0;
    c["outputOut"].shape[0] = c["indicesOut"].shape[0] = 0;
    Invocation invocation(c);
    ASSERT_TRUE(IsAccepted(invocation.phaseOne()));
    EXPECT_EQ(invocation.run(), ACLNN_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveForwardValidation, ::testing::Values(Op::Adaptive3d, Op::Adaptive2d),
                         opParamName);

// ================================================================================================ adaptive backward

class AdaptiveBackwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool twoD() const { return isTwoD(GetParam()); }
};

TEST_P(AdaptiveBackwardValidation, Row2GradOutputOrGradInputDtypeDiffersFromSelfIs161002) {
    for (const char *name : {"gradOutput", "gradInput"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c[name].type = ACL_BF16;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "dtype"}));
    }
}

TEST_P(AdaptiveBackwardValidation, Row2DtypeWinsOverRank) {
    Case c = valid();
    c["indices"].type = ACL_FLOAT;
    c["gradInput"].shape.insert(c["gradInput"].shape.begin(), 1);
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indices", "dtype"}));
    EXPECT_TRUE(DoesNotMention(outcome, "rank"));
}

TEST_P(AdaptiveBackwardValidation, Row3RanksDifferIs161002) {
    for (const char *name : {"gradOutput", "indices", "gradInput", "self"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c.all([](Spec &s) { s.shape[0] = 1; });
        c[name].shape.erase(c[name].shape.begin());
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"rank"}));
    }
}

TEST_P(AdaptiveBackwardValidation, Row3RankWinsOverShape) {
    Case c = valid();
    c["gradInput"].shape.insert(c["gradInput"].shape.begin(), 2);  // rank differs (and shape differs)
    c["indices"].shape.back() += 1;                                // shape differs
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"rank"}));
    EXPECT_TRUE(DoesNotMention(outcome, "indices"));
}

TEST_P(AdaptiveBackwardValidation, Row4IndicesShapeDiffersFromGradOutputIs161002) {
    Case c = valid();
    c["indices"].shape.back() += 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices", "shape"}));
}

TEST_P(AdaptiveBackwardValidation, Row4GradInputShapeDiffersFromSelfIs161002) {
    Case c = valid();
    c["gradInput"].shape.back() -= 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradInput", "shape"}));
}

TEST_P(AdaptiveBackwardValidation, Row4ShapeWinsOverFormat) {
    Case c = valid();
    c["indices"].shape.back() += 1;
    c["gradOutput"].format = ACL_FORMAT_NCHW;
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indices", "shape"}));
    EXPECT_TRUE(DoesNotMention(outcome, "format"));
}

TEST_P(AdaptiveBackwardValidation, Row5Int32IndicesOnAPlaneAbove2To31Is161002AndInt64IsAccepted) {
    // Phase 1 reads no data: huge self/gradInput descriptors over reserved address space (storage dims claim
    // the size), which the other operands do not share (self is never read, so gradInput may take its memory).
    const std::vector<int64_t> bigShape =
        twoD() ? std::vector<int64_t>{1, 1, 65536, 32768} : std::vector<int64_t>{1, 1, 2048, 1024, 1024};
    const std::vector<int64_t> smallShape =
        twoD() ? std::vector<int64_t>{1, 1, 1, 2} : std::vector<int64_t>{1, 1, 1, 1, 2};
    test_support::AddressReservation reservation((size_t{1} << 31) * sizeof(float));
    test_support::RawTensor self(bigShape, ACL_FLOAT, reservation.get(), bigShape),
        gradInput(bigShape, ACL_FLOAT, reservation.get(), bigShape);
    for (aclDataType index : {ACL_INT32, ACL_INT64}) {
        SCOPED_TRACE(std::to_string(index));
        TestTensor gradOutput(smallShape, ACL_FLOAT), indices(smallShape, index);
        PhaseOneOutcome outcome;
        outcome.executor = test_support::garbageExecutor();
        outcome.status =
            twoD() ? aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gradOutput, self.get(), indices, gradInput.get(),
                                                                    &outcome.workspaceSize, &outcome.executor)
                   : aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput, self.get(), indices, gradInput.get(),
                                                                    &outcome.workspaceSize, &outcome.executor);
        outcome.message = aclGetRecentErrMsg();
        if (index == ACL_INT32) {
            EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indices"}));
        } else {
            EXPECT_TRUE(IsAccepted(outcome));
            if (outcome.status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(outcome.executor);
        }
    }
}

TEST_P(AdaptiveBackwardValidation, Row6FormatOfAnyTensorDiffersIs161002) {
    // Unlike §4 (indices' format is free), §5 row 6 requires ALL FOUR formats identical.
    for (const char *name : {"gradOutput", "self", "indices", "gradInput"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c[name].format = ACL_FORMAT_NCHW;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"format"}));
    }
}

TEST_P(AdaptiveBackwardValidation, Row6AnyIdenticalPublicFormatIsAccepted) {
    // Formats are tags only for the backward (layout always channels-first).
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NHWC, ACL_FORMAT_NDHWC}) {
        SCOPED_TRACE(std::to_string(format));
        Case c = valid();
        c.all([format](Spec &s) { s.format = format; });
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
}

TEST_P(AdaptiveBackwardValidation, Row6FormatWinsOverBatchMismatch) {
    Case c = valid();
    c["indices"].format = ACL_FORMAT_NCHW;
    c["gradOutput"].shape[1] = c["indices"].shape[1] = 4;  // C differs from self's 3 (row 7)
    const PhaseOneOutcome outcome = phaseOne(c);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"format"}));
}

TEST_P(AdaptiveBackwardValidation, Row7GradOutputNOrCDiffersFromSelfIs161002) {
    for (int dim : {0, 1}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        Case c = valid();
        c["gradOutput"].shape[dim] += 1;
        c["indices"].shape[dim] += 1;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradOutput"}));
    }
}

TEST_P(AdaptiveBackwardValidation, Row7UnbatchedChannelDiffersIs161002) {
    Case c = valid();
    c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });
    c["gradOutput"].shape[0] = c["indices"].shape[0] = 4;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradOutput"}));
}

TEST_P(AdaptiveBackwardValidation, GradOutputSpatialSizeIsFreeIncludingLargerThanSelf) {
    for (const std::array<int64_t, 3> &spatial :
         {std::array<int64_t, 3>{1, 1, 1}, std::array<int64_t, 3>{9, 11, 13}, std::array<int64_t, 3>{4, 5, 6}}) {
        Case c = valid();
        c["gradOutput"].shape = c["indices"].shape = shapeOf(GetParam(), {2, 3}, spatial);
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
}

TEST_P(AdaptiveBackwardValidation, Row8EmptyInputsAreSuccessAndZeroFillGradInput) {
    // gradOutput/indices empty (a spatial 0) with a non-empty self: success, workspace 0, gradInput := +0.0.
    Case c = valid();
    c["gradOutput"].shape.back() = c["indices"].shape.back() = 0;
    expectZeroFilledGradInput(c);
}

TEST_P(AdaptiveBackwardValidation, Row8EmptySelfIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape[0] = 0; });
    Invocation invocation(c);
    expectEmptyCallSucceeds(invocation);
    EXPECT_EQ(invocation.tensor("gradInput").bytesOutsideViewChanged(), 0);
}

TEST_P(AdaptiveBackwardValidation, ZeroFilledGradInputHonoursItsStrides) {
    // Empty gradOutput with a strided gradInput: only the view is zeroed.
    Case c = valid();
    c["gradOutput"].shape[2] = c["indices"].shape[2] = 0;
    std::vector<int64_t> strides(c["gradInput"].shape.size());
    int64_t running = 2;
    for (size_t i = strides.size(); i-- > 0;) strides[i] = running, running *= c["gradInput"].shape[i] + 1;
    c["gradInput"].strides = strides;
    Invocation invocation(c);
    ASSERT_TRUE(IsAccepted(invocation.phaseOne()));
    ASSERT_EQ(invocation.run(), ACLNN_SUCCESS);
    TestTensor &gradInput = invocation.tensor("gradInput");
    for (int64_t i = 0; i < gradInput.elementCount(); ++i) ASSERT_EQ(gradInput.bitsAt(i), 0u) << "element " << i;
    EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveBackwardValidation,
                         ::testing::Values(Op::Adaptive3dBackward, Op::Adaptive2dBackward), opParamName);

// ================================================================================================ 2-D wrappers

class MaxPool2dForwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool mask() const { return GetParam() == Op::Mask2d; }
};

TEST_P(MaxPool2dForwardValidation, FormatsMustBeNdOrNchwAndEqual) {
    for (aclFormat format : {ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCL}) {
        SCOPED_TRACE(std::to_string(format));
        Case c = valid();
        c.all([format](Spec &s) { s.format = format; });
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"format"}));
    }
    for (const char *name : {"out", "indices"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c[name].format = ACL_FORMAT_NCHW;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "format"}));
    }
    Case c = valid();
    c.all([](Spec &s) { s.format = ACL_FORMAT_NCHW; });
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

struct ListBreak {
    const char *list;
    std::vector<int64_t> values;
};

std::vector<ListBreak> badLists() {
    return {
        {"kernelSize", {}},     {"kernelSize", {2, 2, 2}}, {"kernelSize", {0, 2}}, {"kernelSize", {2, -1}},
        {"stride", {2, 2, 2}},  {"stride", {0}},           {"stride", {2, 0}},     {"padding", {}},
        {"padding", {0, 0, 0}}, {"padding", {2}},          {"padding", {0, -1}},   {"padding", {1, 2}},
        {"dilation", {}},       {"dilation", {1, 1, 1}},   {"dilation", {0}},      {"dilation", {1, -2}},
    };
}

TEST_P(MaxPool2dForwardValidation, ListLengthsAndValuesViolatingTheRulesAre161002) {
    // kernelSize len 1/2 (>= 1), stride len 0/1/2 (>= 1), padding len 1/2 (0 <= p <= k/2), dilation len 1/2 (>= 1).
    for (const ListBreak &b : badLists()) {
        SCOPED_TRACE(std::string(b.list) + " = " + ::testing::PrintToString(b.values));
        Case c = valid();
        c.lists[b.list] = b.values;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {b.list}));
    }
}

TEST_P(MaxPool2dForwardValidation, AllowedListFormsAreAccepted) {
    // stride of length 0 = kernel; length-1 forms repeat; padding k/2 allowed.
    Case c = valid();
    c.lists["kernelSize"] = {2};
    c.lists["stride"] = {};
    c.lists["padding"] = {1};
    c.lists["dilation"] = {1};
    // k 2 s 2 p 1 on (6,8): Ho = (6+2-2)/2+1 = 4, Wo = (8+2-2)/2+1 = 5.
    c["out"].shape = {2, 3, 4, 5};
    c["indices"].shape = mask() ? maskShapeFor({2, 3}, 4, 4, 5) : std::vector<int64_t>{2, 3, 4, 5};
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
}

TEST_P(MaxPool2dForwardValidation, OutputShapeMismatchIs161002) {
    Case c = valid();
    c["out"].shape.back() += 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"out", "shape"}));
}

TEST_P(MaxPool2dForwardValidation, IndicesShapeMismatchIs161002) {
    // Indices: == out. Mask: exactly (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32).
    std::vector<std::vector<int64_t>> bad;
    if (mask())
        bad = {{2, 3, 4, 96}, {2, 3, 4, 32}, {2, 3, 1, 64}, {2, 3, 256}, {2, 3, 3, 4}};
    else
        bad = {{2, 3, 3, 5}, {2, 3, 4, 4}, {2, 4, 3, 4}};
    for (const auto &shape : bad) {
        SCOPED_TRACE(::testing::PrintToString(shape));
        Case c = valid();
        c["indices"].shape = shape;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices"}));
    }
}

TEST_P(MaxPool2dForwardValidation, ComputedOutputBelowOneIs161002) {
    Case c = valid();
    c.lists["kernelSize"] = {7, 9};  // W 8 < 9
    c.lists["padding"] = {0, 0};
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {}));
}

TEST_P(MaxPool2dForwardValidation, EmptySelfIsSuccessButNonEmptyOutputsAre161002) {
    {
        Case c = valid();
        c.all([](Spec &s) { s.shape[0] = 0; });
        Invocation invocation(c);
        const PhaseOneOutcome outcome = invocation.phaseOne();
        ASSERT_TRUE(IsAccepted(outcome));
        EXPECT_EQ(outcome.workspaceSize, 0u);
        EXPECT_EQ(invocation.run(), ACLNN_SUCCESS);
    }
    {
        Case c = valid();
        c["self"].shape[0] = 0;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"empty"}));
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, MaxPool2dForwardValidation, ::testing::Values(Op::Indices2d, Op::Mask2d), opParamName);

TEST(MaxPool2dWithMaskValidation, NonDenseMaskIs161002) {
    // The mask is addressed as raw bytes; a library rule (documented in the header): dense row-major view.
    Case c = validCase(Op::Mask2d);
    c["indices"].strides = {3 * 4 * 64 * 2, 4 * 64 * 2, 64 * 2, 2};
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices"}));
    Case b = validCase(Op::Mask2dBackward);
    b["indices"].strides = {3 * 4 * 64, 4 * 64, 1, 4};  // transposed last two axes
    EXPECT_TRUE(IsRejected(phaseOne(b), kInvalid, {"indices"}));
}

TEST(MaxPool2dWithMaskValidation, ThreeDimensionalInputDropsNFromTheMask) {
    Case c = validCase(Op::Mask2d);
    c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });  // mask (3,4,64)
    EXPECT_TRUE(IsAccepted(phaseOne(c)));
    c["indices"].shape = {1, 3, 4, 64};
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices"}));
}

class MaxPool2dBackwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool mask() const { return GetParam() == Op::Mask2dBackward; }
};

TEST_P(MaxPool2dBackwardValidation, GradOutputOrGradInputDtypeDiffersIs161002) {
    for (const char *name : {"gradOutput", "gradInput"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c[name].type = ACL_FLOAT16;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "dtype"}));
    }
}

TEST_P(MaxPool2dBackwardValidation, FormatRules) {
    // gradOutput / gradInput formats must equal self's; indices may carry any public format; no private format.
    for (const char *name : {"gradOutput", "gradInput"}) {
        SCOPED_TRACE(name);
        Case c = valid();
        c[name].format = ACL_FORMAT_NCHW;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {name, "format"}));
    }
    {
        Case c = valid();
        c["indices"].format = ACL_FORMAT_NC1HWC0;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices", "format"}));
    }
    {
        Case c = valid();
        c["indices"].format = ACL_FORMAT_NCHW;
        EXPECT_TRUE(IsAccepted(phaseOne(c)));
    }
}

TEST_P(MaxPool2dBackwardValidation, ListLengthsAndValuesViolatingTheRulesAre161002) {
    for (const ListBreak &b : badLists()) {
        SCOPED_TRACE(std::string(b.list) + " = " + ::testing::PrintToString(b.values));
        Case c = valid();
        c.lists[b.list] = b.values;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {b.list}));
    }
}

TEST_P(MaxPool2dBackwardValidation, IndicesShapeMismatchIs161002) {
    std::vector<std::vector<int64_t>> bad;
    if (mask())
        bad = {{2, 3, 4, 96}, {2, 3, 9, 64}, {2, 3, 3, 4}};
    else
        bad = {{2, 3, 3, 5}, {2, 3, 4, 4}};
    for (const auto &shape : bad) {
        SCOPED_TRACE(::testing::PrintToString(shape));
        Case c = valid();
        c["indices"].shape = shape;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"indices"}));
    }
}

TEST_P(MaxPool2dBackwardValidation, GradInputShapeDiffersFromSelfIs161002) {
    Case c = valid();
    c["gradInput"].shape.back() += 1;
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradInput", "shape"}));
}

TEST_P(MaxPool2dBackwardValidation, GradOutputNOrCDiffersFromSelfIs161002) {
    for (int dim : {0, 1}) {
        SCOPED_TRACE("dim " + std::to_string(dim));
        Case c = valid();
        c["gradOutput"].shape[dim] += 1;
        c["indices"].shape[dim] += 1;
        EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradOutput"}));
    }
}

TEST_P(MaxPool2dBackwardValidation, GradOutputSpatialShapeMismatchIs161002) {
    Case c = valid();
    c["gradOutput"].shape = {2, 3, 3, 5};
    c["indices"].shape = mask() ? maskShapeFor({2, 3}, 4, 3, 5) : std::vector<int64_t>{2, 3, 3, 5};
    EXPECT_TRUE(IsRejected(phaseOne(c), kInvalid, {"gradOutput"}));
}

TEST_P(MaxPool2dBackwardValidation, EmptyGradOutputIsSuccessAndZeroFillsGradInput) {
    Case c = valid();
    c["gradOutput"].shape[3] = 0;  // (2,3,3,0): empty; the spatial check comes after the empty shortcut (§4 #9/#10)
    c["indices"].shape = mask() ? maskShapeFor({2, 3}, 4, 3, 0) : std::vector<int64_t>{2, 3, 3, 0};
    expectZeroFilledGradInput(c);
}

TEST_P(MaxPool2dBackwardValidation, EmptySelfIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape[0] = 0; });
    Invocation invocation(c);
    expectEmptyCallSucceeds(invocation);
}

INSTANTIATE_TEST_SUITE_P(Ops, MaxPool2dBackwardValidation, ::testing::Values(Op::Indices2dBackward, Op::Mask2dBackward),
                         opParamName);

}  // namespace
