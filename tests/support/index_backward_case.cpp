#include "support/index_backward_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_adaptive_pooling.h"
#include "support/test_tensor.h"

namespace test_support {
namespace {

reference::ElementType referenceType(aclDataType type) {
    return type == ACL_FLOAT     ? reference::ElementType::Float32
           : type == ACL_FLOAT16 ? reference::ElementType::Float16
                                 : reference::ElementType::BFloat16;
}

std::vector<int64_t> listOf(const std::array<int64_t, 3> &values) { return {values.begin(), values.end()}; }

TestTensor makeTensor(const reference::Shape5 &shape, aclDataType type, IndexLayout layout) {
    const std::vector<int64_t> dims(shape.begin(), shape.end());
    if (layout == IndexLayout::ChannelsLast) return TestTensor::permuted(dims, {0, 2, 3, 4, 1}, type);
    return TestTensor(dims, type);
}

TestTensor offsetContiguousTensor(const reference::Shape5 &shape, int64_t offset, aclDataType type) {
    const std::vector<int64_t> dims(shape.begin(), shape.end());
    std::vector<int64_t> strides(5, 1);
    for (int axis = 3; axis >= 0; --axis) strides[static_cast<size_t>(axis)] = strides[axis + 1] * dims[axis + 1];
    return TestTensor(dims, strides, offset, type);
}

int64_t count(const reference::Shape5 &shape) { return shape[0] * shape[1] * shape[2] * shape[3] * shape[4]; }

}  // namespace

void IndexBackwardCase::prepare() {
    std::mt19937_64 rng(seed);
    // Inputs with many ties (small integers), so the forward's first-maximum rule matters.
    std::vector<float> input(static_cast<size_t>(count(inputShape)));
    for (float &value : input) value = static_cast<float>(std::uniform_int_distribution<int>(-8, 8)(rng));
    if (adaptive) {
        outputShape = {inputShape[0], inputShape[1], adaptiveOutput[0], adaptiveOutput[1], adaptiveOutput[2]};
        indices = reference::adaptive::forward(input, inputShape, adaptiveOutput).indices;
    } else {
        outputShape = reference::pooledShape(inputShape, params);
        indices = reference::maxPool3dWithArgmax(input, inputShape, params).indices;
    }
    gradOutput.resize(static_cast<size_t>(count(outputShape)));
    const float inf = std::numeric_limits<float>::infinity();
    // Magnitudes far apart, so that float32 sums depend on their order, yet every value exact in the type.
    const std::array<int, 3> scales =
        type == ACL_FLOAT16 ? std::array<int, 3>{-6, 0, 8} : std::array<int, 3>{-10, 0, 20};
    for (float &value : gradOutput) {
        const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
        if (roll < specialShare * 0.4) {
            // NaNs with payloads (float32 keeps them): which NaN a sum keeps shows the order of the additions.
            const uint32_t bits = 0x7fc00000u | std::uniform_int_distribution<uint32_t>(0, 0x3fffff)(rng);
            std::memcpy(&value, &bits, sizeof value);
        } else if (roll < specialShare * 0.7) {
            value = -0.0f;
        } else if (roll < specialShare * 0.85) {
            value = inf;
        } else if (roll < specialShare)
            value = -inf;
        else
            value = std::ldexp(static_cast<float>(std::uniform_int_distribution<int>(-64, 64)(rng)),
                               scales[std::uniform_int_distribution<size_t>(0, 2)(rng)]);
    }
}

reference::BackwardResult IndexBackwardCase::expected() const {
    return reference::maxPool3dWithArgmaxBackward(gradOutput, indices, outputShape, inputShape);
}

std::vector<uint64_t> IndexBackwardCase::expectedBits() const {
    const reference::BackwardResult result = expected();
    std::vector<uint64_t> bits;
    if (!result.ok) return std::vector<uint64_t>(static_cast<size_t>(count(inputShape)), 0);
    for (float sum : result.accumulators) bits.push_back(reference::elementBits(sum, referenceType(type)));
    return bits;
}

std::string IndexBackwardCase::describe() const {
    std::ostringstream text;
    if (adaptive)
        text << "adaptive to [" << adaptiveOutput[0] << "," << adaptiveOutput[1] << "," << adaptiveOutput[2] << "] ";
    text << "type " << type << " index " << indexType << (layout == IndexLayout::ChannelsLast ? " channels-last" : "")
         << " self [" << inputShape[0] << "," << inputShape[1] << "," << inputShape[2] << "," << inputShape[3] << ","
         << inputShape[4] << "] kernel [" << params.kernel[0] << "," << params.kernel[1] << "," << params.kernel[2]
         << "] stride [" << params.stride[0] << "," << params.stride[1] << "," << params.stride[2] << "] padding ["
         << params.padding[0] << "," << params.padding[1] << "," << params.padding[2] << "] dilation ["
         << params.dilation[0] << "," << params.dilation[1] << "," << params.dilation[2] << "] ceil " << params.ceilMode
         << " seed " << seed;
    return text.str();
}

IndexBackwardRun runIndexBackward(const IndexBackwardCase &problem, const std::string &implementation) {
    const reference::ElementType valueType = referenceType(problem.type);
    TestTensor gradOutput = makeTensor(problem.outputShape, problem.type, problem.layout);
    TestTensor self = makeTensor(problem.inputShape, problem.type, problem.layout);
    TestTensor indices = makeTensor(problem.outputShape, problem.indexType, problem.layout);
    TestTensor gradInput = problem.gradInputOffset > 0 && problem.layout == IndexLayout::Contiguous
                               ? offsetContiguousTensor(problem.inputShape, problem.gradInputOffset, problem.type)
                               : makeTensor(problem.inputShape, problem.type, problem.layout);
    for (int64_t i = 0; i < count(problem.outputShape); ++i) {
        gradOutput.setBits(i, reference::elementBits(problem.gradOutput[static_cast<size_t>(i)], valueType));
        const int64_t index = problem.indices[static_cast<size_t>(i)];
        indices.setBits(i, problem.indexType == ACL_INT32 ? uint64_t{static_cast<uint32_t>(static_cast<int32_t>(index))}
                                                          : static_cast<uint64_t>(index));
    }
    gradInput.poison();
    MaxPool3dLists lists{listOf(problem.params.kernel), listOf(problem.params.stride), listOf(problem.params.padding),
                         listOf(problem.params.dilation), problem.params.ceilMode};
    IndexBackwardRun run;
    poolgradForceImplementation(implementation.empty() ? nullptr : implementation.c_str());
    if (problem.adaptive) {
        aclOpExecutor *executor = nullptr;
        run.status.phaseOne = aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput, self, indices, gradInput,
                                                                             &run.status.workspaceSize, &executor);
        if (run.status.phaseOne == 0)
            run.status.phaseTwo = runPhaseTwo(aclnnAdaptiveMaxPool3dBackward, run.status.workspaceSize, executor);
    } else {
        run.status = runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
    }
    poolgradForceImplementation(nullptr);
    run.message = aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "";
    if (run.status.phaseTwo != -1) {
        poolgradRunReport report{};
        poolgradGetLastRunReport(&report);
        run.implementation = report.implementation;
        run.plan = report.plan;
        run.fallback = report.fallback;
    }
    for (int64_t i = 0; i < gradInput.elementCount(); ++i) run.gradInputBits.push_back(gradInput.bitsAt(i));
    run.bytesOutsideViewChanged = gradInput.bytesOutsideViewChanged();
    return run;
}

