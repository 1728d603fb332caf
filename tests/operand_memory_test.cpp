// Phase 1's rules about the memory operands reach (docs/decisions.md, "Operand memory"): exact storage
// bounds, outputs that overlap themselves or share memory with another operand, and absurd sizes whose
// products overflow int64. Absurd views are descriptors over a tiny buffer: phase 1 must refuse them before
// anything is read or written, so these tests allocate nothing large and run in the sanitizer build, where
// a wrapped product or a pointer formed before the checks is a failure of its own.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "poolgrad/poolgrad.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using test_support::DeviceBuffer;
using test_support::DoesNotMention;
using test_support::IntArray;
using test_support::IsAccepted;
using test_support::IsRejected;
using test_support::PhaseOneOutcome;
using test_support::RawTensor;
using test_support::TestTensor;

constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Runs one phase-1 call with garbage out-parameters and collects the outcome.
template <typename Call>
PhaseOneOutcome phaseOne(Call &&call) {
    PhaseOneOutcome outcome;
    outcome.executor = test_support::garbageExecutor();
    outcome.status = call(&outcome.workspaceSize, &outcome.executor);
    outcome.message = aclGetRecentErrMsg();
    return outcome;
}

void destroyIfAccepted(const PhaseOneOutcome &outcome) {
    if (outcome.status == ACLNN_SUCCESS && outcome.executor != nullptr) aclDestroyAclOpExecutor(outcome.executor);
}

PhaseOneOutcome maxPool3dForward(const aclTensor *self, const std::vector<int64_t> &kernel, aclTensor *out,
                                 aclTensor *indices) {
    IntArray kernelSize(kernel), stride(std::vector<int64_t>{}), padding({0}), dilation({1});
    return phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernelSize, stride, padding, dilation, false, out,
                                                        indices, workspaceSize, executor);
    });
}

PhaseOneOutcome maxPool3dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                                  const std::vector<int64_t> &kernel, aclTensor *gradInput) {
    IntArray kernelSize(kernel), stride(std::vector<int64_t>{}), padding({0}), dilation({1});
    return phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernelSize, stride, padding,
                                                                dilation, false, gradInput, workspaceSize, executor);
    });
}

PhaseOneOutcome adaptive3dForward(const aclTensor *self, const std::vector<int64_t> &sizes, aclTensor *out,
                                  aclTensor *indices) {
    IntArray outputSize(sizes);
    return phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnAdaptiveMaxPool3dGetWorkspaceSize(self, outputSize, out, indices, workspaceSize, executor);
    });
}

PhaseOneOutcome adaptive3dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                                   aclTensor *gradInput) {
    return phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput, self, indices, gradInput, workspaceSize,
                                                              executor);
    });
}

// A view over `data` with explicit strides and no storage dims (phase 1 then checks only the address
// space); nullptr when aclCreateTensor itself refuses the descriptor.
aclTensor *createView(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides, aclDataType type,
                      void *data, int64_t offset = 0) {
    return aclCreateTensor(shape.data(), shape.size(), type, strides.data(), offset, ACL_FORMAT_ND, nullptr, 0, data);
}

struct ViewOwner {
    aclTensor *tensor;
    explicit ViewOwner(aclTensor *created) : tensor(created) {}
    ~ViewOwner() {
        if (tensor) aclDestroyTensor(tensor);
    }
    ViewOwner(const ViewOwner &) = delete;
    ViewOwner &operator=(const ViewOwner &) = delete;
};

// Absurd shapes whose element count or extent overflows int64 are refused by aclCreateTensor itself: the
// descriptor layer then keeps them from phase 1, which is the defence this test checks in that case.
#define REQUIRE_DESCRIPTOR(view)                                                                              \
    if ((view).tensor == nullptr) {                                                                           \
        EXPECT_EQ(std::string(aclGetRecentErrMsg()).rfind("aclCreateTensor", 0), 0u) << aclGetRecentErrMsg(); \
        return;                                                                                               \
    }

// ---- 1. the storage-bounds check is exact ------------------------------------------------------------------

