// Tests of the 2-D wrappers of SPEC §8: aclnnMaxPool2dWithIndices(+Backward) and aclnnMaxPool2dWithMask
// (+Backward). SPEC defines them as the 3-D operators with D = 1 (kernel (1,kH,kW), stride (1,sH,sW),
// padding (0,pH,pW), dilation (1,dH,dW)), so the expectations come from the naive 3-D reference of
// tests/reference/naive_pooling (forward) and the §3.6 scatter of tests/reference/naive_adaptive_pooling
// (backward), both written from SPEC only.
//
//  * fixed examples (WE-2..WE-5 laid out in 2-D) with exact values for both index encodings;
//  * the mask layout: INT8 (N,C,kH*kW,(ceil(Ho*Wo/16)+1)*32) whose first N*C*Ho*Wo*4 bytes hold the INT32
//    indices h*W+w (little-endian, (n,c,ho,wo) row-major); a hand-written mask is consumed the same way;
//    1x1 kernels (the mask cannot hold indices; the backward uses the single-element window);
//  * randomized differential tests: rank 3 (C,H,W) and 4, FLOAT/FLOAT16/BF16, INT32/INT64/mask indices,
//    every list length, ceil mode, padding, dilation, tie-heavy and NaN/Inf/-0 data, random layouts for
//    every operand (masks: dense, optionally with an offset), every implementation, threads 1/2/3;
//  * the backward's gradOutput shape check (161002, SPEC §8) for both encodings.
// Seeds: a fixed list plus one fresh seed per run (POOLGRAD_TEST_SEED reproduces it).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_adaptive_pooling.h"
#include "reference/naive_pooling.h"
#include "support/differential_driver.h"
#include "support/test_tensor.h"

namespace {

using namespace pool_diff;

// Every non-reference implementation accepts at least this share of the random cases (measured, 2-D: channels-last
// 23-28%, dense 50-61% of the cases; a third of the lowest as margin).
constexpr double kMinimumShare2d = 0.08;
using test_support::IntArray;
using test_support::TestTensor;

// ================================================================================================ calls

struct Lists {
    std::vector<int64_t> kernel, stride, padding, dilation{1};
    bool ceilMode = false;
};

TwoPhase runForward(bool mask, const aclTensor *self, const Lists &l, aclTensor *out, aclTensor *indices) {
    IntArray kernel(l.kernel), stride(l.stride), padding(l.padding), dilation(l.dilation);
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return mask ? aclnnMaxPool2dWithMaskGetWorkspaceSize(self, kernel, stride, padding, dilation, l.ceilMode,
                                                                 out, indices, workspaceSize, executor)
                        : aclnnMaxPool2dWithIndicesGetWorkspaceSize(self, kernel, stride, padding, dilation, l.ceilMode,
                                                                    out, indices, workspaceSize, executor);
        },
        mask ? aclnnMaxPool2dWithMask : aclnnMaxPool2dWithIndices);
}

TwoPhase runBackward(bool mask, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                     const Lists &l, aclTensor *gradInput) {
    IntArray kernel(l.kernel), stride(l.stride), padding(l.padding), dilation(l.dilation);
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return mask ? aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride,
                                                                         padding, dilation, l.ceilMode, gradInput,
                                                                         workspaceSize, executor)
                        : aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride,
                                                                            padding, dilation, l.ceilMode, gradInput,
                                                                            workspaceSize, executor);
        },
        mask ? aclnnMaxPool2dWithMaskBackward : aclnnMaxPool2dWithIndicesBackward);
}

// SPEC §8 mask shape: (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32), without N for a 3-D input.
std::vector<int64_t> maskShape(bool batched, int64_t N, int64_t C, int64_t kernelElements, int64_t Ho, int64_t Wo) {
    const int64_t last = ((Ho * Wo + 15) / 16 + 1) * 32;
    if (batched) return {N, C, kernelElements, last};
    return {C, kernelElements, last};
}

// INT32 number q of a (dense) INT8 mask, little-endian.
int32_t maskIndex(const TestTensor &mask, int64_t q) {
    uint32_t value = 0;
    for (int b = 0; b < 4; ++b) value |= static_cast<uint32_t>(mask.bitsAt(4 * q + b) & 0xFF) << (8 * b);
    return static_cast<int32_t>(value);
}

void setMaskIndex(TestTensor &mask, int64_t q, int32_t index) {
    const uint32_t value = static_cast<uint32_t>(index);
    for (int b = 0; b < 4; ++b) mask.setBits(4 * q + b, (value >> (8 * b)) & 0xFF);
}

// ================================================================================================ fixed examples

struct Example {
    const char *name;
    std::vector<int64_t> selfShape;  // rank 3 or 4
    std::vector<double> self;
    Lists lists;
    std::vector<int64_t> outShape;
    std::vector<float> out;
    std::vector<int64_t> indices;
    std::vector<double> gradOutput;
    std::vector<float> gradInput;
};

