// Rules where CANN's op_api differs from what poolgrad first did (issue #14), each checked through the
// public C API: aclnnAdaptiveMaxPool2d takes DOUBLE and NHWC tensors and, with an empty self, any empty
// output; the 2-D max-pool operators (and their backwards) allow only the batch to be 0. The phase-1 rules
// are rows of a validation table (support/validation_cases.h) over the adaptive and 2-D calls.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "support/adaptive_and_2d_call.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace adaptive_and_2d_test;
using test_support::accepted;
using test_support::invalid;

aclnnStatus runAdaptive2d(const aclTensor *self, const std::vector<int64_t> &size, aclTensor *out, aclTensor *indices) {
    IntArray outputSize(size);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    const aclnnStatus status =
        aclnnAdaptiveMaxPool2dGetWorkspaceSize(self, outputSize, out, indices, &workspaceSize, &executor);
    if (status != 0) return status;
    return aclnnAdaptiveMaxPool2d(nullptr, 0, executor, nullptr);
}

TEST(CannRules, AdaptiveMaxPool2dTakesDoubleComparedAtFullPrecision) {
    // (1,1,2,2) -> 1x1: the maximum is 1 + 2^-40, which float32 would round to 1 (a tie, first wins).
    const double above = 1.0 + std::ldexp(1.0, -40);
    TestTensor self({1, 1, 2, 2}, ACL_DOUBLE);
    const double values[] = {1.0, -3.0, above, 0.5};
    for (int i = 0; i < 4; ++i) self.setBits(i, std::bit_cast<uint64_t>(values[i]));
    TestTensor out({1, 1, 1, 1}, ACL_DOUBLE), indices({1, 1, 1, 1}, ACL_INT64);
    ASSERT_EQ(runAdaptive2d(self, {1, 1}, out, indices), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(out.bitsAt(0), std::bit_cast<uint64_t>(above));
    EXPECT_EQ(indices.at(0), 2);
}

TEST(CannRules, AdaptiveMaxPool2dTakesNhwc) {
    // self NHWC (N,H,W,C) = (1,2,3,2), channel 0 = 0..5 and channel 1 = 5..0 over the plane; outputSize
    // (1,2): windows columns [0,2) and [1,3) (adaptive), all rows. out and indices are (1,1,2,2) NHWC.
    TestTensor self({1, 2, 3, 2}, ACL_FLOAT, ACL_FORMAT_NHWC);
    for (int64_t p = 0; p < 6; ++p) {
        self.set(p * 2, static_cast<double>(p));
        self.set(p * 2 + 1, static_cast<double>(5 - p));
    }
    TestTensor out({1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NHWC), indices({1, 1, 2, 2}, ACL_INT64, ACL_FORMAT_NHWC);
    ASSERT_EQ(runAdaptive2d(self, {1, 2}, out, indices), 0) << aclGetRecentErrMsg();
    // (wo, c): (0,0) max of {0,1,3,4} = 4 at 4; (0,1) max of {5,4,2,1} = 5 at 0;
    //          (1,0) max of {1,2,4,5} = 5 at 5; (1,1) max of {4,3,1,0} = 4 at 1.
    const double expectedValues[] = {4, 5, 5, 4};
    const int64_t expectedIndices[] = {4, 0, 5, 1};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(out.at(i), expectedValues[i]) << i;
        EXPECT_EQ(indices.at(i), expectedIndices[i]) << i;
    }
}

// aclnnAdaptiveMaxPool2d with an empty self (0,3,4,4) and outputSize (2,2), outputOut and indicesOut `out`.
void emptyAdaptive2dSelf(Case &c, std::vector<int64_t> out) {
    c["self"].shape = {0, 3, 4, 4};
    c["outputOut"].shape = c["indicesOut"].shape = std::move(out);
    c.lists["outputSize"] = {2, 2};
}

TEST(CannRules, AdaptiveMaxPool2dWithAnEmptySelfTakesAnyEmptyOutput) {
    // CANN compares no shapes but outputOut's and indicesOut's: with nothing to write, an empty out of another
    // shape succeeds (and runs); the table below keeps a non-empty one refused.
    Case c = validCase(Op::Adaptive2d);
    emptyAdaptive2dSelf(c, {0, 3, 3, 3});
    Invocation call(c);
    test_support::expectAcceptedAndRuns(call);
}

// The 2-D max-pool operators' shapes: only the batch may be 0.
struct TwoDimensionalCase {
    const char *name;
    std::vector<int64_t> self, out;
    bool accepted;
};

std::vector<Row> cannRuleRows() {
    std::vector<Row> rows;
    // outputOut must keep NHWC's C last: an NCHW-shaped out is refused.
    rows.push_back(row(Op::Adaptive2d, "NhwcOutputMustKeepChannelsLast",
                       [](Case &c) {
                           c["self"] = {{1, 2, 3, 2}, ACL_FLOAT, ACL_FORMAT_NHWC};
                           c["outputOut"] = {{1, 2, 1, 2}, ACL_FLOAT, ACL_FORMAT_NHWC};
                           c["indicesOut"] = {{1, 2, 1, 2}, ACL_INT64};
                           c.lists["outputSize"] = {1, 2};
                       },
                       invalid, {"outputOut"}));
    rows.push_back(row(Op::Adaptive2d, "EmptySelfWithANonEmptyOutputIs161002",
                       [](Case &c) {
                           emptyAdaptive2dSelf(c, {1, 3, 2, 2});
                       },
                       invalid, {"outputOut"}));
    rows.push_back(row(Op::Adaptive2d, "EmptySelfIndicesOutMustMatchOutputOut",
                       [](Case &c) {
                           emptyAdaptive2dSelf(c, {0, 3, 3, 3});
                           c["indicesOut"].shape = {0, 3, 2, 2};
                       },
                       invalid, {"indicesOut"}));
    rows.push_back(row(Op::Adaptive2d, "EmptySelfOutputSizeIsStillChecked",
                       [](Case &c) {
                           emptyAdaptive2dSelf(c, {0, 3, 3, 3});
                           c.lists["outputSize"] = {0, 2};
                       },
                       invalid, {"outputSize"}));
    for (const TwoDimensionalCase &shapes : {TwoDimensionalCase{"N0", {0, 2, 4, 4}, {0, 2, 2, 2}, true},
                                             TwoDimensionalCase{"C0", {1, 0, 4, 4}, {1, 0, 2, 2}, false},
                                             TwoDimensionalCase{"N0C0", {0, 0, 4, 4}, {0, 0, 2, 2}, false},
                                             TwoDimensionalCase{"UnbatchedC0", {0, 4, 4}, {0, 2, 2}, false}})
        for (Op op : {Op::Indices2d, Op::Mask2d, Op::Indices2dBackward, Op::Mask2dBackward}) {
            std::vector<int64_t> indices = shapes.out;
            if (isMask(op)) {
                indices.resize(indices.size() - 2);
                indices.insert(indices.end(), {4, 64});
            }
            rows.push_back(row(
                op, std::string("OnlyTheBatchMayBeEmpty_") + shapes.name,
                [=](Case &c) {
                    const bool forward = c.tensors.count("out") != 0;
                    c[forward ? "out" : "gradOutput"].shape = shapes.out;
                    c["self"].shape = shapes.self;
                    if (!forward) c["gradInput"].shape = shapes.self;
                    c["indices"].shape = indices;
                },
                shapes.accepted ? accepted : invalid,
                shapes.accepted ? std::vector<std::string>{} : std::vector<std::string>{"only the batch"}));
        }
    return rows;
}

POOLGRAD_VALIDATION_TABLE(CannRuleRows, cannRuleRows());

}  // namespace
