// Re-pointing tensors at new memory: aclSetInputTensorAddr / aclSetOutputTensorAddr on an executor, and
// aclSetRawTensorAddr / aclGetRawTensorAddr on a descriptor. A repeatable executor run on new memory must
// give, bit for bit, what a fresh phase 1 on that memory gives, write nothing at the old addresses, and
// refuse (nothing written) addresses that break the operator's memory rules.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "support/test_tensor.h"
#include "support/two_phase_run.h"

namespace {

using test_support::IntArray;
using test_support::PhaseTwoFunction;
using test_support::TestTensor;

std::string recentMessage() { return aclGetRecentErrMsg(); }

// One operator call's tensors in the operator's parameter order: its inputs, then its outputs.
struct Operands {
    std::vector<TestTensor> inputs, outputs;
};

void fillRandom(TestTensor &tensor, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> value(-40, 40);  // ties included, exact in bfloat16
    std::vector<double> values(static_cast<size_t>(tensor.elementCount()));
    for (double &v : values) v = value(random) / 8.0;
    tensor.setValues(values);
}

aclnnStatus runOnce(const std::function<aclnnStatus(uint64_t *, aclOpExecutor **)> &phaseOne,
                    PhaseTwoFunction phaseTwo) {
    const test_support::TwoPhaseStatus status = test_support::runTwoPhase(phaseOne, phaseTwo);
    return status.phaseOne != ACLNN_SUCCESS ? status.phaseOne : status.phaseTwo;
}

using Handles = std::vector<aclTensor *>;

Handles handlesOf(const std::vector<TestTensor> &tensors) {
    Handles handles;
    for (const TestTensor &tensor : tensors) handles.push_back(tensor.get());
    return handles;
}

// An operator: fresh operands for a seed (inputs random and valid: a backward's indices come from its
// forward), its phase 1 on them and its phase 2.
struct OperatorCase {
    const char *name;
    std::function<Operands(uint32_t seed)> make;
    std::function<aclnnStatus(const Handles &inputs, const Handles &outputs, uint64_t *, aclOpExecutor **)> phaseOne;
    PhaseTwoFunction phaseTwo;

