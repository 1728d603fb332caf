// One phase-1 call of any of the eight adaptive and 2-D max-pool operators (aclnnAdaptiveMaxPool3d/2d and
// their backwards, aclnnMaxPool2dWithIndices/WithMask and theirs), described by argument name, the valid
// call of each, and the rows of a validation table built on them (support/validation_cases.h): shared by
// the adaptive and 2-D validation table and the CANN-rule tests.
#pragma once

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
#include "support/phase_one_check.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace adaptive_and_2d_test {

using test_support::IntArray;
using test_support::PhaseOneOutcome;
using test_support::TestTensor;

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

inline const char *opName(Op op) {
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
    std::map<std::string, aclTensor *> replacements;  // passed instead of the tensor of that name

    // What phase 1 must leave alone: the outputs of the forwards (a 2-D forward's indices or mask among
    // them), gradInput of the backwards.
    std::vector<const TestTensor *> outputs() const {
        std::vector<const TestTensor *> outputs;
        const bool forward = tensors_.count("gradOutput") == 0;
        for (const auto &[name, tensor] : tensors_)
            if (name == "gradInput" || (forward && name != "self")) outputs.push_back(tensor.get());
        return outputs;
    }

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
        if (replacements.count(name)) return replacements.at(name);
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

// ---- the valid call of each operator

inline bool isTwoD(Op op) { return op != Op::Adaptive3d && op != Op::Adaptive3dBackward; }

// Leading dims followed by (d,h,w), or (h,w) for the 2-D operators.
inline std::vector<int64_t> shapeOf(Op op, std::vector<int64_t> leading, std::array<int64_t, 3> dhw) {
    if (!isTwoD(op)) leading.push_back(dhw[0]);
    leading.push_back(dhw[1]);
    leading.push_back(dhw[2]);
    return leading;
}

// Adaptive forward: self (2,3,[4,]5,6), outputSize ([2,]3,4) -> out/indices (2,3,[2,]3,4).
inline Case adaptiveForward(Op op) {
    Case c;
    c.op = op;
    c.tensors["self"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    c.tensors["outputOut"] = {shapeOf(op, {2, 3}, {2, 3, 4}), ACL_FLOAT};
    c.tensors["indicesOut"] = {shapeOf(op, {2, 3}, {2, 3, 4}), ACL_INT64};
    c.lists["outputSize"] = isTwoD(op) ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{2, 3, 4};
    return c;
}

// Adaptive backward: gradOutput/indices (2,3,[2,]3,7) (spatial sizes are free), self/gradInput (2,3,[4,]5,6).
inline Case adaptiveBackward(Op op) {
    Case c;
    c.op = op;
    c.tensors["gradOutput"] = {shapeOf(op, {2, 3}, {2, 3, 7}), ACL_FLOAT};
    c.tensors["self"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    c.tensors["indices"] = {shapeOf(op, {2, 3}, {2, 3, 7}), ACL_INT32};
    c.tensors["gradInput"] = {shapeOf(op, {2, 3}, {4, 5, 6}), ACL_FLOAT};
    return c;
}

// 2-D wrappers: self (2,3,6,8), k 2 s 2 p 0 d 1 -> out (2,3,3,4); mask (2,3,4,(ceil(12/16)+1)*32 = 64).
inline std::vector<int64_t> maskShapeFor(std::vector<int64_t> leading, int64_t kernelElements, int64_t Ho, int64_t Wo) {
    leading.push_back(kernelElements);
    leading.push_back(((Ho * Wo + 15) / 16 + 1) * 32);
    return leading;
}

inline void addPoolLists(Case &c) {
    c.lists["kernelSize"] = {2, 2};
    c.lists["stride"] = {2, 2};
    c.lists["padding"] = {0, 0};
    c.lists["dilation"] = {1, 1};
}

inline Case pool2dForward(Op op) {
    Case c;
    c.op = op;
    c.tensors["self"] = {{2, 3, 6, 8}, ACL_FLOAT};
    c.tensors["out"] = {{2, 3, 3, 4}, ACL_FLOAT};
    c.tensors["indices"] =
        op == Op::Mask2d ? Spec{maskShapeFor({2, 3}, 4, 3, 4), ACL_INT8} : Spec{{2, 3, 3, 4}, ACL_INT32};
    addPoolLists(c);
    return c;
}

inline Case pool2dBackward(Op op) {
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

inline Case validCase(Op op) {
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

inline std::string opParamName(const ::testing::TestParamInfo<Op> &info) { return opName(info.param); }

inline std::vector<std::string> pointerNames(Op op) {
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

inline bool isMask(Op op) { return op == Op::Mask2d || op == Op::Mask2dBackward; }

// ---- rows of the operators' validation table

using Row = test_support::ValidationRow<Case, Invocation>;
using Rows = std::vector<Row>;

// A row of `op`'s table: the valid call of `op` with `breakIt` applied, named "<operator>_<name>".
inline Row row(Op op, const std::string &name, std::function<void(Case &)> breakIt, aclnnStatus code,
               std::vector<std::string> mentions = {}, std::vector<std::string> notMentioned = {}) {
    return {std::string(opName(op)) + "_" + name,
            [op, breakIt](Case &c) {
                c = validCase(op);
                breakIt(c);
            },
            code, std::move(mentions), std::move(notMentioned)};
}
inline Row acceptedRow(Op op, const std::string &name, std::function<void(Case &)> adjust) {
    return row(op, name, std::move(adjust), test_support::accepted);
}

}  // namespace adaptive_and_2d_test
