// 16-bit gradients on the fast index-scatter kernels: float16 gradOutput rows are widened with SIMD
// (F16C where the CPU has it), and 16-bit gradInputs over 4 MiB are written with streaming stores that
// peel to a 16-byte boundary. Both are checked bit for bit: the widening on every one of the 65,536 float16
// patterns against values worked out here from IEEE rules, the streaming stores against the reference
// implementation with a gradInput one element past aligned storage.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "poolgrad/poolgrad.h"
#include "support/max_pool3d_run.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"

namespace {

using test_support::TestTensor;

int64_t pick(std::mt19937 &rng, int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

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

std::vector<int64_t> denseStrides(const std::vector<int64_t> &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

TEST(SixteenBitGradients, LargeMisalignedGradInputMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    std::mt19937 rng(46);
    // gradInput 4.5 MiB in 16 bits: streamed, starting 2 bytes past an aligned address.
    const std::vector<int64_t> inShape{1, 8, 8, 192, 193}, outShape{1, 8, 4, 96, 96};
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(type == ACL_FLOAT16 ? "float16" : "bfloat16");
        TestTensor self(inShape, type), gradOutput(outShape, type), indices(outShape, ACL_INT32);
        ASSERT_GT(self.elementCount() * 2, int64_t{4} << 20);
        std::vector<double> gradients(static_cast<size_t>(gradOutput.elementCount()));
        for (double &value : gradients) value = static_cast<double>(pick(rng, -64, 64)) / 8.0;  // exact in 16 bits
        gradOutput.setValues(gradients);
        std::vector<double> chosen(static_cast<size_t>(indices.elementCount()));
        for (int64_t i = 0; i < indices.elementCount(); ++i) {
            const int64_t ow = i % 96, oh = i / 96 % 96, od = i / (96 * 96) % 4;
            chosen[static_cast<size_t>(i)] = static_cast<double>(
                ((2 * od + pick(rng, 0, 1)) * 192 + 2 * oh + pick(rng, 0, 1)) * 193 + 2 * ow + pick(rng, 0, 1));
        }
        indices.setValues(chosen);
        test_support::MaxPool3dLists lists;
        lists.kernel = {2};
        lists.stride = {2};
        lists.padding = {0};
        std::vector<uint64_t> expected;
        for (const char *name : {"cpu_index_scatter_backward_reference", "cpu_index_scatter_backward_dense"}) {
            SCOPED_TRACE(name);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor gradInput(inShape, denseStrides(inShape), 1, type);
            gradInput.poison();
            const auto status =
                test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
            if (expected.empty()) {
                expected = pool_diff::snapshot(gradInput);
                int64_t nonZero = 0;
                for (uint64_t bits : expected) nonZero += (bits & 0x7fffu) != 0;
                EXPECT_GT(nonZero, gradOutput.elementCount() / 2);  // the gradients arrived
            } else {
                EXPECT_EQ(pool_diff::snapshot(gradInput), expected);
            }
        }
    }
}

}  // namespace