    aclnnStatus phaseOneOn(const Operands &operands, uint64_t *workspaceSize, aclOpExecutor **executor) const {
        return phaseOne(handlesOf(operands.inputs), handlesOf(operands.outputs), workspaceSize, executor);
    }
};

std::vector<OperatorCase> operatorCases() {
    // Attribute arrays shared by every case for the whole test program.
    static const IntArray k3d({2, 2, 2}), s3d({2, 2, 2}), p3d({0, 0, 0}), d3d({1, 1, 1});
    static const IntArray k2d({3, 3}), s2d({2, 2}), p2d({1, 1}), d2d({1, 1});
    static const IntArray k2m({2, 2}), s2m({2, 2}), p2m({0, 0});
    static const IntArray adaptiveSize({3, 2});
    static const IntArray v3k({1, 3, 3, 1}), v3s({1, 2, 2, 1}), v3p({1, 1, 1, 1});
    std::vector<OperatorCase> cases;
    cases.push_back({"MaxPool3dWithArgmax",
                     [](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 4, 6, 6}, ACL_FLOAT);
                         fillRandom(o.inputs[0], seed);
                         o.outputs.emplace_back(std::vector<int64_t>{2, 3, 2, 3, 3}, ACL_FLOAT);
                         o.outputs.emplace_back(std::vector<int64_t>{2, 3, 2, 3, 3}, ACL_INT32);
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(in[0], k3d, s3d, p3d, d3d, false, out[0],
                                                                         out[1], ws, ex);
                     },
                     aclnnMaxPool3dWithArgmax});
    cases.push_back({"MaxPool3dWithArgmaxBackward",
                     [&](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 2, 3, 3}, ACL_FLOAT);  // gradOutput
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 4, 6, 6}, ACL_FLOAT);  // self
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 2, 3, 3}, ACL_INT64);  // indices
                         o.outputs.emplace_back(std::vector<int64_t>{2, 3, 4, 6, 6}, ACL_FLOAT);
                         fillRandom(o.inputs[0], seed);
                         fillRandom(o.inputs[1], seed + 1000);
                         TestTensor out({2, 3, 2, 3, 3}, ACL_FLOAT);
                         EXPECT_EQ(runOnce(
                                       [&](uint64_t *ws, aclOpExecutor **ex) {
                                           return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
                                               o.inputs[1], k3d, s3d, p3d, d3d, false, out, o.inputs[2], ws, ex);
                                       },
                                       aclnnMaxPool3dWithArgmax),
                                   ACLNN_SUCCESS)
                             << recentMessage();
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(in[0], in[1], in[2], k3d, s3d, p3d,
                                                                                 d3d, false, out[0], ws, ex);
                     },
                     aclnnMaxPool3dWithArgmaxBackward});
    // 3x3 stride 2 padding 1: the stride-2 gather, whose plan depends on the operands' alignment.
    cases.push_back({"MaxPool2dWithIndicesBackward",
                     [&](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 16, 6, 32}, ACL_FLOAT);   // gradOutput
                         o.inputs.emplace_back(std::vector<int64_t>{2, 16, 12, 64}, ACL_FLOAT);  // self
                         o.inputs.emplace_back(std::vector<int64_t>{2, 16, 6, 32}, ACL_INT32);   // indices
                         o.outputs.emplace_back(std::vector<int64_t>{2, 16, 12, 64}, ACL_FLOAT);
                         fillRandom(o.inputs[0], seed);
                         fillRandom(o.inputs[1], seed + 1000);
                         TestTensor out({2, 16, 6, 32}, ACL_FLOAT);
                         EXPECT_EQ(runOnce(
                                       [&](uint64_t *ws, aclOpExecutor **ex) {
                                           return aclnnMaxPool2dWithIndicesGetWorkspaceSize(
                                               o.inputs[1], k2d, s2d, p2d, d2d, false, out, o.inputs[2], ws, ex);
                                       },
                                       aclnnMaxPool2dWithIndices),
                                   ACLNN_SUCCESS)
                             << recentMessage();
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(in[0], in[1], in[2], k2d, s2d, p2d,
                                                                                  d2d, false, out[0], ws, ex);
                     },
                     aclnnMaxPool2dWithIndicesBackward});
    // The mask's int8 operand (its offset counts bytes).
    cases.push_back({"MaxPool2dWithMaskBackward",
                     [&](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 4, 4}, ACL_FLOAT);  // gradOutput
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 8, 8}, ACL_FLOAT);  // self
                         o.inputs.emplace_back(std::vector<int64_t>{2, 3, 4, 64}, ACL_INT8);  // mask
                         o.outputs.emplace_back(std::vector<int64_t>{2, 3, 8, 8}, ACL_FLOAT);
                         fillRandom(o.inputs[0], seed);
                         fillRandom(o.inputs[1], seed + 1000);
                         TestTensor out({2, 3, 4, 4}, ACL_FLOAT);
                         EXPECT_EQ(runOnce(
                                       [&](uint64_t *ws, aclOpExecutor **ex) {
                                           return aclnnMaxPool2dWithMaskGetWorkspaceSize(
                                               o.inputs[1], k2m, s2m, p2m, d2d, false, out, o.inputs[2], ws, ex);
                                       },
                                       aclnnMaxPool2dWithMask),
                                   ACLNN_SUCCESS)
                             << recentMessage();
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(in[0], in[1], in[2], k2m, s2m, p2m, d2d,
                                                                               false, out[0], ws, ex);
                     },
                     aclnnMaxPool2dWithMaskBackward});
    cases.push_back({"AdaptiveMaxPool2d",
                     [](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 4, 7, 5}, ACL_BF16);
                         fillRandom(o.inputs[0], seed);
                         o.outputs.emplace_back(std::vector<int64_t>{2, 4, 3, 2}, ACL_BF16);
                         o.outputs.emplace_back(std::vector<int64_t>{2, 4, 3, 2}, ACL_INT64);
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnAdaptiveMaxPool2dGetWorkspaceSize(in[0], adaptiveSize, out[0], out[1], ws, ex);
                     },
                     aclnnAdaptiveMaxPool2d});
    cases.push_back({"AdaptiveMaxPool2dBackward",
                     [&](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 4, 3, 2}, ACL_BF16);   // gradOutput
                         o.inputs.emplace_back(std::vector<int64_t>{2, 4, 7, 5}, ACL_BF16);   // self
                         o.inputs.emplace_back(std::vector<int64_t>{2, 4, 3, 2}, ACL_INT64);  // indices
                         o.outputs.emplace_back(std::vector<int64_t>{2, 4, 7, 5}, ACL_BF16);
                         fillRandom(o.inputs[0], seed);
                         fillRandom(o.inputs[1], seed + 1000);
                         TestTensor out({2, 4, 3, 2}, ACL_BF16);
                         EXPECT_EQ(runOnce(
                                       [&](uint64_t *ws, aclOpExecutor **ex) {
                                           return aclnnAdaptiveMaxPool2dGetWorkspaceSize(o.inputs[1], adaptiveSize, out,
                                                                                         o.inputs[2], ws, ex);
                                       },
                                       aclnnAdaptiveMaxPool2d),
                                   ACLNN_SUCCESS)
                             << recentMessage();
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(in[0], in[1], in[2], out[0], ws, ex);
                     },
                     aclnnAdaptiveMaxPool2dBackward});
    cases.push_back({"MaxPoolV3WithAttrs",
                     [](uint32_t seed) {
                         Operands o;
                         o.inputs.emplace_back(std::vector<int64_t>{2, 9, 9, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);
                         fillRandom(o.inputs[0], seed);
                         o.outputs.emplace_back(std::vector<int64_t>{2, 5, 5, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);
                         return o;
                     },
                     [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(in[0], v3k, v3s, "CALCULATED", v3p, "NHWC",
                                                                        false, false, out[0], ws, ex);
                     },
                     aclnnMaxPoolV3WithAttrs});
    cases.push_back(
        {"MaxPoolV3Grad",
         [&](uint32_t seed) {
             Operands o;
             o.inputs.emplace_back(std::vector<int64_t>{2, 9, 9, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);  // origInput
             o.inputs.emplace_back(std::vector<int64_t>{2, 5, 5, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);  // origOutput
             o.inputs.emplace_back(std::vector<int64_t>{2, 5, 5, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);  // grad
             o.outputs.emplace_back(std::vector<int64_t>{2, 9, 9, 5}, ACL_FLOAT, ACL_FORMAT_NHWC);
             fillRandom(o.inputs[0], seed + 1000);
             fillRandom(o.inputs[2], seed);
             EXPECT_EQ(runOnce(
                           [&](uint64_t *ws, aclOpExecutor **ex) {
                               return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(
                                   o.inputs[0], v3k, v3s, "CALCULATED", v3p, "NHWC", false, false, o.inputs[1], ws, ex);
                           },
                           aclnnMaxPoolV3WithAttrs),
                       ACLNN_SUCCESS)
                 << recentMessage();
             return o;
         },
         [&](const Handles &in, const Handles &out, uint64_t *ws, aclOpExecutor **ex) {
             return aclnnMaxPoolV3GradGetWorkspaceSize(in[0], in[1], in[2], v3k, v3s, "CALCULATED", v3p, "NHWC", false,
                                                       false, out[0], ws, ex);
         },
         aclnnMaxPoolV3Grad});
    return cases;
}

aclOpExecutor *repeatableExecutor(const OperatorCase &op, Operands &operands) {
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(op.phaseOneOn(operands, &workspaceSize, &executor), ACLNN_SUCCESS) << recentMessage();
    EXPECT_EQ(workspaceSize, 0u);
    if (executor != nullptr) EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    return executor;
}

// Points every input and output of `executor` (made on `from`) at the memory of `to`.
void repoint(aclOpExecutor *executor, const Operands &from, const Operands &to) {
    for (size_t i = 0; i < from.inputs.size(); ++i)
        ASSERT_EQ(aclSetInputTensorAddr(executor, i, from.inputs[i], to.inputs[i].data()), ACLNN_SUCCESS)
            << "input " << i << ": " << recentMessage();
    for (size_t i = 0; i < from.outputs.size(); ++i)
        ASSERT_EQ(aclSetOutputTensorAddr(executor, i, from.outputs[i], to.outputs[i].data()), ACLNN_SUCCESS)
            << "output " << i << ": " << recentMessage();
}

bool allPoisoned(const TestTensor &tensor) {
    const size_t bytes = test_support::dataTypeBytes(tensor.type());
    const uint64_t poison = bytes == 1 ? 0xA5u : bytes == 2 ? 0xA5A5u : bytes == 4 ? 0xA5A5A5A5u : 0xA5A5A5A5A5A5A5A5u;
    for (int64_t i = 0; i < tensor.elementCount(); ++i)
        if (tensor.bitsAt(i) != poison) return false;
    return true;
}

void expectSameBits(const TestTensor &actual, const TestTensor &expected, const std::string &what) {
    ASSERT_EQ(actual.elementCount(), expected.elementCount());
    int64_t differing = 0, first = -1;
    for (int64_t i = 0; i < actual.elementCount(); ++i)
        if (actual.bitsAt(i) != expected.bitsAt(i) && differing++ == 0) first = i;
    EXPECT_EQ(differing, 0) << what << ": " << differing << " elements differ, the first at " << first;
}

class EveryOperator : public ::testing::TestWithParam<size_t> {};

TEST_P(EveryOperator, RunsOnNewMemoryAsAFreshPhaseOneDoesAndLeavesTheOldMemoryAlone) {
    const std::vector<OperatorCase> cases = operatorCases();
    const OperatorCase &op = cases[GetParam()];
    Operands first = op.make(1);
    aclOpExecutor *executor = repeatableExecutor(op, first);
    ASSERT_NE(executor, nullptr);
    ASSERT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_SUCCESS) << recentMessage();
    for (uint32_t seed = 2; seed < 5; ++seed) {
        SCOPED_TRACE(std::string(op.name) + ", seed " + std::to_string(seed));
        Operands moved = op.make(seed), expected = op.make(seed);
        for (TestTensor &output : moved.outputs) output.poison();
        for (TestTensor &output : first.outputs) output.poison();
        repoint(executor, first, moved);
        ASSERT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_SUCCESS) << recentMessage();
        ASSERT_EQ(
            runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
            ACLNN_SUCCESS)
            << recentMessage();
        for (size_t i = 0; i < moved.outputs.size(); ++i) {
            expectSameBits(moved.outputs[i], expected.outputs[i], "output " + std::to_string(i));
            EXPECT_TRUE(allPoisoned(first.outputs[i])) << "output " << i << " written at its old address";
        }
        // The executor's tensors record the new addresses too (CANN's rule); the next round starts from them.
        for (size_t i = 0; i < moved.inputs.size(); ++i) {
            void *recorded = nullptr;
            ASSERT_EQ(aclGetRawTensorAddr(first.inputs[i], &recorded), ACLNN_SUCCESS);
            EXPECT_EQ(recorded, moved.inputs[i].data());
        }
        // Back to `first`'s memory for the next round: the handles are first's, the memory is theirs again.
        repoint(executor, first, first);
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(TensorAddress, EveryOperator, ::testing::Range<size_t>(0, 8),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                             return std::string(operatorCases()[info.param].name);
                         });

// Descriptors like an operand's with null data, as CANN's sample for aclSetInputTensorAddr creates them.
struct NullDataTwins {
    Handles inputs, outputs;
    explicit NullDataTwins(const Operands &operands) {
        for (const TestTensor &tensor : operands.inputs) inputs.push_back(twinOf(tensor));
        for (const TestTensor &tensor : operands.outputs) outputs.push_back(twinOf(tensor));
    }
    ~NullDataTwins() {
        for (aclTensor *tensor : inputs) aclDestroyTensor(tensor);
        for (aclTensor *tensor : outputs) aclDestroyTensor(tensor);
    }
    static aclTensor *twinOf(const TestTensor &tensor) {
        int64_t *dims = nullptr, *strides = nullptr, *storage = nullptr, offset = 0;
        uint64_t rank = 0, strideCount = 0, storageRank = 0;
        aclFormat format = ACL_FORMAT_ND;
        EXPECT_EQ(aclGetViewShape(tensor, &dims, &rank), ACLNN_SUCCESS);
        EXPECT_EQ(aclGetViewStrides(tensor, &strides, &strideCount), ACLNN_SUCCESS);
        EXPECT_EQ(aclGetStorageShape(tensor, &storage, &storageRank), ACLNN_SUCCESS);
        EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
        EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
        aclTensor *twin =
            aclCreateTensor(dims, rank, tensor.type(), strides, offset, format, storage, storageRank, nullptr);
        delete[] dims;
        delete[] strides;
        delete[] storage;
        EXPECT_NE(twin, nullptr);
        return twin;
    }
};

// CANN's sample flow: phase 1 on tensors with null data, the addresses set, then the run. A run before the
// addresses are set is refused (161001) and writes nothing.
TEST_P(EveryOperator, NullDataAtPhaseOneWaitsForTheAddressesAsInCannsSample) {
    const std::vector<OperatorCase> cases = operatorCases();
    const OperatorCase &op = cases[GetParam()];
    Operands real = op.make(2), expected = op.make(2);
    const NullDataTwins twins(real);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(op.phaseOne(twins.inputs, twins.outputs, &workspaceSize, &executor), ACLNN_SUCCESS) << recentMessage();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    for (TestTensor &output : real.outputs) output.poison();
    EXPECT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("data pointer is null"), std::string::npos) << recentMessage();
    for (size_t i = 0; i < real.inputs.size(); ++i)
        ASSERT_EQ(aclSetInputTensorAddr(executor, i, twins.inputs[i], real.inputs[i].data()), ACLNN_SUCCESS);
    for (size_t i = 0; i < real.outputs.size(); ++i) {
        EXPECT_TRUE(allPoisoned(real.outputs[i])) << "output " << i << " written by the refused run";
        ASSERT_EQ(aclSetOutputTensorAddr(executor, i, twins.outputs[i], real.outputs[i].data()), ACLNN_SUCCESS);
    }
    ASSERT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_SUCCESS) << recentMessage();
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    for (size_t i = 0; i < real.outputs.size(); ++i)
        expectSameBits(real.outputs[i], expected.outputs[i], "output " + std::to_string(i));
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// A single-use executor made on null data and run without addresses is refused and released.
TEST(TensorAddress, ASingleUseExecutorRunWithoutItsAddressesIsRefusedAndReleased) {
    const OperatorCase op = operatorCases()[1];
    Operands real = op.make(1);
    const NullDataTwins twins(real);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(op.phaseOne(twins.inputs, twins.outputs, &workspaceSize, &executor), ACLNN_SUCCESS);
    EXPECT_EQ(op.phaseTwo(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("gradOutput has 108 elements but its data pointer is null"), std::string::npos)
        << recentMessage();
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_NULLPTR) << "released by the refused run";
}

// A mask carries INT32 indices: moved to an address that is not 4-byte aligned, it is refused at the run
// (its own element size, one byte, would let it pass the generic rule).
TEST(TensorAddress, AMaskMovedOffItsIndexAlignmentIsRefused) {
    const OperatorCase op = operatorCases()[3];
    Operands first = op.make(1);
    aclOpExecutor *executor = repeatableExecutor(op, first);
    ASSERT_NE(executor, nullptr);
    first.outputs[0].poison();
    auto *shifted = static_cast<unsigned char *>(first.inputs[2].data()) + 1;
    ASSERT_EQ(aclSetInputTensorAddr(executor, 2, first.inputs[2], shifted), ACLNN_SUCCESS);
    EXPECT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("holds int32 elements, so its first must be 4-byte aligned"), std::string::npos)
        << recentMessage();
    EXPECT_TRUE(allPoisoned(first.outputs[0]));
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// The stride-2 gather's backward on operands moved by one float (no longer 64-byte aligned): the problem
// is planned again for the new addresses and computes what a fresh call computes there.
TEST(TensorAddress, OperandsMovedOffTheirAlignmentArePlannedAgain) {
    const OperatorCase op = operatorCases()[2];
    Operands first = op.make(1), source = op.make(7), expected = op.make(7);
    aclOpExecutor *executor = repeatableExecutor(op, first);
    ASSERT_NE(executor, nullptr);
    // Copies of source's storage, each one float past a 64-byte boundary.
    std::vector<void *> buffers;
    const auto shiftedCopy = [&](const TestTensor &tensor) {
        const size_t bytes = static_cast<size_t>(tensor.storageElements()) * test_support::dataTypeBytes(tensor.type());
        void *buffer = nullptr;
        EXPECT_EQ(aclrtMalloc(&buffer, bytes + 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        buffers.push_back(buffer);
        auto *shifted = static_cast<unsigned char *>(buffer) + 4;
        std::memcpy(shifted, tensor.data(), bytes);
        return static_cast<void *>(shifted);
    };
    for (size_t i = 0; i < first.inputs.size(); ++i)
        ASSERT_EQ(aclSetInputTensorAddr(executor, i, first.inputs[i], shiftedCopy(source.inputs[i])), ACLNN_SUCCESS);
    source.outputs[0].poison();
    void *gradInput = shiftedCopy(source.outputs[0]);
    ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, first.outputs[0], gradInput), ACLNN_SUCCESS);
    ASSERT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, executor), ACLNN_SUCCESS) << recentMessage();
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    const TestTensor &want = expected.outputs[0];
    int64_t differing = 0;
    for (int64_t i = 0; i < want.elementCount(); ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, static_cast<unsigned char *>(gradInput) + 4 * i, 4);
        differing += bits != want.bitsAt(i);
    }
    EXPECT_EQ(differing, 0);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    for (void *buffer : buffers) aclrtFree(buffer);
}