TEST(OperandMemory, StorageCheckDoesNotWrapForThreeTermsNear2To126) {
    // out (1,1,M,M,M) with strides (0,0,M,M,M), M = INT64_MAX: offset + sum of (dim-1)*stride is about
    // 3*2^126, which a 128-bit sum wraps to a negative number; the old check then found it inside an
    // 8-element storage and phase 2 wrote far outside it.
    DeviceBuffer buffer(64);
    const int64_t m = kInt64Max;
    const std::vector<int64_t> shape{1, 1, m, m, m}, storage{8};
    const std::vector<int64_t> broadcast{0, 0, 0, 0, 0}, wide{0, 0, m, m, m};
    ViewOwner self(aclCreateTensor(shape.data(), 5, ACL_FLOAT, broadcast.data(), 0, ACL_FORMAT_ND, storage.data(), 1,
                                   buffer.get()));
    ViewOwner out(
        aclCreateTensor(shape.data(), 5, ACL_FLOAT, wide.data(), 0, ACL_FORMAT_ND, storage.data(), 1, buffer.get()));
    ViewOwner indices(
        aclCreateTensor(shape.data(), 5, ACL_INT64, wide.data(), 0, ACL_FORMAT_ND, storage.data(), 1, buffer.get()));
    REQUIRE_DESCRIPTOR(self);
    REQUIRE_DESCRIPTOR(out);
    REQUIRE_DESCRIPTOR(indices);
    const PhaseOneOutcome outcome = maxPool3dForward(self.tensor, {1}, out.tensor, indices.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, ViewWhoseLastElementOverflowsInt64IsRefusedNamingIt) {
    // gradInput (1,1,2,2,2) with strides 2^62 per spatial axis: its last element, 3*2^62, is beyond int64.
    DeviceBuffer buffer(64);
    TestTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT), indices({1, 1, 1, 1, 1}, ACL_INT64),
        self({1, 1, 2, 2, 2}, ACL_FLOAT);
    const int64_t big = int64_t{1} << 62;
    ViewOwner gradInput(createView({1, 1, 2, 2, 2}, {0, 0, big, big, big}, ACL_FLOAT, buffer.get()));
    REQUIRE_DESCRIPTOR(gradInput);
    const PhaseOneOutcome outcome = maxPool3dBackward(gradOutput, self, indices, {2}, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "overflows"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, ViewPastTheEndOfTheAddressSpaceIsRefused) {
    // One element, but at an offset whose byte address wraps around: data + 2^62 * 4 bytes.
    DeviceBuffer buffer(64);
    TestTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT), indices({1, 1, 1, 1, 1}, ACL_INT64),
        self({1, 1, 1, 1, 1}, ACL_FLOAT);
    ViewOwner gradInput(createView({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, ACL_FLOAT, buffer.get(), int64_t{1} << 62));
    REQUIRE_DESCRIPTOR(gradInput);
    const PhaseOneOutcome outcome = maxPool3dBackward(gradOutput, self, indices, {1}, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "address space"}));
    destroyIfAccepted(outcome);
}

// ---- 4. gradInput sharing memory with gradOutput ------------------------------------------------------------

