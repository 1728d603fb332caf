// Rules where CANN's op_api differs from what poolgrad first did (issue #14), each checked through the
// public C API: aclnnAdaptiveMaxPool2d takes DOUBLE and NHWC tensors and, with an empty self, any empty
// output; the 2-D max-pool operators (and their backwards) allow only the batch to be 0.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "support/test_tensor.h"

namespace {

using test_support::IntArray;
using test_support::TestTensor;

constexpr aclnnStatus kInvalid = 161002;

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
    // outputOut must keep NHWC's C last: an NCHW-shaped out is refused.
    TestTensor nchwShaped({1, 2, 1, 2}, ACL_FLOAT, ACL_FORMAT_NHWC), nchwIndices({1, 2, 1, 2}, ACL_INT64);
    EXPECT_EQ(runAdaptive2d(self, {1, 2}, nchwShaped, nchwIndices), kInvalid);
}

TEST(CannRules, AdaptiveMaxPool2dWithAnEmptySelfTakesAnyEmptyOutput) {
    // CANN compares no shapes but outputOut's and indicesOut's: with nothing to write, an empty out of another
    // shape succeeds; a non-empty one is a real mismatch and stays refused.
    TestTensor self({0, 3, 4, 4}, ACL_FLOAT);
    TestTensor emptyOut({0, 3, 3, 3}, ACL_FLOAT), emptyIndices({0, 3, 3, 3}, ACL_INT64);
    EXPECT_EQ(runAdaptive2d(self, {2, 2}, emptyOut, emptyIndices), 0) << aclGetRecentErrMsg();
    TestTensor fullOut({1, 3, 2, 2}, ACL_FLOAT), fullIndices({1, 3, 2, 2}, ACL_INT64);
    EXPECT_EQ(runAdaptive2d(self, {2, 2}, fullOut, fullIndices), kInvalid);
    TestTensor otherIndices({0, 3, 2, 2}, ACL_INT64);
    EXPECT_EQ(runAdaptive2d(self, {2, 2}, emptyOut, otherIndices), kInvalid);  // indicesOut must match outputOut
    EXPECT_EQ(runAdaptive2d(self, {0, 2}, emptyOut, emptyIndices), kInvalid);  // outputSize is still checked
}

struct TwoDimensionalCase {
    std::vector<int64_t> self, out;
    bool accepted;
};

class OnlyTheBatchMayBeEmpty : public testing::TestWithParam<TwoDimensionalCase> {};

TEST_P(OnlyTheBatchMayBeEmpty, WithIndicesMaskAndBackwards) {
    const TwoDimensionalCase c = GetParam();
    IntArray kernel({2, 2}), stride({2, 2}), padding({0, 0}), dilation({1, 1});
    std::vector<int64_t> maskShape(c.out.begin(), c.out.end() - 2);
    maskShape.push_back(4);
    maskShape.push_back(64);
    for (bool mask : {false, true}) {
        SCOPED_TRACE(mask ? "mask" : "indices");
        TestTensor self(c.self, ACL_FLOAT), out(c.out, ACL_FLOAT), gradInput(c.self, ACL_FLOAT);
        TestTensor indices = mask ? TestTensor(maskShape, ACL_INT8) : TestTensor(c.out, ACL_INT32);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        const aclnnStatus forward =
            mask ? aclnnMaxPool2dWithMaskGetWorkspaceSize(self, kernel, stride, padding, dilation, false, out, indices,
                                                          &workspaceSize, &executor)
                 : aclnnMaxPool2dWithIndicesGetWorkspaceSize(self, kernel, stride, padding, dilation, false, out,
                                                             indices, &workspaceSize, &executor);
        EXPECT_EQ(forward, c.accepted ? 0 : kInvalid) << aclGetRecentErrMsg();
        if (forward == 0) aclDestroyAclOpExecutor(executor);
        if (!c.accepted) EXPECT_NE(std::string(aclGetRecentErrMsg()).find("only the batch"), std::string::npos);
        const aclnnStatus backward =
            mask ? aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(out, self, indices, kernel, stride, padding, dilation,
                                                                  false, gradInput, &workspaceSize, &executor)
                 : aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(out, self, indices, kernel, stride, padding,
                                                                     dilation, false, gradInput, &workspaceSize,
                                                                     &executor);
        EXPECT_EQ(backward, c.accepted ? 0 : kInvalid) << aclGetRecentErrMsg();
        if (backward == 0) aclDestroyAclOpExecutor(executor);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, OnlyTheBatchMayBeEmpty,
                         testing::Values(TwoDimensionalCase{{0, 2, 4, 4}, {0, 2, 2, 2}, true},
                                         TwoDimensionalCase{{1, 0, 4, 4}, {1, 0, 2, 2}, false},
                                         TwoDimensionalCase{{0, 0, 4, 4}, {0, 0, 2, 2}, false},
                                         TwoDimensionalCase{{0, 4, 4}, {0, 2, 2}, false}));

}  // namespace