struct BackwardOnNewMemory : ::testing::Test {
    std::vector<OperatorCase> cases = operatorCases();
    const OperatorCase &op = cases[1];  // MaxPool3dWithArgmaxBackward: inputs gradOutput, self, indices
    Operands first = op.make(1);
    aclOpExecutor *executor = nullptr;

    void SetUp() override {
        executor = repeatableExecutor(op, first);
        ASSERT_NE(executor, nullptr);
    }
    void TearDown() override {
        if (executor != nullptr) EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    }
    aclnnStatus run() { return test_support::runPhaseTwo(op.phaseTwo, 0, executor); }
};

TEST_F(BackwardOnNewMemory, AnOutputMovedOntoAnInputIsRefusedAtTheRunAndNothingIsWritten) {
    std::vector<double> before = first.inputs[0].values();
    ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, first.outputs[0], first.inputs[1].data()), ACLNN_SUCCESS);
    std::vector<double> selfBefore = first.inputs[1].values();
    // gradInput now lies on self, which a backward reads only the shape of: allowed, as in phase 1.
    EXPECT_EQ(run(), ACLNN_SUCCESS) << recentMessage();
    first.inputs[1].setValues(selfBefore);
    // On gradOutput, which it reads: refused, and gradOutput is untouched.
    ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, first.outputs[0], first.inputs[0].data()), ACLNN_SUCCESS);
    EXPECT_EQ(run(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("gradInput and gradOutput share memory"), std::string::npos) << recentMessage();
    EXPECT_EQ(first.inputs[0].values(), before);
    // The executor refuses every run until the address is fixed, then runs again.
    EXPECT_EQ(run(), ACLNN_ERR_PARAM_INVALID);
    first.outputs[0].poison();
    ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, first.outputs[0], first.outputs[0].data()), ACLNN_SUCCESS);
    EXPECT_EQ(run(), ACLNN_SUCCESS) << recentMessage();
    EXPECT_FALSE(allPoisoned(first.outputs[0]));
}