TEST(OperandMemory, GradInputSharingGradOutputsMemoryIsRefusedNotZeroed) {
    // The float32 in-place path zeroed gradInput before reading gradOutput from the same bytes: status 0 and
    // a gradient of zeros. Both views start at the same address here.
    TestTensor gradInput({1, 1, 2, 2, 2}, ACL_FLOAT), self({1, 1, 2, 2, 2}, ACL_FLOAT),
        indices({1, 1, 1, 1, 1}, ACL_INT64);
    indices.set(0, 7);
    const std::vector<int64_t> unit{1, 1, 1, 1, 1};
    ViewOwner shared(createView(unit, unit, ACL_FLOAT, gradInput.data()));  // gradInput's first element
    const PhaseOneOutcome outcome = maxPool3dBackward(shared.tensor, self, indices, {2}, gradInput);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "gradOutput", "share memory"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, AdaptiveGradInputOverlappingIndicesIsRefused) {
    // Partial overlap: indices' bytes lie in the middle of gradInput's.
    DeviceBuffer buffer(256);
    auto *bytes = static_cast<unsigned char *>(buffer.get());
    ViewOwner gradInput(createView({1, 1, 1, 4, 4}, {16, 16, 16, 4, 1}, ACL_FLOAT, bytes));
    ViewOwner indices(createView({1, 1, 1, 2, 2}, {4, 4, 4, 2, 1}, ACL_INT32, bytes + 16));
    TestTensor gradOutput({1, 1, 1, 2, 2}, ACL_FLOAT), self({1, 1, 1, 4, 4}, ACL_FLOAT);
    const PhaseOneOutcome outcome = adaptive3dBackward(gradOutput, self, indices.tensor, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "indices", "share memory"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, ForwardOutOverlappingItsIndicesOrSelfIsRefused) {
    DeviceBuffer buffer(1024);
    auto *bytes = static_cast<unsigned char *>(buffer.get());
    TestTensor self({1, 1, 2, 4, 4}, ACL_FLOAT);
    const std::vector<int64_t> outShape{1, 1, 1, 2, 2}, outStrides{4, 4, 4, 2, 1};
    ViewOwner out(createView(outShape, outStrides, ACL_FLOAT, bytes));
    ViewOwner indicesOverOut(createView(outShape, outStrides, ACL_INT32, bytes + 8));
    PhaseOneOutcome outcome = maxPool3dForward(self, {2}, out.tensor, indicesOverOut.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"out", "indices", "share memory"}));
    destroyIfAccepted(outcome);

    // out written over self (an in-place forward).
    ViewOwner outOverSelf(createView(outShape, outStrides, ACL_FLOAT, self.data()));
    ViewOwner indices(createView(outShape, outStrides, ACL_INT32, bytes + 512));
    outcome = maxPool3dForward(self, {2}, outOverSelf.tensor, indices.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"out", "self", "share memory"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, MaxPoolV3GradOutGradOverGradIsRefusedAndForwardYOverXToo) {
    TestTensor origInput({1, 1, 4, 4}, ACL_FLOAT), origOutput({1, 1, 2, 2}, ACL_FLOAT);
    void *origInputData = origInput.data();
    TestTensor grad({1, 1, 2, 2}, ACL_FLOAT);
    ViewOwner outGrad(createView({1, 1, 4, 4}, {16, 16, 4, 1}, ACL_FLOAT, origInputData));
    IntArray ksize({1, 1, 2, 2}), strides({1, 1, 2, 2});
    PhaseOneOutcome outcome = phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPoolV3GradGetWorkspaceSize(origInput, origOutput, grad, ksize, strides, nullptr, nullptr,
                                                  nullptr, false, false, outGrad.tensor, workspaceSize, executor);
    });
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"outGrad", "origInput", "share memory"}));
    destroyIfAccepted(outcome);

    ViewOwner y(createView({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT, origInputData));
    outcome = phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(origInput, ksize, strides, nullptr, nullptr, nullptr, false,
                                                       false, y.tensor, workspaceSize, executor);
    });
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"y", "x", "share memory"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, GradInputMayTakeSelfsMemoryWhichTheBackwardNeverReads) {
    // self only gives the backward its shape, so gradInput written over it is allowed, and correct.
    TestTensor self({1, 1, 2, 2, 2}, ACL_FLOAT), gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT),
        indices({1, 1, 1, 1, 1}, ACL_INT64);
    gradOutput.set(0, 3.0);
    indices.set(0, 5);
    ViewOwner gradInput(createView({1, 1, 2, 2, 2}, {8, 8, 4, 2, 1}, ACL_FLOAT, self.data()));
    const PhaseOneOutcome outcome = maxPool3dBackward(gradOutput, self, indices, {2}, gradInput.tensor);
    ASSERT_TRUE(IsAccepted(outcome));
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, outcome.executor, nullptr), ACLNN_SUCCESS);
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(self.at(i), i == 5 ? 3.0 : 0.0) << "element " << i;
}

// ---- 5. outputs that overlap themselves -------------------------------------------------------------------