bool sameGradInput(uint64_t expected, uint64_t actual, aclDataType type) {
    const reference::ElementType referenceTypeOf = referenceType(type);
    if (reference::elementIsNan(static_cast<uint32_t>(expected), referenceTypeOf))
        return reference::elementIsNan(static_cast<uint32_t>(actual), referenceTypeOf);
    return expected == actual;
}

IndexBackwardCase indexCaseOf(const IndexGeometry &geometry, aclDataType type, aclDataType indexType,
                              IndexLayout layout, uint64_t seed) {
    IndexBackwardCase problem;
    problem.inputShape = geometry.input;
    problem.params.kernel = geometry.kernel;
    problem.params.stride = geometry.stride;
    problem.params.padding = geometry.padding;
    problem.params.dilation = geometry.dilation;
    problem.params.ceilMode = geometry.ceilMode;
    problem.adaptive = geometry.adaptive;
    problem.adaptiveOutput = geometry.adaptiveOutput;
    problem.type = type;
    problem.indexType = indexType;
    problem.layout = layout;
    problem.seed = seed;
    problem.specialShare = seed % 2 == 0 ? 0.3 : 0.0;
    problem.prepare();
    for (size_t q = 3; q < problem.indices.size(); q += 11) problem.indices[q] = -1;
    return problem;
}