std::vector<Example> examples() {
    std::vector<Example> list;
    // WE-2 overlap: 3x3, k 2, s 1 -> every window picks the 9 in the middle; gradients accumulate.
    list.push_back({"WE2Overlap",
                    {1, 1, 3, 3},
                    {1, 2, 3, 4, 9, 5, 6, 7, 8},
                    {{2}, {1}, {0}, {1}, false},
                    {1, 1, 2, 2},
                    {9, 9, 9, 9},
                    {4, 4, 4, 4},
                    {1, 2, 3, 4},
                    {0, 0, 0, 0, 10, 0, 0, 0, 0}});
    // WE-3 ceil mode along W (H = 1): W_out 3, last window {4}.
    list.push_back({"WE3Ceil",
                    {1, 1, 1, 5},
                    {1, 5, 2, 3, 9},
                    {{1, 2}, {1, 2}, {0, 0}, {1, 1}, true},
                    {1, 1, 1, 3},
                    {5, 3, 9},
                    {1, 3, 4},
                    {1, 2, 3},
                    {0, 1, 0, 2, 3}});
    // WE-4 last-window rule: p 1 (k 2 allows p <= 1), ceil: raw 4 windows, the 4th would start in padding -> 3.
    list.push_back({"WE4LastWindowRule",
                    {1, 1, 1, 5},
                    {1, 5, 2, 3, 9},
                    {{1, 2}, {1, 2}, {0, 1}, {1}, true},
                    {1, 1, 1, 3},
                    {1, 5, 9},
                    {0, 1, 4},
                    {1, 2, 3},
                    {1, 2, 0, 0, 3}});
    // WE-5 padding never wins: negative data, k 3, s 2, p 1.
    list.push_back({"WE5PaddingNeverWins",
                    {1, 1, 1, 4},
                    {-5, -1, -7, -2},
                    {{1, 3}, {1, 2}, {0, 1}, {1}, false},
                    {1, 1, 1, 2},
                    {-1, -1},
                    {1, 1},
                    {1, 2},
                    {0, 3, 0, 0}});
    // 3-D (C,H,W) input with two planes, stride list empty (= kernel); indices are per plane.
    list.push_back({"ChwTwoPlanesDefaultStride",
                    {2, 2, 4},
                    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                    {{2}, {}, {0}, {1}, false},
                    {2, 1, 2},
                    {5, 7, 13, 15},
                    {5, 7, 5, 7},
                    {1, 2, 3, 4},
                    {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}});
    // Dilation 2 along W: taps {w, w+2}.
    list.push_back({"Dilation",
                    {1, 1, 1, 5},
                    {4, 9, 1, 8, 7},
                    {{1, 2}, {1, 1}, {0, 0}, {1, 2}, false},
                    {1, 1, 1, 3},
                    {4, 9, 7},
                    {0, 1, 4},
                    {1, 2, 3},
                    {1, 2, 0, 0, 3}});
    return list;
}

class MaxPool2dExample : public ::testing::TestWithParam<std::tuple<int, int>> {};  // example, encoding

TEST_P(MaxPool2dExample, ForwardAndBackwardGiveTheExactValues) {
    const Example e = examples()[static_cast<size_t>(std::get<0>(GetParam()))];
    const int encoding = std::get<1>(GetParam());  // 0 INT32, 1 INT64, 2 mask
    const bool mask = encoding == 2;
    const bool batched = e.selfShape.size() == 4;
    const int64_t N = batched ? e.selfShape[0] : 1, C = e.selfShape[batched ? 1 : 0];
    const int64_t Ho = e.outShape[e.outShape.size() - 2], Wo = e.outShape.back();
    int64_t kernelElements = 1;
    for (int a = 0; a < 2; ++a) kernelElements *= e.lists.kernel[e.lists.kernel.size() == 1 ? 0 : a];
    TestTensor self(e.selfShape, ACL_FLOAT), out(e.outShape, ACL_FLOAT),
        indices(mask ? maskShape(batched, N, C, kernelElements, Ho, Wo) : e.outShape, encoding == 0   ? ACL_INT32
                                                                                      : encoding == 1 ? ACL_INT64
                                                                                                      : ACL_INT8);
    self.setValues(e.self);
    EXPECT_RAN(runForward(mask, self, e.lists, out, indices));
    EXPECT_EQ(floatsOf(out), e.out);
    for (size_t q = 0; q < e.indices.size(); ++q) {
        const int64_t got = mask ? maskIndex(indices, static_cast<int64_t>(q)) : static_cast<int64_t>(indices.at(q));
        if (!mask || kernelElements > 1) EXPECT_EQ(got, e.indices[q]) << "index " << q;
    }
    TestTensor gradOutput(e.outShape, ACL_FLOAT), gradInput(e.selfShape, ACL_FLOAT);
    gradOutput.setValues(e.gradOutput);
    EXPECT_RAN(runBackward(mask, gradOutput, self, indices, e.lists, gradInput));
    EXPECT_EQ(floatsOf(gradInput), e.gradInput);
}