TEST(OperandMemory, AdaptiveOutWhoseChannelAndWidthStridesAliasIsRefused) {
    // out (1,2,1,1,2) with C stride 1 and W stride 1: out[c=1,w=0] and out[c=0,w=1] are one element, which
    // two threads wrote in a race (a repeatable executor gave different bytes from run to run).
    TestTensor self({1, 2, 1, 2, 4}, ACL_FLOAT), indices({1, 2, 1, 1, 2}, ACL_INT64);
    DeviceBuffer buffer(64);
    ViewOwner out(createView({1, 2, 1, 1, 2}, {4, 1, 2, 2, 1}, ACL_FLOAT, buffer.get()));
    const PhaseOneOutcome outcome = adaptive3dForward(self, {1, 1, 2}, out.tensor, indices);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"outputOut", "overlaps itself"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, OutputWithStrideZeroOnAnAxisLongerThanOneIsRefused) {
    TestTensor self({1, 1, 2, 2, 8}, ACL_FLOAT), out({1, 1, 1, 1, 4}, ACL_FLOAT);
    DeviceBuffer buffer(64);
    ViewOwner indices(createView({1, 1, 1, 1, 4}, {1, 1, 1, 1, 0}, ACL_INT32, buffer.get()));
    const PhaseOneOutcome outcome = maxPool3dForward(self, {2}, out, indices.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indices", "overlaps itself"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, GradInputThatOverlapsItselfIsRefused) {
    TestTensor gradOutput({1, 1, 1, 2, 2}, ACL_FLOAT), self({1, 1, 1, 4, 4}, ACL_FLOAT),
        indices({1, 1, 1, 2, 2}, ACL_INT32);
    DeviceBuffer buffer(256);
    // H stride 2 < the 4 elements a W row spans: rows interleave.
    ViewOwner gradInput(createView({1, 1, 1, 4, 4}, {16, 16, 16, 2, 1}, ACL_FLOAT, buffer.get()));
    const PhaseOneOutcome outcome = adaptive3dBackward(gradOutput, self, indices, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "overlaps itself"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, AnInterleavingThatDoesNotOverlapIsStillRefusedAsDocumented) {
    // H stride 3, W stride 2 over (2,3): elements 0, 2, 4, 3, 5, 7 are distinct, but the W axis spans 4
    // elements and the H stride does not step past them; the cheap rule refuses it (docs/decisions.md).
    TestTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT), self({1, 1, 1, 2, 3}, ACL_FLOAT),
        indices({1, 1, 1, 1, 1}, ACL_INT32);
    DeviceBuffer buffer(64);
    ViewOwner gradInput(createView({1, 1, 1, 2, 3}, {8, 8, 8, 3, 2}, ACL_FLOAT, buffer.get()));
    const PhaseOneOutcome outcome = adaptive3dBackward(gradOutput, self, indices, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradInput", "overlaps itself"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, NonOverlappingPermutedAndSlicedOutputsAndBroadcastInputsAreAccepted) {
    // Outputs: channels-last (permuted), a sliced view with gaps, and stride 0 on axes of size 1; inputs
    // may be broadcast (stride 0 on a longer axis): only outputs must reach each element once.
    DeviceBuffer selfBuffer(64), outBuffer(4096), indicesBuffer(4096);
    ViewOwner self(createView({1, 3, 1, 4, 4}, {0, 0, 0, 0, 0}, ACL_FLOAT, selfBuffer.get()));
    auto *outBytes = static_cast<unsigned char *>(outBuffer.get());
    ViewOwner channelsLast(createView({1, 3, 1, 2, 2}, {0, 1, 0, 6, 3}, ACL_FLOAT, outBytes));
    ViewOwner sliced(createView({1, 3, 1, 2, 2}, {0, 40, 0, 10, 3}, ACL_INT64, indicesBuffer.get(), 5));
    const PhaseOneOutcome outcome = adaptive3dForward(self.tensor, {1, 2, 2}, channelsLast.tensor, sliced.tensor);
    ASSERT_TRUE(IsAccepted(outcome));
    ASSERT_EQ(aclnnAdaptiveMaxPool3d(nullptr, 0, outcome.executor, nullptr), ACLNN_SUCCESS);
}

// ---- 6. absurd sizes: every product checked before it is used ---------------------------------------------

TEST(OperandMemory, BackwardKernelVolumeOverflowIsNoUndefinedBehaviour) {
    // kernelSize [2^22, 2^22, 2^22]: a kernel volume of 2^66, computed (and wrapped) by the backward's
    // checks before anything rejected the call. Tiny tensors; the shape check refuses the call.
    TestTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT), self({1, 1, 2, 2, 2}, ACL_FLOAT),
        indices({1, 1, 1, 1, 1}, ACL_INT64), gradInput({1, 1, 2, 2, 2}, ACL_FLOAT);
    const int64_t k = int64_t{1} << 22;
    const PhaseOneOutcome outcome = maxPool3dBackward(gradOutput, self, indices, {k, k, k}, gradInput);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {}));
}

