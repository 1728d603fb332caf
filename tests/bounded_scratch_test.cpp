// The bound on scratch memory (docs/architecture.md, "Scratch memory"): no implementation allocates more
// than 8 MiB per thread beyond the tensors, whatever the plane size. The references used to keep a float32
// copy of a whole input plane per thread (about 8.6 GB for a 2^31-element plane); they now sum a plane in
// tiles. The planes here have 2^22 elements (16 MiB of float32 sums), so the old copies break the bound,
// and the results are checked exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "poolgrad/poolgrad.h"
#include "support/allocation_watch.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using test_support::IntArray;
using test_support::LargestAllocationWatch;
using test_support::TestTensor;

// poolgrad's documented bound on one thread's scratch.
constexpr size_t kScratchBoundBytes = size_t{8} << 20;
constexpr int64_t kSide = 2048;  // planes of kSide * kSide = 2^22 elements

TEST(BoundedScratch, StridedIndexScatterOfALargePlaneStaysWithinTheBound) {
    for (aclDataType type : {ACL_FLOAT16, ACL_FLOAT}) {
        SCOPED_TRACE(type == ACL_FLOAT ? "FLOAT" : "FLOAT16");
        // gradInput (1,1,1,2048,2048) with W stride 2: no dense or channels-last slab kernel takes it.
        TestTensor gradInput({1, 1, 1, kSide, kSide},
                             {2 * kSide * kSide, 2 * kSide * kSide, 2 * kSide * kSide, 2 * kSide, 2}, 0, type);
        // self is only a shape to the backward: a broadcast view of one element.
        TestTensor self({1, 1, 1, kSide, kSide}, {0, 0, 0, 0, 0}, 0, type);
        // Two outputs (adaptive 1x1x2): one index in the first half of the plane, one at its last element.
        TestTensor gradOutput({1, 1, 1, 1, 2}, type), indices({1, 1, 1, 1, 2}, ACL_INT64);
        const int64_t first = 1000 * kSide + 10, last = kSide * kSide - 1;
        gradOutput.setValues({2.0, 3.0});
        indices.setValues({static_cast<double>(first), static_cast<double>(last)});

        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput, self, indices, gradInput, &workspaceSize,
                                                                 &executor),
                  ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        size_t largest = 0;
        {
            LargestAllocationWatch watch;
            ASSERT_EQ(aclnnAdaptiveMaxPool3dBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
                << aclGetRecentErrMsg();
            largest = watch.largestBytes();
        }
        EXPECT_LE(largest, kScratchBoundBytes);
        const std::vector<double> values = gradInput.values();
        int64_t wrong = 0;
        for (int64_t i = 0; i < kSide * kSide; ++i) {
            const double expected = i == first ? 2.0 : i == last ? 3.0 : 0.0;
            if (values[static_cast<size_t>(i)] != expected && wrong++ < 5)
                ADD_FAILURE() << "gradInput element " << i << " is " << values[static_cast<size_t>(i)] << ", expected "
                              << expected;
        }
        EXPECT_EQ(wrong, 0);
        EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
    }
}

TEST(BoundedScratch, StridedMaxPoolV3GradOfALargePlaneStaysWithinTheBound) {
    // float16, kernel 2 stride 1 (overlapping windows: float32 sums), outGrad with W stride 2. Every input
    // is 0, so each output's gradient goes to the first element of its window, (oh, ow).
    const int64_t outSide = kSide - 1;
    TestTensor origInput({1, 1, kSide, kSide}, ACL_FLOAT16), origOutput({1, 1, outSide, outSide}, ACL_FLOAT16),
        grad({1, 1, outSide, outSide}, ACL_FLOAT16);
    TestTensor outGrad({1, 1, kSide, kSide}, {2 * kSide * kSide, 2 * kSide * kSide, 2 * kSide, 2}, 0, ACL_FLOAT16);
    origInput.setValues(std::vector<double>(static_cast<size_t>(kSide * kSide), 0.0));
    origOutput.setValues(std::vector<double>(static_cast<size_t>(outSide * outSide), 0.0));
    grad.setValues(std::vector<double>(static_cast<size_t>(outSide * outSide), 1.0));
    IntArray ksize({1, 1, 2, 2}), strides({1, 1, 1, 1});

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMaxPoolV3GradGetWorkspaceSize(origInput, origOutput, grad, ksize, strides, nullptr, nullptr, nullptr,
                                                 false, false, outGrad, &workspaceSize, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    size_t largest = 0;
    {
        LargestAllocationWatch watch;
        ASSERT_EQ(aclnnMaxPoolV3Grad(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        largest = watch.largestBytes();
    }
    EXPECT_LE(largest, kScratchBoundBytes);
    const std::vector<double> values = outGrad.values();
    int64_t wrong = 0;
    for (int64_t h = 0; h < kSide; ++h)
        for (int64_t w = 0; w < kSide; ++w) {
            const double expected = h < outSide && w < outSide ? 1.0 : 0.0;
            const double value = values[static_cast<size_t>(h * kSide + w)];
            if (value != expected && wrong++ < 5)
                ADD_FAILURE() << "outGrad (" << h << ", " << w << ") is " << value << ", expected " << expected;
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
}

}  // namespace