TEST_F(BackwardOnNewMemory, NullAndMisalignedAddressesAreRefusedAtTheRun) {
    first.outputs[0].poison();
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.inputs[0], nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(run(), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("gradOutput has 108 elements but its data pointer is null"), std::string::npos)
        << recentMessage();
    auto *misaligned = static_cast<unsigned char *>(first.inputs[2].data()) + 2;
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.inputs[0], first.inputs[0].data()), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetInputTensorAddr(executor, 2, first.inputs[2], misaligned), ACLNN_SUCCESS);
    EXPECT_EQ(run(), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("indices data address"), std::string::npos) << recentMessage();
    EXPECT_TRUE(allPoisoned(first.outputs[0]));
}

TEST_F(BackwardOnNewMemory, IndexTensorAndExecutorAreChecked) {
    void *address = first.inputs[0].data();
    EXPECT_EQ(aclSetInputTensorAddr(executor, 3, first.inputs[0], address), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("index 3 is out of range: aclnnMaxPool3dWithArgmaxBackward has 3 tensor inputs "
                                   "(gradOutput, self, indices)"),
              std::string::npos)
        << recentMessage();
    EXPECT_EQ(aclSetOutputTensorAddr(executor, 1, first.outputs[0], address), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("has 1 tensor output (gradInput)"), std::string::npos) << recentMessage();
    EXPECT_EQ(aclSetInputTensorAddr(executor, 1, first.inputs[0], address), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("tensor is not the aclTensor passed to aclnnMaxPool3dWithArgmaxBackward as input "
                                   "1 (self) in phase 1"),
              std::string::npos)
        << recentMessage();
    EXPECT_EQ(aclSetInputTensorAddr(nullptr, 0, first.inputs[0], address), ACLNN_ERR_INNER_NULLPTR);
    EXPECT_EQ(aclSetOutputTensorAddr(executor, 0, nullptr, address), ACLNN_ERR_INNER_NULLPTR);
    auto *forged = reinterpret_cast<aclOpExecutor *>(uintptr_t{0xDEADBEF0});
    EXPECT_EQ(aclSetInputTensorAddr(forged, 0, first.inputs[0], address), ACLNN_ERR_PARAM_NULLPTR);
    // None of the refused calls changed anything: the executor still runs on its memory.
    first.outputs[0].poison();
    EXPECT_EQ(run(), ACLNN_SUCCESS) << recentMessage();
    EXPECT_FALSE(allPoisoned(first.outputs[0]));
}