TEST(OperandMemory, MaskKernelVolumeOverflowIsRefusedNamingKernelSize) {
    TestTensor gradOutput({1, 1, 1, 1}, ACL_FLOAT), self({1, 1, 2, 2}, ACL_FLOAT), mask({1, 1, 2, 64}, ACL_INT8),
        gradInput({1, 1, 2, 2}, ACL_FLOAT);
    const int64_t k = int64_t{1} << 40;
    IntArray kernelSize({k, k}), stride(std::vector<int64_t>{}), padding({0}), dilation({1});
    const PhaseOneOutcome outcome = phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gradOutput, self, mask, kernelSize, stride, padding,
                                                              dilation, false, gradInput, workspaceSize, executor);
    });
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"kernelSize", "overflows"}));
}

TEST(OperandMemory, HugeOffsetIsRefusedBeforeAnyPointerIsFormed) {
    // self's offset times its element size overflows int64: the old code formed data + offset*4 while
    // describing self, before the storage check refused it.
    DeviceBuffer buffer(64);
    const std::vector<int64_t> shape{1, 1, 1, 1, 1}, storage{1};
    ViewOwner self(aclCreateTensor(shape.data(), 5, ACL_FLOAT, nullptr, kInt64Max / 2, ACL_FORMAT_ND, storage.data(), 1,
                                   buffer.get()));
    REQUIRE_DESCRIPTOR(self);
    TestTensor out(shape, ACL_FLOAT), indices(shape, ACL_INT64);
    const PhaseOneOutcome outcome = maxPool3dForward(self.tensor, {1}, out, indices);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"self"}));
}

