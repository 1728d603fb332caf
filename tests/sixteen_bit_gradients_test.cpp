// float16 gradients on the fast index-scatter kernel are widened a row at a time with SIMD (F16C where the
// CPU has it): every one of the 65,536 float16 patterns goes through the dense and the reference kernels
// and is checked bit for bit against values worked out here from IEEE rules. (16-bit streaming stores are
// checked in channels_last_kernels_test.cpp, StreamingStores.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "poolgrad/poolgrad.h"
#include "support/max_pool3d_run.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"

namespace {

using test_support::TestTensor;

// The sum of one float16 gradient, starting from +0 as SPEC's summation does, rounded back to float16:
// the value itself, except that -0 becomes +0 and a NaN comes out quiet (IEEE addition quiets a
// signalling NaN and keeps its payload).
uint16_t sumOfOne(uint16_t bits) {
    if (bits == 0x8000u) return 0;
    const bool nan = (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
    return nan ? static_cast<uint16_t>(bits | 0x200u) : bits;
}

TEST(SixteenBitGradients, EveryFloat16GradientPassesThroughExactly) {
    pool_diff::LibraryControlsGuard reset;
    // 1x1x1 windows at stride 1: output i is the whole window of input i, so gradInput = +0 + gradOutput.
    const std::vector<int64_t> shape{1, 2, 1, 128, 256};
    TestTensor self(shape, ACL_FLOAT16), gradOutput(shape, ACL_FLOAT16), indices(shape, ACL_INT32);
    const int64_t plane = 128 * 256;
    for (int64_t i = 0; i < gradOutput.elementCount(); ++i) {
        gradOutput.setBits(i, static_cast<uint64_t>(i));  // every pattern 0x0000..0xffff once
        indices.setBits(i, static_cast<uint64_t>(i % plane));
    }
    test_support::MaxPool3dLists lists;
    lists.kernel = {1};
    lists.stride = {1};
    lists.padding = {0};
    for (const char *name : {"cpu_index_scatter_backward_dense", "cpu_index_scatter_backward_reference"}) {
        for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
            ASSERT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor gradInput(shape, ACL_FLOAT16);
            gradInput.poison();
            const auto status =
                test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            int64_t mismatches = 0;
            for (int64_t i = 0; i < gradInput.elementCount(); ++i) {
                const uint16_t expected = sumOfOne(static_cast<uint16_t>(i));
                if (gradInput.bitsAt(i) != expected && ++mismatches <= 5)
                    ADD_FAILURE() << "float16 0x" << std::hex << i << " gave 0x" << gradInput.bitsAt(i)
                                  << ", expected 0x" << expected;
            }
            EXPECT_EQ(mismatches, 0);
        }
    }
}

}  // namespace