std::string exampleName(const ::testing::TestParamInfo<std::tuple<int, int>> &info) {
    static const char *const encodings[] = {"Int32", "Int64", "Mask"};
    return std::string(examples()[static_cast<size_t>(std::get<0>(info.param))].name) +
           encodings[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Examples, MaxPool2dExample,
                         ::testing::Combine(::testing::Range(0, static_cast<int>(examples().size())),
                                            ::testing::Values(0, 1, 2)),
                         exampleName);

// ================================================================================================ mask layout

TEST(MaxPool2dWithMask, MaskHoldsInt32IndicesInItsFirstBytes) {
    // self (2,3,5,7) k 2 s 2 ceil -> Ho 3, Wo 4 (Ho*Wo = 12): mask (2,3,4,(1+1)*32 = 64) INT8.
    for (bool batched : {true, false}) {
        SCOPED_TRACE(batched ? "4-D self" : "3-D self");
        const int64_t N = batched ? 2 : 1, C = 3, H = 5, W = 7, Ho = 3, Wo = 4;
        const std::vector<int64_t> selfShape =
            batched ? std::vector<int64_t>{N, C, H, W} : std::vector<int64_t>{C, H, W};
        const std::vector<int64_t> outShape =
            batched ? std::vector<int64_t>{N, C, Ho, Wo} : std::vector<int64_t>{C, Ho, Wo};
        const std::vector<int64_t> shape = maskShape(batched, N, C, 4, Ho, Wo);
        EXPECT_EQ(shape.back(), 64);
        TestTensor self(selfShape, ACL_FLOAT), out(outShape, ACL_FLOAT), mask(shape, ACL_INT8);
        Rng rng(7);
        std::vector<uint32_t> bits = randomElements(rng, N * C * H * W, ACL_FLOAT, DataMode::Plain);
        storeBits(self, bits);
        const Lists lists{{2, 2}, {2, 2}, {0, 0}, {1, 1}, true};
        EXPECT_RAN(runForward(true, self, lists, out, mask));
        reference::Pool3dParams params;
        params.kernel = {1, 2, 2};
        params.stride = {1, 2, 2};
        params.ceilMode = true;
        const reference::ForwardResult expected =
            reference::maxPool3dWithArgmax(widen(bits, ACL_FLOAT), {N, C, 1, H, W}, params);
        ASSERT_EQ(expected.indices.size(), static_cast<size_t>(N * C * Ho * Wo));
        for (int64_t q = 0; q < N * C * Ho * Wo; ++q)
            EXPECT_EQ(maskIndex(mask, q), expected.indices[static_cast<size_t>(q)]) << "INT32 number " << q;
        EXPECT_EQ(mask.bytesOutsideViewChanged(), 0);
    }
}

TEST(MaxPool2dWithMask, BackwardConsumesHandWrittenInt32IndicesIncludingCollisionsAndMinusOne) {
    // The library's documented layout (SPEC §8 "produce/consume that INT32 layout"): indices written by hand.
    // self (1,2,3,3) k 2 s 1 -> out (1,2,2,2); mask (1,2,4,64).
    const Lists lists{{2, 2}, {1, 1}, {0, 0}, {1, 1}, false};
    TestTensor self({1, 2, 3, 3}, ACL_FLOAT), gradOutput({1, 2, 2, 2}, ACL_FLOAT), mask({1, 2, 4, 64}, ACL_INT8),
        gradInput({1, 2, 3, 3}, ACL_FLOAT);
    gradOutput.setValues({1, 2, 4, 8, 16, 32, 64, 128});
    const std::vector<int32_t> written{8, 8, 0, -1, 4, 0, 4, 4};  // plane 0 then plane 1
    for (size_t q = 0; q < written.size(); ++q) setMaskIndex(mask, static_cast<int64_t>(q), written[q]);
    EXPECT_RAN(runBackward(true, gradOutput, self, mask, lists, gradInput));
    EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{4, 0, 0, 0, 0, 0, 0, 0, 3,  //
                                                       32, 0, 0, 0, 208, 0, 0, 0, 0}));
}

TEST(MaxPool2dWithMask, OneByOneKernelUsesTheSingleElementWindows) {
    // k 1x1: the mask (N,C,1,L) is too small to hold indices; the backward needs none (SPEC §8 mask is opaque).
    // self (1,1,3,5), s (2,2) ceil -> Ho 2, Wo 3; outputs pick (0,0),(0,2),(0,4),(2,0),(2,2),(2,4).
    for (bool ceilMode : {false, true}) {
        const Lists lists{{1}, {2}, {0}, {1}, ceilMode};
        TestTensor self({1, 1, 3, 5}, ACL_FLOAT), out({1, 1, 2, 3}, ACL_FLOAT), mask({1, 1, 1, 64}, ACL_INT8);
        self.setValues({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
        EXPECT_RAN(runForward(true, self, lists, out, mask));
        EXPECT_EQ(floatsOf(out), (std::vector<float>{0, 2, 4, 10, 12, 14}));
        EXPECT_EQ(mask.bytesOutsideViewChanged(), 0);
        TestTensor gradOutput({1, 1, 2, 3}, ACL_FLOAT), gradInput({1, 1, 3, 5}, ACL_FLOAT);
        gradOutput.setValues({1, 2, 3, 4, 5, 6});
        EXPECT_RAN(runBackward(true, gradOutput, self, mask, lists, gradInput));
        EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{1, 0, 2, 0, 3, 0, 0, 0, 0, 0, 4, 0, 5, 0, 6}));
    }
}

TEST(MaxPool2dWithMask, MaskWithAnElementOffsetIsAccepted) {
    // SPEC §2.4: every operand accepts an offset. A dense mask view starting 4 bytes into its storage.
    const Lists lists{{2}, {2}, {0}, {1}, false};
    TestTensor self({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT);
    TestTensor mask({1, 1, 4, 64}, {256, 256, 64, 1}, 4, ACL_INT8, ACL_FORMAT_ND, 3);
    self.setValues({1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13});
    EXPECT_RAN(runForward(true, self, lists, out, mask));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{8, 6, 16, 14}));
    EXPECT_EQ(mask.bytesOutsideViewChanged(), 0);
    for (int64_t q = 0; q < 4; ++q) EXPECT_EQ(maskIndex(mask, q), (std::vector<int32_t>{4, 6, 12, 14})[q]);
    TestTensor gradOutput({1, 1, 2, 2}, ACL_FLOAT), gradInput({1, 1, 4, 4}, ACL_FLOAT);
    gradOutput.setValues({1, 2, 3, 4});
    EXPECT_RAN(runBackward(true, gradOutput, self, mask, lists, gradInput));
    EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0}));
}

