// Phase 1 refuses a null pointer argument with 161001 and a message naming it; where several are null,
// the first in CANN's order is named — for most operators the arguments in prototype order and then
// workspaceSize and executor, for aclnnAdaptiveMaxPool3d/2d and aclnnMaxPoolV3 workspaceSize and executor
// first (aclnnMaxPoolV3 then x, out, ksize, strides). Optional arguments (pads, ceilMode) are never named.
// Each case nulls the arguments from one position of the order onwards and expects that position named.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_pool_v3.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "support/test_tensor.h"

namespace {

using test_support::IntArray;
using test_support::TestTensor;

constexpr aclnnStatus kNullptr = 161001;

// The pointers a call passes: live ones, or nullptr for the names in `nulls`.
class Arguments {
public:
    explicit Arguments(std::set<std::string> nulls) : nulls_(std::move(nulls)) {}
    ~Arguments() {
        if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
        aclDestroyScalar(scalar_);
    }

    aclTensor *tensor(const char *name) const { return given(name) ? tensor_.get() : nullptr; }
    aclIntArray *list(const char *name) const { return given(name) ? static_cast<aclIntArray *>(list_) : nullptr; }
    uint64_t *workspaceSize() { return given("workspaceSize") ? &workspaceSize_ : nullptr; }
    aclOpExecutor **executor() { return given("executor") ? &executor_ : nullptr; }
    aclScalar *scalar() const { return scalar_; }

private:
    bool given(const char *name) const { return nulls_.count(name) == 0; }