TEST(OperandMemory, PlaneThatWrapsToZeroDoesNotPassTheInt32IndicesRule) {
    // D*H*W = 2^31 * 2^31 * 4 = 2^64 wrapped to 0, which passed "INT32 indices need D*H*W <= 2^31-1".
    DeviceBuffer buffer(64);
    const int64_t big = int64_t{1} << 31;
    ViewOwner self(createView({1, 1, big, big, 4}, {0, 0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner out(createView({1, 1, big, big, 4}, {0, 0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner indices(createView({1, 1, big, big, 4}, {0, 0, 0, 0, 0}, ACL_INT32, buffer.get()));
    REQUIRE_DESCRIPTOR(self);
    REQUIRE_DESCRIPTOR(out);
    REQUIRE_DESCRIPTOR(indices);
    const PhaseOneOutcome outcome = maxPool3dForward(self.tensor, {1}, out.tensor, indices.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"self", "D*H*W"}));
    destroyIfAccepted(outcome);
}

TEST(OperandMemory, BroadcastInputWhoseElementCountOverflowsIsRefusedNamingIt) {
    // gradOutput (2^32, 2^32, 1, 1, 1) broadcast from one element: batch*channels wraps to 0.
    DeviceBuffer buffer(64);
    const int64_t big = int64_t{1} << 32;
    const std::vector<int64_t> outputShape{big, big, 1, 1, 1}, inputShape{big, big, 1, 2, 2};
    const std::vector<int64_t> zeros(5, 0);
    ViewOwner gradOutput(createView(outputShape, zeros, ACL_FLOAT, buffer.get()));
    ViewOwner indices(createView(outputShape, zeros, ACL_INT64, buffer.get()));
    ViewOwner self(createView(inputShape, zeros, ACL_FLOAT, buffer.get()));
    ViewOwner gradInput(createView(inputShape, zeros, ACL_FLOAT, buffer.get()));
    REQUIRE_DESCRIPTOR(gradOutput);
    REQUIRE_DESCRIPTOR(indices);
    REQUIRE_DESCRIPTOR(self);
    REQUIRE_DESCRIPTOR(gradInput);
    const PhaseOneOutcome outcome =
        adaptive3dBackward(gradOutput.tensor, self.tensor, indices.tensor, gradInput.tensor);
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"gradOutput", "int64"}));
    destroyIfAccepted(outcome);
}

// ---- 8. messages of the 2-D operators ---------------------------------------------------------------------

TEST(OperandMemory, MaskOnAPlaneAbove2To31SaysMasksCannotAndSpeaksOfHW) {
    // (1,1,65536,32769): H*W > 2^31-1. A mask holds INT32 indices: "use INT64 indices" is impossible advice.
    DeviceBuffer buffer(64);
    const std::vector<int64_t> selfShape{1, 1, 65536, 32769}, outShape{1, 1, 65536, 16384};
    const int64_t maskRow = ((int64_t{65536} * 16384 + 15) / 16 + 1) * 32;
    const std::vector<int64_t> maskShape{1, 1, 2, maskRow}, maskStrides{2 * maskRow, 2 * maskRow, maskRow, 1};
    ViewOwner self(createView(selfShape, {0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner out(createView(outShape, {0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner mask(createView(maskShape, maskStrides, ACL_INT8, buffer.get()));
    IntArray kernelSize({1, 2}), stride(std::vector<int64_t>{}), padding({0}), dilation({1});
    const PhaseOneOutcome outcome = phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPool2dWithMaskGetWorkspaceSize(self.tensor, kernelSize, stride, padding, dilation, false,
                                                      out.tensor, mask.tensor, workspaceSize, executor);
    });
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"mask", "H*W", "2147483647"}));
    EXPECT_TRUE(DoesNotMention(outcome, "use INT64"));
    EXPECT_TRUE(DoesNotMention(outcome, "D*H*W"));
}

TEST(OperandMemory, TwoDimensionalIndicesOnAPlaneAbove2To31SpeakOfHW) {
    DeviceBuffer buffer(64);
    const std::vector<int64_t> selfShape{1, 1, 65536, 32769}, outShape{1, 1, 65536, 32769};
    ViewOwner self(createView(selfShape, {0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner out(createView(outShape, {0, 0, 0, 0}, ACL_FLOAT, buffer.get()));
    ViewOwner indices(createView(outShape, {0, 0, 0, 0}, ACL_INT32, buffer.get()));
    IntArray kernelSize({1}), stride(std::vector<int64_t>{}), padding({0}), dilation({1});
    const PhaseOneOutcome outcome = phaseOne([&](uint64_t *workspaceSize, aclOpExecutor **executor) {
        return aclnnMaxPool2dWithIndicesGetWorkspaceSize(self.tensor, kernelSize, stride, padding, dilation, false,
                                                         out.tensor, indices.tensor, workspaceSize, executor);
    });
    EXPECT_TRUE(IsRejected(outcome, kInvalid, {"indices", "H*W", "use INT64"}));
    EXPECT_TRUE(DoesNotMention(outcome, "D*H*W"));
}

// ---- found by the fuzzer: one-tap windows of a huge dilation --------------------------------------------------

TEST(OperandMemory, KernelOneWithDilationInt64MaxCopiesTheInputInEveryForwardImplementation) {
    // Valid: every window is one element. The forward kernels walked their taps one dilation past the
    // last one, and first + INT64_MAX overflowed int64 (UBSan) for every window but the first.
    constexpr int64_t huge = kInt64Max;
    std::vector<std::string> implementations{""};
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i)
        if (std::string(poolgradImplementationTask(i)) == "argmax-forward")
            implementations.emplace_back(poolgradImplementationName(i));
    for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16}) {
        int runs = 0;
        for (const std::string &implementation : implementations) {
            SCOPED_TRACE(implementation + (type == ACL_FLOAT ? " float32" : " float16"));
            ASSERT_EQ(poolgradForceImplementation(implementation.c_str()), 0);
            TestTensor self({1, 2, 3, 4, 4}, type), out({1, 2, 3, 4, 4}, type), indices({1, 2, 3, 4, 4}, ACL_INT64);
            for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, static_cast<double>((i * 7) % 23) - 11);
            out.poison();
            indices.poison();
            IntArray kernel({1}), stride({1}), padding({0}), dilation({huge});
            uint64_t workspaceSize = 0;
            aclOpExecutor *executor = nullptr;
            const aclnnStatus planned = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
                self, kernel, stride, padding, dilation, false, out, indices, &workspaceSize, &executor);
            if (planned == 561003) continue;  // a forced implementation that declines this layout
            ASSERT_EQ(planned, 0) << aclGetRecentErrMsg();
            ++runs;
            ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), 0) << aclGetRecentErrMsg();
            for (int64_t i = 0; i < self.elementCount(); ++i) {
                ASSERT_EQ(out.bitsAt(i), self.bitsAt(i)) << "element " << i;
                ASSERT_EQ(indices.at(i), static_cast<double>(i % 48)) << "element " << i;
            }
        }
        EXPECT_GE(runs, 3);  // the dispatched choice, the dense kernel and the reference
    }
    ASSERT_EQ(poolgradForceImplementation(nullptr), 0);
}

}  // namespace