TEST(MaxPool2dWithMask, MaskAtAnOddByteOffsetIsRejected) {
    // As above with offset 1: the INT32 indices inside the mask would not be 4-byte aligned in memory, so
    // phase 1 refuses the mask (161002, docs/decisions.md) instead of touching misaligned INT32 values.
    const Lists lists{{2}, {2}, {0}, {1}, false};
    TestTensor self({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT);
    TestTensor mask({1, 1, 4, 64}, {256, 256, 64, 1}, 1, ACL_INT8, ACL_FORMAT_ND, 3);
    self.setValues({1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13});
    const TwoPhase forward = runForward(true, self, lists, out, mask);
    EXPECT_EQ(forward.phaseOne, ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(forward.message.find("aligned"), std::string::npos) << forward.message;
    EXPECT_EQ(mask.bytesOutsideViewChanged(), 0);
    TestTensor gradOutput({1, 1, 2, 2}, ACL_FLOAT), gradInput({1, 1, 4, 4}, ACL_FLOAT);
    gradOutput.setValues({1, 2, 3, 4});
    const TwoPhase backward = runBackward(true, gradOutput, self, mask, lists, gradInput);
    EXPECT_EQ(backward.phaseOne, ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(backward.message.find("indices"), std::string::npos) << backward.message;
}

// ================================================================================================ gradOutput shape

TEST(MaxPool2dBackward, GradOutputShapeMustEqualTheForwardOutputShape) {
    // SPEC §8: the 2-D backwards validate gradOutput's shape against the computed output (161002).
    // self (1,1,4,4), k 2 s 2 -> (1,1,2,2). gradOutput (1,1,3,2) with indices / mask matching IT.
    const Lists lists{{2}, {2}, {0}, {1}, false};
    for (bool mask : {false, true})
        for (const std::vector<int64_t> &bad :
             {std::vector<int64_t>{1, 1, 3, 2}, std::vector<int64_t>{1, 1, 2, 1}, std::vector<int64_t>{1, 1, 1, 1}}) {
            SCOPED_TRACE(std::string(mask ? "mask" : "indices") + " gradOutput " + listText(bad));
            TestTensor self({1, 1, 4, 4}, ACL_FLOAT), gradOutput(bad, ACL_FLOAT), gradInput({1, 1, 4, 4}, ACL_FLOAT);
            TestTensor indices(mask ? maskShape(true, 1, 1, 4, bad[2], bad[3]) : bad, mask ? ACL_INT8 : ACL_INT32);
            const TwoPhase status = runBackward(mask, gradOutput, self, indices, lists, gradInput);
            EXPECT_EQ(status.phaseOne, ACLNN_ERR_PARAM_INVALID);
            EXPECT_FALSE(status.executorReturned);
            EXPECT_NE(status.message.find("gradOutput"), std::string::npos) << status.message;
        }
    // The right shape is accepted (control).
    for (bool mask : {false, true}) {
        TestTensor self({1, 1, 4, 4}, ACL_FLOAT), gradOutput({1, 1, 2, 2}, ACL_FLOAT),
            gradInput({1, 1, 4, 4}, ACL_FLOAT);
        TestTensor indices(mask ? maskShape(true, 1, 1, 4, 2, 2) : std::vector<int64_t>{1, 1, 2, 2},
                           mask ? ACL_INT8 : ACL_INT32);
        gradOutput.setValues({1, 2, 3, 4});
        if (mask) {
            for (int64_t q = 0; q < 4; ++q) setMaskIndex(indices, q, 0);
        } else {
            indices.setValues({0, 0, 0, 0});
        }
        EXPECT_RAN(runBackward(mask, gradOutput, self, indices, lists, gradInput));
        EXPECT_EQ(gradInput.at(0), 10.0);
    }
}

// ================================================================================================ random problems

enum class Encoding { Int32, Int64, Mask };

struct Problem {
    bool batched = true;
    aclDataType type = ACL_FLOAT;
    Encoding encoding = Encoding::Int32;
    reference::Shape5 in{};   // (N, C, 1, H, W)
    reference::Shape5 out{};  // (N, C, 1, Ho, Wo)
    reference::Pool3dParams params;
    Lists lists;
    bool allChannelsLast = false;  // every operand stored channels-last (Sizes::wideChannelsLast)
    bool allDense = false;         // every operand contiguous (Sizes::stride1Float32)

    bool mask() const { return encoding == Encoding::Mask; }
    aclDataType indexType() const {
        return encoding == Encoding::Int32 ? ACL_INT32 : encoding == Encoding::Int64 ? ACL_INT64 : ACL_INT8;
    }
    int64_t kernelElements() const { return params.kernel[1] * params.kernel[2]; }
    std::vector<int64_t> view(const reference::Shape5 &s) const {
        if (batched) return {s[0], s[1], s[3], s[4]};
        return {s[1], s[3], s[4]};
    }
    std::vector<int64_t> indicesShape() const {
        return mask() ? maskShape(batched, out[0], out[1], kernelElements(), out[3], out[4]) : view(out);
    }
    int channelAxis() const { return batched ? 1 : 0; }
    int64_t planes() const { return in[0] * in[1]; }
    int64_t planeIn() const { return in[3] * in[4]; }
    int64_t planeOut() const { return out[3] * out[4]; }
    std::string describe() const {
        const char *encodings[] = {"INT32", "INT64", "mask"};
        return std::string(typeName(type)) + "/" + encodings[static_cast<int>(encoding)] + " self " +
               listText(view(in)) + " -> " + listText(view(out)) + " kernel " + listText(lists.kernel) + " stride " +
               listText(lists.stride) + " padding " + listText(lists.padding) + " dilation " +
               listText(lists.dilation) + " ceilMode " + (lists.ceilMode ? "true" : "false");
    }
};

// One list in a random allowed length (1 or 2; `allowEmpty` adds 0 = use `fallback`), expanded into H, W.
void randomList(Rng &rng, std::vector<int64_t> &list, int64_t &h, int64_t &w, bool allowEmpty,
                const std::array<int64_t, 2> &values, const std::array<int64_t, 2> &fallback, bool uniformValue) {
    const int form = static_cast<int>(uniform(rng, allowEmpty ? 0 : 1, 2));
    if (form == 0) {
        list = {};
        h = fallback[0], w = fallback[1];
    } else if (form == 1 || uniformValue) {
        list = {values[0]};
        h = w = values[0];
    } else {
        list = {values[0], values[1]};
        h = values[0], w = values[1];
    }
}

// Problem sizes: batch, channels, and how much each input axis exceeds its smallest valid size.
struct Sizes {
    int64_t maxBatch = 2, minChannels = 1, maxChannels = 3, minExtra = 0, maxExtra = 6;
    // Windows that do not overlap (stride = kernel, no dilation) and rows of 32 to 64 more elements than
    // the smallest: what the write-once gather backward takes.
    bool disjointWideRows = false;
    // 16 to 40 channels (multiples of 8), windows of 1-2 per axis, indices (not masks) and every operand
    // channels-last: what the channel-vector scatter takes (taps x vectors of 8 or 16 lanes <= C).
    bool wideChannelsLast = false;
    // With wideChannelsLast: 16 or 32 channels, float32 gradients, INT32 indices and windows two wide at stride 1 along
    // W (two per coordinate): what the overlapping channels-last gather takes.
    bool overlappingFloat32 = false;
    // float32 gradients and INT32 indices: what the plane-chunk gather takes.
    bool float32Int32 = false;
    // Windows three wide at stride 2 along W (padding 0 or 1) and at most two deep per row along H (kernel
    // <= 2 * stride), no dilation: what the stride-2 gather backward takes.
    bool stride2Rows = false;
    // With stride2Rows: float32 values and rows of at least 16 whole windows: what the stride-2 forward takes.
    bool stride2Float32 = false;
    // With both: windows 3x3 at stride 2 along H too: what the 3x3 stride-2 forward takes.
    bool threeByThree = false;
    // Windows up to 5x5 (not 1x1) moving by 1 along H and W, no dilation, rows of at least 16 windows: what the
    // stride-1 forward takes.
    bool stride1 = false;
    // With stride1: float32 values and rows of 16 to 40 windows: what the flat stride-1 forward takes too.
    bool stride1Float32 = false;
};

Problem randomProblem(Rng &rng, const Sizes &sizes = {}) {
    Problem p;
    p.batched = chance(rng, 0.6);
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    p.type = types[uniform(rng, 0, 2)];
    p.encoding = static_cast<Encoding>(uniform(rng, 0, 2));
    if (sizes.float32Int32) {
        p.type = ACL_FLOAT;
        p.encoding = Encoding::Int32;
    }
    auto &params = p.params;
    params.kernel[0] = params.stride[0] = params.dilation[0] = 1;
    params.padding[0] = 0;
    // kernel: 1x1 fairly often for the mask (a special case), else 1..4 per axis.
    std::array<int64_t, 2> k{uniform(rng, 1, 4), uniform(rng, 1, 4)};
    if (p.mask() && chance(rng, 0.2)) k = {1, 1};
    randomList(rng, p.lists.kernel, params.kernel[1], params.kernel[2], false, k, k, false);
    const std::array<int64_t, 2> s{uniform(rng, 1, 3), uniform(rng, 1, 3)};
    randomList(rng, p.lists.stride, params.stride[1], params.stride[2], true, s, {params.kernel[1], params.kernel[2]},
               false);
    // padding: 0 <= p <= k/2 on each axis; a length-1 list must satisfy both axes.
    const int64_t padLimitH = params.kernel[1] / 2, padLimitW = params.kernel[2] / 2;
    if (chance(rng, 0.4)) {
        const int64_t v = uniform(rng, 0, std::min(padLimitH, padLimitW));
        p.lists.padding = {v};
        params.padding[1] = params.padding[2] = v;
    } else {
        params.padding[1] = uniform(rng, 0, padLimitH);
        params.padding[2] = uniform(rng, 0, padLimitW);
        p.lists.padding = {params.padding[1], params.padding[2]};
    }
    const std::array<int64_t, 2> d{chance(rng, 0.6) ? 1 : uniform(rng, 2, 3),
                                   chance(rng, 0.6) ? 1 : uniform(rng, 2, 3)};
    randomList(rng, p.lists.dilation, params.dilation[1], params.dilation[2], false, d, d, false);
    params.ceilMode = p.lists.ceilMode = chance(rng, 0.5);
    if (sizes.disjointWideRows) {
        params.stride[1] = params.kernel[1], params.stride[2] = params.kernel[2];
        p.lists.stride = {};
        params.dilation[1] = params.dilation[2] = 1;
        p.lists.dilation = {1};
    }
    if (sizes.stride2Rows) {
        if (sizes.stride2Float32) p.type = ACL_FLOAT;
        params.stride[1] = uniform(rng, 1, 3);
        params.kernel[1] = uniform(rng, 1, std::min<int64_t>(4, 2 * params.stride[1]));
        params.padding[1] = uniform(rng, 0, params.kernel[1] / 2);
        params.kernel[2] = 3, params.stride[2] = 2, params.padding[2] = uniform(rng, 0, 1);
        if (sizes.threeByThree) params.kernel[1] = 3, params.stride[1] = 2, params.padding[1] = uniform(rng, 0, 1);
        params.dilation[1] = params.dilation[2] = 1;
        p.lists.kernel = {params.kernel[1], params.kernel[2]};
        p.lists.stride = {params.stride[1], params.stride[2]};
        p.lists.padding = {params.padding[1], params.padding[2]};
        p.lists.dilation = {1};
    }

    if (sizes.stride1Float32) {
        p.type = ACL_FLOAT;
        p.allDense = true;
    }
    if (sizes.stride1) {
        for (int a = 1; a < 3; ++a) {
            params.kernel[a] = uniform(rng, 1, 5);
            params.stride[a] = params.dilation[a] = 1;
        }
        if (params.kernel[1] * params.kernel[2] == 1) params.kernel[2] = 2;
        for (int a = 1; a < 3; ++a) params.padding[a] = uniform(rng, 0, params.kernel[a] / 2);
        p.lists.kernel = {params.kernel[1], params.kernel[2]};
        p.lists.stride = {1};
        p.lists.padding = {params.padding[1], params.padding[2]};
        p.lists.dilation = {1};
    }

    if (sizes.wideChannelsLast) {
        p.allChannelsLast = true;
        p.encoding = chance(rng, 0.5) ? Encoding::Int32 : Encoding::Int64;
        for (int a = 1; a < 3; ++a) {
            params.kernel[a] = uniform(rng, 1, 2);
            params.stride[a] = uniform(rng, 1, 2);
            params.padding[a] = uniform(rng, 0, params.kernel[a] / 2);
        }
        if (sizes.overlappingFloat32) {
            p.type = ACL_FLOAT;
            p.encoding = Encoding::Int32;
            params.kernel[2] = 2;
            params.stride[2] = 1;
        }
        p.lists.kernel = {params.kernel[1], params.kernel[2]};
        p.lists.stride = {params.stride[1], params.stride[2]};
        p.lists.padding = {params.padding[1], params.padding[2]};
    }

    p.in[0] = p.batched ? uniform(rng, 1, sizes.maxBatch) : 1;
    p.in[1] = sizes.overlappingFloat32 ? 16 * uniform(rng, 1, 2)
              : sizes.wideChannelsLast ? 8 * uniform(rng, 2, 5)
                                       : uniform(rng, sizes.minChannels, sizes.maxChannels);
    p.in[2] = 1;
    for (int a = 1; a < 3; ++a) {
        int64_t smallest = 1;
        while (reference::pooledSize(smallest, params.kernel[a], params.stride[a], params.padding[a],
                                     params.dilation[a], params.ceilMode) < 1)
            ++smallest;
        p.in[2 + a] = sizes.minExtra == 0 && chance(rng, 0.15)
                          ? smallest
                          : smallest + uniform(rng, sizes.minExtra, sizes.maxExtra);
        if (sizes.disjointWideRows && a == 2) p.in[4] = smallest + uniform(rng, 32, 64);
        if (sizes.stride2Rows && a == 2) p.in[4] = smallest + uniform(rng, sizes.stride2Float32 ? 33 : 0, 70);
        if (sizes.stride1 && a == 2) p.in[4] = smallest + uniform(rng, 15, 50);
        // Clamped rather than drawn from a narrower range, so that the draws after it stay those of the seeds.
        if (sizes.stride1Float32 && a == 2) p.in[4] = std::min(p.in[4], smallest + 39);
        // At least two outputs along W, so that the windows overlap.
        if (sizes.overlappingFloat32 && a == 2) p.in[4] = smallest + uniform(rng, 1, sizes.maxExtra);
    }
    p.out = reference::pooledShape(p.in, params);
    return p;
}

// A mask operand: dense row-major (the library requires it), at offset 0 or with an element offset that keeps
// the INT32 numbers 4-byte aligned.
Operand makeMaskOperand(Rng &rng, const std::vector<int64_t> &shape, aclFormat format, bool plain = false) {
    if (plain || chance(rng, 0.5)) return {TestTensor(shape, ACL_INT8, format), "dense mask"};
    std::vector<int64_t> strides(shape.size());
    int64_t running = 1;
    for (size_t i = shape.size(); i-- > 0;) strides[i] = running, running *= shape[i];
    const int64_t offset = 4 * uniform(rng, 1, 3);
    return {TestTensor(shape, strides, offset, ACL_INT8, format, uniform(rng, 0, 5)),
            "dense mask at offset " + std::to_string(offset)};
}

Operand makeIndicesOperand(Rng &rng, const Problem &p, aclFormat format, bool dense) {
    if (p.mask()) return makeMaskOperand(rng, p.indicesShape(), format, dense);
    return makeOperand(rng, p.indicesShape(), p.channelAxis(), p.indexType(), format, dense);
}

// ================================================================================================ forward

struct ForwardCase {
    Problem problem;
    DataMode mode = DataMode::Plain;
    std::vector<uint32_t> inputBits;
    std::vector<uint32_t> expectedBits;
    std::vector<int64_t> expectedIndices;
};

ForwardCase randomForwardCase(Rng &rng, const Sizes &sizes = {}) {
    ForwardCase c;
    c.problem = randomProblem(rng, sizes);
    const Problem &p = c.problem;
    c.mode = static_cast<DataMode>(uniform(rng, 0, 2));
    c.inputBits = randomElements(rng, p.planes() * p.planeIn(), p.type, c.mode);
    c.expectedIndices = reference::maxPool3dWithArgmax(widen(c.inputBits, p.type), p.in, p.params).indices;
    c.expectedBits = selectedBits(c.inputBits, c.expectedIndices, p.planeIn(), p.planeOut(), p.type);
    return c;
}

struct ForwardOperands {
    aclFormat format;
    Operand self, out, indices;
};

ForwardOperands makeForwardOperands(Rng &rng, const ForwardCase &c) {
    const Problem &p = c.problem;
    const aclFormat format = chance(rng, 0.5) ? ACL_FORMAT_ND : ACL_FORMAT_NCHW;
    const bool dense = chance(rng, 0.3) || p.allDense;  // every operand contiguous (drawn all the same)
    ForwardOperands o{format, makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, format, dense),
                      makeOperand(rng, p.view(p.out), p.channelAxis(), p.type, format, dense),
                      makeIndicesOperand(rng, p, format, dense)};
    storeBits(o.self.tensor, c.inputBits);
    return o;
}

testing::AssertionResult maskIndicesMatch(const TestTensor &mask, const std::vector<int64_t> &expected) {
    int64_t mismatches = 0;
    std::ostringstream first;
    for (size_t q = 0; q < expected.size(); ++q) {
        const int32_t got = maskIndex(mask, static_cast<int64_t>(q));
        if (got != expected[q] && mismatches++ < 6)
            first << "\n  mask INT32[" << q << "]: got " << got << ", expected " << expected[q];
    }
    if (mismatches == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << mismatches << " mask indices differ" << first.str();
}

OperatorCall forwardCall(const ForwardCase &c, ForwardOperands &o) {
    return argmaxForwardCall(
        c.problem.describe() + ", " + dataModeName(c.mode) + ", format " + formatName(o.format), o.self, o.out,
        o.indices, c.problem.type, c.expectedBits,
        [&c, &o] {
            if (!c.problem.mask()) return indicesMatch(o.indices.tensor, c.expectedIndices);
            if (c.problem.kernelElements() > 1) return maskIndicesMatch(o.indices.tensor, c.expectedIndices);
            return testing::AssertionSuccess() << "a 1x1 kernel's mask carries nothing";
        },
        [&c, &o] {
            return runForward(c.problem.mask(), o.self.tensor, c.problem.lists, o.out.tensor, o.indices.tensor);
        });
}

TEST(MaxPool2dDifferential, ForwardMatchesReferenceOnEveryImplementation) {
    int oneByOneMasks = 0, ceilCases = 0, rank3 = 0;
    // Every second has float32 windows three wide at stride 2 along W and wide rows (the stride-2 forward's
    // problems; a third of the cases have dense operands), every other one of those 3x3 windows at stride 2 (the
    // 3x3 stride-2 forward's).
    // One in eight is float32 (small rows: the narrow-rows forward's), one in four has windows moving by 1 (the
    // stride-1 forward's), half of those float32 rows of at most 40 windows (the flat stride-1 forward's too).
    Sizes stride2, threeByThree, float32, stride1, stride1Float32;
    stride1.stride1 = true;
    stride1Float32.stride1 = stride1Float32.stride1Float32 = true;
    stride2.stride2Rows = stride2.stride2Float32 = true;
    threeByThree.stride2Rows = threeByThree.stride2Float32 = threeByThree.threeByThree = true;
    float32.float32Int32 = true;
    const auto draw = [&](Rng &rng, int n) {
        ForwardCase c = randomForwardCase(rng, n % 4 == 1   ? stride2
                                               : n % 4 == 3 ? threeByThree
                                               : n % 8 == 0 ? float32
                                               : n % 8 == 2 ? stride1
                                               : n % 8 == 6 ? stride1Float32
                                                            : Sizes{});
        oneByOneMasks += c.problem.mask() && c.problem.kernelElements() == 1;
        ceilCases += c.problem.lists.ceilMode;
        rank3 += !c.problem.batched;
        return c;
    };
    if (!runRandomSuite("2-D forward", {401, 402, 403}, 80, kMinimumShare2d, draw, makeForwardOperands, forwardCall))
        return;
    EXPECT_GT(oneByOneMasks, 3);
    EXPECT_GT(ceilCases, 60);
    EXPECT_GT(rank3, 40);
}

// ================================================================================================ backward

struct BackwardCase {
    Problem problem;
    bool handWritten = false;  // colliding indices with -1 instead of a forward's
    std::vector<uint32_t> gradOutputBits;
    std::vector<int64_t> indices;  // as the backward must interpret them
    std::vector<uint32_t> expectedBits;
};

std::vector<uint32_t> expectedGradInput(const Problem &p, const std::vector<uint32_t> &gradOutputBits,
                                        const std::vector<int64_t> &indices) {
    const reference::adaptive::BackwardResult result =
        reference::adaptive::backward(widen(gradOutputBits, p.type), indices, p.out, p.in);
    EXPECT_TRUE(result.ok) << "test bug: invalid index generated";
    return roundAll(result.accumulators, p.type);
}

BackwardCase randomBackwardCase(Rng &rng, const Sizes &sizes = {}) {
    BackwardCase c;
    c.problem = randomProblem(rng, sizes);
    const Problem &p = c.problem;
    const std::vector<uint32_t> input =
        randomElements(rng, p.planes() * p.planeIn(), p.type, static_cast<DataMode>(uniform(rng, 0, 2)));
    c.indices = reference::maxPool3dWithArgmax(widen(input, p.type), p.in, p.params).indices;
    // 1x1 mask kernels carry no indices: the backward uses the windows, i.e. the forward's indices.
    c.handWritten = !(p.mask() && p.kernelElements() == 1) && chance(rng, 0.5);
    if (c.handWritten) c.indices = collidingIndices(rng, static_cast<int64_t>(c.indices.size()), p.planeIn());
    c.gradOutputBits.resize(c.indices.size());
    for (auto &bits : c.gradOutputBits)
        bits = randomGradient(rng, p.type, chance(rng, 0.1) ? GradMode::WithSpecials : GradMode::Plain);
    c.expectedBits = expectedGradInput(p, c.gradOutputBits, c.indices);
    return c;
}

struct BackwardOperands {
    Operand gradOutput, self, indices, gradInput;
};

BackwardOperands makeBackwardOperands(Rng &rng, const BackwardCase &c) {
    const Problem &p = c.problem;
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
    const aclFormat format = formats[uniform(rng, 0, 2)], indexFormat = formats[uniform(rng, 0, 2)];
    const bool dense = chance(rng, 0.3);  // every operand contiguous
    if (p.allChannelsLast) {
        const auto channelsLast = [&](const std::vector<int64_t> &shape, aclDataType type, aclFormat tag) {
            return makeOperand(rng, shape, p.channelAxis(), type, tag, Layout::ChannelsLast);
        };
        BackwardOperands o{channelsLast(p.view(p.out), p.type, format), channelsLast(p.view(p.in), p.type, format),
                           channelsLast(p.indicesShape(), p.indexType(), indexFormat),
                           channelsLast(p.view(p.in), p.type, format)};
        storeBits(o.gradOutput.tensor, c.gradOutputBits);
        storeIndices(o.indices.tensor, c.indices);
        return o;
    }
    BackwardOperands o{makeOperand(rng, p.view(p.out), p.channelAxis(), p.type, format, dense),
                       makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, format, dense),
                       makeIndicesOperand(rng, p, indexFormat, dense),
                       makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, format, dense)};
    storeBits(o.gradOutput.tensor, c.gradOutputBits);
    if (!p.mask()) {
        storeIndices(o.indices.tensor, c.indices);
    } else if (p.kernelElements() > 1) {
        for (size_t q = 0; q < c.indices.size(); ++q)
            setMaskIndex(o.indices.tensor, static_cast<int64_t>(q), static_cast<int32_t>(c.indices[q]));
    }  // a 1x1 mask stays poisoned: it carries nothing
    return o;
}

OperatorCall backwardCall(const BackwardCase &c, BackwardOperands &o) {
    return indexBackwardCall(
        c.problem.describe() + (c.handWritten ? ", colliding hand-written indices" : ", indices of the forward"),
        o.gradOutput, o.self, o.indices, o.gradInput, c.problem.type, c.expectedBits, [&c, &o] {
            return runBackward(c.problem.mask(), o.gradOutput.tensor, o.self.tensor, o.indices.tensor, c.problem.lists,
                               o.gradInput.tensor);
        });
}

TEST(MaxPool2dDifferential, BackwardMatchesReferenceOnEveryImplementation) {
    // Half the cases have windows that do not overlap and wide rows (half of those float32 with INT32
    // indices, for the plane-chunk gather), a quarter three-wide windows at stride 2 along W: the write-once
    // gathers take those (about half of each draw gets dense planes). Three sixteenths are channels-last with 16-40
    // channels and small windows: the channel-vector scatter takes those, and two thirds of them
    // (float32, INT32, overlapping along W) the overlapping channels-last gather.
    runRandomSuite(
        "2-D backward", {501, 502, 503}, 80, kMinimumShare2d,
        [](Rng &rng, int n) {
            Sizes sizes;
            sizes.disjointWideRows = n % 2 == 1;
            sizes.float32Int32 = n % 4 == 1;
            sizes.stride2Rows = n % 8 == 2 || n % 8 == 6;
            sizes.wideChannelsLast = n % 8 == 4 || n % 16 == 0;
            sizes.overlappingFloat32 = n % 16 == 12 || n % 16 == 0;
            return randomBackwardCase(rng, sizes);
        },
        makeBackwardOperands, backwardCall);
}

TEST(MaxPool2dDifferential, BackwardOfTheLibraryForwardMatchesReference) {
    // The library's forward output (indices tensor or mask, random layouts) feeds its own backward.
    SCOPED_TRACE(seedTrace(freshSeed()));
    Rng rng(freshSeed() ^ 0x2d2dULL);
    for (int n = 0; n < 50; ++n) {
        SCOPED_TRACE("case " + std::to_string(n));
        const ForwardCase f = randomForwardCase(rng);
        ForwardOperands fo = makeForwardOperands(rng, f);
        OperatorCall forwardRun = forwardCall(f, fo);
        ASSERT_TRUE(runChoice(forwardRun, ""));
        if (testing::Test::HasFailure()) return;
        const Problem &p = f.problem;
        std::vector<uint32_t> grads(f.expectedIndices.size());
        for (auto &g : grads) g = randomGradient(rng, p.type, GradMode::SmallIntegers);
        Operand gradOutput = makeOperand(rng, p.view(p.out), p.channelAxis(), p.type, fo.format);
        Operand gradInput = makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, fo.format);
        storeBits(gradOutput.tensor, grads);
        const TwoPhase status =
            runBackward(p.mask(), gradOutput.tensor, fo.self.tensor, fo.indices.tensor, p.lists, gradInput.tensor);
        ASSERT_EQ(status.phaseOne, ACLNN_SUCCESS) << status.message;
        ASSERT_EQ(status.phaseTwo, ACLNN_SUCCESS) << status.message;
        EXPECT_TRUE(
            bitsMatch(gradInput.tensor, expectedGradInput(p, grads, f.expectedIndices), p.type, true, "gradInput"));
        EXPECT_EQ(gradInput.tensor.bytesOutsideViewChanged(), 0);
        if (testing::Test::HasFailure()) return;
    }
}