TEST_F(BackwardOnNewMemory, ADestroyedExecutorIsNotObeyed) {
    ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    const aclOpExecutor *destroyed = executor;
    executor = nullptr;
    EXPECT_EQ(aclSetInputTensorAddr(const_cast<aclOpExecutor *>(destroyed), 0, first.inputs[0], nullptr),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("destroyed"), std::string::npos) << recentMessage();
}

// The executor keeps its own record of the tensors: one destroyed after phase 1 can still be re-pointed
// through its (never reused) handle value.
TEST_F(BackwardOnNewMemory, ATensorDestroyedAfterPhaseOneCanStillBeRepointed) {
    Operands moved = op.make(3), expected = op.make(3);
    TestTensor &gradOutput = first.inputs[0];
    aclTensor *handle = gradOutput.get();
    ASSERT_EQ(aclDestroyTensor(handle), ACLNN_SUCCESS);
    EXPECT_EQ(aclSetInputTensorAddr(executor, 0, handle, moved.inputs[0].data()), ACLNN_SUCCESS) << recentMessage();
    for (size_t i = 1; i < 3; ++i)
        ASSERT_EQ(aclSetInputTensorAddr(executor, i, first.inputs[i], moved.inputs[i].data()), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetOutputTensorAddr(executor, 0, first.outputs[0], moved.outputs[0].data()), ACLNN_SUCCESS);
    ASSERT_EQ(run(), ACLNN_SUCCESS) << recentMessage();
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    expectSameBits(moved.outputs[0], expected.outputs[0], "gradInput");
    // TestTensor destroys its handle again at the end: a second destroy is refused, not obeyed.
}