void expectGradInputBits(const std::vector<uint64_t> &expected, const IndexBackwardRun &run, aclDataType type,
                         bool nanBitsToo) {
    ASSERT_EQ(run.gradInputBits.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const bool same =
            nanBitsToo ? expected[i] == run.gradInputBits[i] : sameGradInput(expected[i], run.gradInputBits[i], type);
        ASSERT_TRUE(same) << "gradInput element " << i << ": expected bits 0x" << std::hex << expected[i] << ", got 0x"
                          << run.gradInputBits[i];
    }
    EXPECT_EQ(run.bytesOutsideViewChanged, 0);
}

void expectOwnRunMatchesReferences(const IndexBackwardCase &problem, const std::string &implementation) {
    const IndexBackwardRun run = runIndexBackward(problem, implementation);
    ASSERT_EQ(run.status.phaseOne, 0) << run.message;
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.implementation, implementation);
    EXPECT_EQ(run.fallback, "");
    expectGradInputBits(problem.expectedBits(), run, problem.type, false);
    const IndexBackwardRun scatter = runIndexBackward(problem, "cpu_index_scatter_backward_reference");
    ASSERT_EQ(scatter.status.phaseTwo, 0) << scatter.message;
    expectGradInputBits(scatter.gradInputBits, run, problem.type, true);
}

bool expectOwnRunMatchesReferencesIfTaken(const IndexBackwardCase &problem, const std::string &implementation) {
    if (runIndexBackward(problem, implementation).status.phaseOne == 561003) return false;
    expectOwnRunMatchesReferences(problem, implementation);
    return true;
}

void expectStrayIndexHandover(const IndexBackwardCase &problem, const IndexBackwardRun &run,
                              const std::string &implementation) {
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.implementation, implementation);
    EXPECT_EQ(run.fallback, "cpu_index_scatter_backward_reference: indices leave their own windows");
    expectGradInputBits(problem.expectedBits(), run, problem.type, false);
}

void expectBadIndexZeroes(const IndexBackwardRun &run, int64_t badIndex) {
    EXPECT_EQ(run.status.phaseTwo, 161002);
    EXPECT_NE(run.message.find(std::to_string(badIndex)), std::string::npos) << run.message;
    EXPECT_EQ(run.fallback, "cpu_index_scatter_backward_reference: an index outside its plane");
    for (uint64_t bits : run.gradInputBits) ASSERT_EQ(bits, 0u);
    EXPECT_EQ(run.bytesOutsideViewChanged, 0);
}

ThreadSetting::ThreadSetting(int threads, int64_t threshold) {
    poolgradSetNumThreads(threads);
    poolgradSetParallelThreshold(threshold);
}

ThreadSetting::~ThreadSetting() {
    poolgradSetNumThreads(0);
    poolgradSetParallelThreshold(0);
}

}  // namespace test_support