TEST(MaxPool2dDifferential, OneTwoAndThreeThreadsAreBitIdentical) {
    DifferentialDriver driver("2-D threads");
    // Problems large enough to be split between threads even at the library's default threshold:
    // 3..8 planes of roughly 180x180 .. 240x240.
    Sizes sizes;
    sizes.maxBatch = 2;
    sizes.minChannels = 3;
    sizes.maxChannels = 4;
    sizes.minExtra = 180;
    sizes.maxExtra = 240;
    int large = 0, cases = 0;
    const bool passed = forEachRandomCase({601, 602}, 3, [&](Rng &rng, int) {
        const ForwardCase f = randomForwardCase(rng, sizes);
        ForwardOperands fo = makeForwardOperands(rng, f);
        const BackwardCase b = randomBackwardCase(rng, sizes);
        BackwardOperands bo = makeBackwardOperands(rng, b);
        ++cases;
        large += f.problem.planes() * f.problem.planeIn() >= 3 * 32 * 1024;
        OperatorCall forwardRun = forwardCall(f, fo), backwardRun = backwardCall(b, bo);
        driver.run(forwardRun, {1, 2, 3}) && driver.run(backwardRun, {1, 2, 3});
    });
    if (!passed) return;
    EXPECT_GE(large * 2, cases) << "too few problems large enough to be split between threads";
}

}  // namespace