    std::set<std::string> nulls_;
    TestTensor tensor_{{1, 1, 2, 2}, ACL_FLOAT};
    IntArray list_{{1}};
    bool ceilMode_ = false;
    aclScalar *scalar_ = aclCreateScalar(&ceilMode_, ACL_BOOL);
    uint64_t workspaceSize_ = 0;
    aclOpExecutor *executor_ = nullptr;
};

struct NullOrderCase {
    const char *op;
    std::vector<const char *> order;  // every required pointer, in the order phase 1 checks them
    std::function<aclnnStatus(Arguments &)> call;
};

std::string recentMessage() {
    const char *message = aclGetRecentErrMsg();
    return message == nullptr ? "" : message;
}

std::vector<NullOrderCase> cases() {
    const std::vector<const char *> withIndices{"self", "kernelSize", "stride",        "padding", "dilation",
                                                "out",  "indices",    "workspaceSize", "executor"};
    const std::vector<const char *> withIndicesBackward{"gradOutput",    "self",    "indices",  "kernelSize",
                                                        "stride",        "padding", "dilation", "gradInput",
                                                        "workspaceSize", "executor"};
    const std::vector<const char *> adaptive{"workspaceSize", "executor",  "self",
                                             "outputSize",    "outputOut", "indicesOut"};
    const std::vector<const char *> adaptiveBackward{"gradOutput", "self",          "indices",
                                                     "gradInput",  "workspaceSize", "executor"};
    return {
        {"aclnnMaxPool3dWithArgmax", withIndices,
         [](Arguments &a) {
             return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
                 a.tensor("self"), a.list("kernelSize"), a.list("stride"), a.list("padding"), a.list("dilation"), false,
                 a.tensor("out"), a.tensor("indices"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool2dWithIndices", withIndices,
         [](Arguments &a) {
             return aclnnMaxPool2dWithIndicesGetWorkspaceSize(
                 a.tensor("self"), a.list("kernelSize"), a.list("stride"), a.list("padding"), a.list("dilation"), false,
                 a.tensor("out"), a.tensor("indices"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool2dWithMask", withIndices,
         [](Arguments &a) {
             return aclnnMaxPool2dWithMaskGetWorkspaceSize(
                 a.tensor("self"), a.list("kernelSize"), a.list("stride"), a.list("padding"), a.list("dilation"), false,
                 a.tensor("out"), a.tensor("indices"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool3dWithArgmaxBackward", withIndicesBackward,
         [](Arguments &a) {
             return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                 a.tensor("gradOutput"), a.tensor("self"), a.tensor("indices"), a.list("kernelSize"), a.list("stride"),
                 a.list("padding"), a.list("dilation"), false, a.tensor("gradInput"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool2dWithIndicesBackward", withIndicesBackward,
         [](Arguments &a) {
             return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                 a.tensor("gradOutput"), a.tensor("self"), a.tensor("indices"), a.list("kernelSize"), a.list("stride"),
                 a.list("padding"), a.list("dilation"), false, a.tensor("gradInput"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool2dWithMaskBackward", withIndicesBackward,
         [](Arguments &a) {
             return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
                 a.tensor("gradOutput"), a.tensor("self"), a.tensor("indices"), a.list("kernelSize"), a.list("stride"),
                 a.list("padding"), a.list("dilation"), false, a.tensor("gradInput"), a.workspaceSize(), a.executor());
         }},
        {"aclnnAdaptiveMaxPool3d", adaptive,
         [](Arguments &a) {
             return aclnnAdaptiveMaxPool3dGetWorkspaceSize(a.tensor("self"), a.list("outputSize"),
                                                           a.tensor("outputOut"), a.tensor("indicesOut"),
                                                           a.workspaceSize(), a.executor());
         }},
        {"aclnnAdaptiveMaxPool2d", adaptive,
         [](Arguments &a) {
             return aclnnAdaptiveMaxPool2dGetWorkspaceSize(a.tensor("self"), a.list("outputSize"),
                                                           a.tensor("outputOut"), a.tensor("indicesOut"),
                                                           a.workspaceSize(), a.executor());
         }},
        {"aclnnAdaptiveMaxPool3dBackward", adaptiveBackward,
         [](Arguments &a) {
             return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(a.tensor("gradOutput"), a.tensor("self"),
                                                                   a.tensor("indices"), a.tensor("gradInput"),
                                                                   a.workspaceSize(), a.executor());
         }},
        {"aclnnAdaptiveMaxPool2dBackward", adaptiveBackward,
         [](Arguments &a) {
             return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(a.tensor("gradOutput"), a.tensor("self"),
                                                                   a.tensor("indices"), a.tensor("gradInput"),
                                                                   a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPool",
         {"self", "kernelShape", "strides", "pads", "dilations", "out", "workspaceSize", "executor"},
         [](Arguments &a) {
             return aclnnMaxPoolGetWorkspaceSize(a.tensor("self"), a.list("kernelShape"), a.list("strides"), 0,
                                                 a.list("pads"), a.list("dilations"), 0, a.tensor("out"),
                                                 a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPoolV3",
         {"workspaceSize", "executor", "x", "out", "ksize", "strides"},
         [](Arguments &a) {
             return aclnnMaxPoolV3GetWorkspaceSize(a.tensor("x"), a.list("ksize"), a.list("strides"), nullptr, nullptr,
                                                   a.tensor("out"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPoolV3Grad",
         {"origInput", "origOutput", "grad", "ksize", "strides", "outGrad", "workspaceSize", "executor"},
         [](Arguments &a) {
             return aclnnMaxPoolV3GradGetWorkspaceSize(
                 a.tensor("origInput"), a.tensor("origOutput"), a.tensor("grad"), a.list("ksize"), a.list("strides"),
                 nullptr, nullptr, nullptr, false, false, a.tensor("outGrad"), a.workspaceSize(), a.executor());
         }},
        {"aclnnMaxPoolV3WithAttrs",
         {"x", "ksize", "strides", "y", "workspaceSize", "executor"},
         [](Arguments &a) {
             return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(a.tensor("x"), a.list("ksize"), a.list("strides"), nullptr,
                                                            nullptr, nullptr, false, false, a.tensor("y"),
                                                            a.workspaceSize(), a.executor());
         }},
    };
}

TEST(NullCheckOrder, FirstNullInCannOrderIsNamed) {
    for (const NullOrderCase &c : cases()) {
        for (size_t first = 0; first < c.order.size(); ++first) {
            Arguments arguments(std::set<std::string>(c.order.begin() + first, c.order.end()));
            EXPECT_EQ(c.call(arguments), kNullptr) << c.op << " with " << c.order[first] << " onwards null";
            const std::string expected = std::string(c.op) + ": " + c.order[first] + " is null";
            EXPECT_EQ(recentMessage(), expected);
        }
    }
}

// The optional arguments left null (pads, ceilMode, paddingMode, dataFormat) and every required one given:
// phase 1 goes past the null check (the tiny operands then fail some later rule, or pass).
TEST(NullCheckOrder, OptionalArgumentsMayBeNull) {
    for (const NullOrderCase &c : cases()) {
        Arguments arguments({});
        c.call(arguments);
        EXPECT_EQ(recentMessage().find(" is null"), std::string::npos) << c.op << ": " << recentMessage();
    }
}

}  // namespace