// One thread re-points the executor between two sets of memory while another runs it: every run reads one
// consistent set (the lock), and the library's own state stays race-free (ThreadSanitizer build).
TEST_F(BackwardOnNewMemory, RepointingWhileAnotherThreadRunsIsSafe) {
    Operands other = op.make(1);  // the same values in other memory: every run gives the same result
    std::atomic<bool> stop{false};
    std::thread repointer([&] {
        for (int round = 0; !stop.load(); ++round) {
            const Operands &to = round % 2 == 0 ? other : first;
            for (size_t i = 0; i < 3; ++i) aclSetInputTensorAddr(executor, i, first.inputs[i], to.inputs[i].data());
        }
    });
    int failed = 0;
    for (int run = 0; run < 200; ++run) failed += this->run() != ACLNN_SUCCESS;
    stop = true;
    repointer.join();
    EXPECT_EQ(failed, 0);
    Operands expected = op.make(1);
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    expectSameBits(first.outputs[0], expected.outputs[0], "gradInput");
}

TEST(RawTensorAddress, SetAndGetRoundTripAndPhaseOneUsesTheNewAddress) {
    const std::vector<OperatorCase> cases = operatorCases();
    const OperatorCase &op = cases[0];  // MaxPool3dWithArgmax
    Operands first = op.make(1), second = op.make(2), expected = op.make(2);
    void *address = nullptr;
    ASSERT_EQ(aclGetRawTensorAddr(first.inputs[0], &address), ACLNN_SUCCESS);
    EXPECT_EQ(address, first.inputs[0].data());
    // An executor made before a re-point keeps the address its phase 1 saw.
    uint64_t workspaceSize = 0;
    aclOpExecutor *before = nullptr;
    ASSERT_EQ(op.phaseOneOn(first, &workspaceSize, &before), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetRawTensorAddr(first.inputs[0], second.inputs[0].data()), ACLNN_SUCCESS);
    ASSERT_EQ(aclGetRawTensorAddr(first.inputs[0], &address), ACLNN_SUCCESS);
    EXPECT_EQ(address, second.inputs[0].data());
    for (TestTensor &output : first.outputs) output.poison();
    ASSERT_EQ(test_support::runPhaseTwo(op.phaseTwo, 0, before), ACLNN_SUCCESS);
    Operands firstAgain = op.make(1);
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(firstAgain, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    expectSameBits(first.outputs[0], firstAgain.outputs[0], "out of the executor made before");
    // A phase 1 after it reads the new memory.
    for (TestTensor &output : first.outputs) output.poison();
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(first, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    ASSERT_EQ(runOnce([&](uint64_t *ws, aclOpExecutor **ex) { return op.phaseOneOn(expected, ws, ex); }, op.phaseTwo),
              ACLNN_SUCCESS);
    expectSameBits(first.outputs[0], expected.outputs[0], "out after the re-point");
    expectSameBits(first.outputs[1], expected.outputs[1], "indices after the re-point");
    ASSERT_EQ(aclSetRawTensorAddr(first.inputs[0], first.inputs[0].data()), ACLNN_SUCCESS);
}

TEST(RawTensorAddress, NullDestroyedAndOverflowingArgumentsAreRefused) {
    TestTensor tensor({4, 4}, ACL_FLOAT);
    void *address = nullptr;
    EXPECT_EQ(aclGetRawTensorAddr(nullptr, &address), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetRawTensorAddr(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclSetRawTensorAddr(nullptr, tensor.data()), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclSetRawTensorAddr(tensor, reinterpret_cast<void *>(~uintptr_t{0} - 8)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(recentMessage().find("address space"), std::string::npos) << recentMessage();
    ASSERT_EQ(aclGetRawTensorAddr(tensor, &address), ACLNN_SUCCESS);
    EXPECT_EQ(address, tensor.data()) << "a refused re-point changes nothing";
    const int64_t shape[1] = {4};
    aclTensor *destroyed = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, tensor.data());
    ASSERT_EQ(aclDestroyTensor(destroyed), ACLNN_SUCCESS);
    EXPECT_EQ(aclSetRawTensorAddr(destroyed, tensor.data()), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("destroyed"), std::string::npos) << recentMessage();
    EXPECT_EQ(aclGetRawTensorAddr(destroyed, &address), ACLNN_ERR_PARAM_NULLPTR);
}

}  // namespace
