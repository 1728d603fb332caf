// SPEC §3.6 / §11 #16: out-of-range indices in aclnnMaxPool3dWithArgmaxBackward. An index < -1 or >= D*H*W
// makes phase 2 return 161002 with a message naming the position and the value, and leaves gradInput
// entirely +0.0 without touching memory outside its view; -1 contributes nothing; a valid index outside
// its own window is still scattered. Every case runs with every implementation that accepts the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "support/test_tensor.h"

namespace {

using test_support::IntArray;
using test_support::TestTensor;

// self (2,3,2,4,4): 6 planes of D*H*W = 32; k = s = 2 → gradOutput/indices (2,3,1,2,2), 4 outputs per plane.
constexpr int64_t batch = 2, channels = 3, planes = batch * channels, planeElements = 32, outputsPerPlane = 4;
const std::vector<int64_t> inputShape{batch, channels, 2, 4, 4}, outputShape{batch, channels, 1, 2, 2};

enum class Layout { Contiguous, Strided };

struct Operands {
    TestTensor gradOutput, self, indices, gradInput;
};

Operands makeOperands(aclDataType valueType, aclDataType indexType, Layout layout) {
    if (layout == Layout::Contiguous)
        return {TestTensor(outputShape, valueType), TestTensor(inputShape, valueType),
                TestTensor(outputShape, indexType), TestTensor(inputShape, valueType)};
    // gradInput: gaps between every element, row and plane, an offset and slack after the view;
    // gradOutput channels-last; indices with gaps and an offset.
    return {TestTensor::permuted(outputShape, {0, 2, 3, 4, 1}, valueType),
            TestTensor(inputShape, {236, 77, 40, 9, 2}, 5, valueType),
            TestTensor(outputShape, {30, 10, 5, 3, 1}, 1, indexType, ACL_FORMAT_ND, 2),
            TestTensor(inputShape, {236, 77, 40, 9, 2}, 3, valueType, ACL_FORMAT_ND, 5)};
}

// A valid index inside output q's window of plane p (windows: d 0..1, h 2*oh.., w 2*ow..).
int64_t windowIndex(int64_t plane, int64_t q) {
    const int64_t oh = q / 2, ow = q % 2, pick = (plane + q) % 8;
    const int64_t d = pick / 4, h = 2 * oh + (pick / 2) % 2, w = 2 * ow + pick % 2;
    return d * 16 + h * 4 + w;
}

void setIndex(TestTensor &indices, int64_t flat, int64_t value) {
    if (indices.type() == ACL_INT32)
        indices.setBits(flat, static_cast<uint32_t>(static_cast<int32_t>(value)));
    else
        indices.setBits(flat, static_cast<uint64_t>(value));
}

int64_t getIndex(const TestTensor &indices, int64_t flat) {
    const uint64_t bits = indices.bitsAt(flat);
    return indices.type() == ACL_INT32 ? int64_t{static_cast<int32_t>(static_cast<uint32_t>(bits))}
                                       : static_cast<int64_t>(bits);
}

void fillValid(Operands &operands) {
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t q = 0; q < outputsPerPlane; ++q) {
            const int64_t flat = p * outputsPerPlane + q;
            operands.gradOutput.set(flat, 0.25 * double(flat + 1));
            setIndex(operands.indices, flat, windowIndex(p, q));
        }
}

// Expected gradInput: plain scatter, -1 skipped (all test values are exact in every dtype).
std::vector<double> expectedGradInput(const Operands &operands) {
    std::vector<double> expected(static_cast<size_t>(planes * planeElements), 0.0);
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t q = 0; q < outputsPerPlane; ++q) {
            const int64_t flat = p * outputsPerPlane + q, index = getIndex(operands.indices, flat);
            if (index == -1) continue;
            expected[static_cast<size_t>(p * planeElements + index)] += operands.gradOutput.at(flat);
        }
    return expected;
}

std::vector<uint64_t> allBits(const TestTensor &tensor) {
    std::vector<uint64_t> bits;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) bits.push_back(tensor.bitsAt(i));
    return bits;
}

struct RunOutcome {
    bool declined = false;  // the forced implementation declined the problem in phase 1 (561003)
    aclnnStatus phaseOne = -1;
    aclnnStatus phaseTwo = -1;
    std::string message;
};

RunOutcome runBackward(Operands &operands) {
    IntArray kernel({2, 2, 2}), stride({2, 2, 2}), padding({0}), dilation({1});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    RunOutcome outcome;
    outcome.phaseOne = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
        operands.gradOutput, operands.self, operands.indices, kernel, stride, padding, dilation, false,
        operands.gradInput, &workspaceSize, &executor);
    if (outcome.phaseOne == ACLNN_ERR_INNER_FIND_KERNEL_ERROR) {
        outcome.declined = true;
        return outcome;
    }
    if (outcome.phaseOne != ACLNN_SUCCESS) {
        outcome.message = aclGetRecentErrMsg();
        return outcome;
    }
    void *workspace = nullptr;
    if (workspaceSize > 0) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    outcome.phaseTwo = aclnnMaxPool3dWithArgmaxBackward(workspace, workspaceSize, executor, nullptr);
    outcome.message = aclGetRecentErrMsg();
    if (workspace) aclrtFree(workspace);
    return outcome;
}

// Names of all implementations, then "" (no forcing: the library's own choice).
std::vector<std::string> implementationsToTry() {
    std::vector<std::string> names;
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i) names.emplace_back(poolgradImplementationName(i));
    names.emplace_back("");
    return names;
}

class ForcedImplementation {
public:
    explicit ForcedImplementation(const std::string &name) {
        EXPECT_EQ(poolgradForceImplementation(name.empty() ? nullptr : name.c_str()), ACL_SUCCESS) << name;
    }
    ~ForcedImplementation() { poolgradForceImplementation(nullptr); }
    ForcedImplementation(const ForcedImplementation &) = delete;
    ForcedImplementation &operator=(const ForcedImplementation &) = delete;
};

using Param = std::tuple<aclDataType, aclDataType, Layout>;

class BadIndex : public ::testing::TestWithParam<Param> {
protected:
    aclDataType valueType() const { return std::get<0>(GetParam()); }
    aclDataType indexType() const { return std::get<1>(GetParam()); }
    Layout layout() const { return std::get<2>(GetParam()); }
    Operands make() const { return makeOperands(valueType(), indexType(), layout()); }

    std::vector<int64_t> badValues() const {
        std::vector<int64_t> values{-2, planeElements, std::numeric_limits<int32_t>::max(),
                                    std::numeric_limits<int32_t>::min()};
        if (indexType() == ACL_INT64) {
            values.push_back(int64_t{1} << 40);
            values.push_back(std::numeric_limits<int64_t>::max());
            values.push_back(std::numeric_limits<int64_t>::min());
        }
        return values;
    }
};

struct Position {
    const char *label;
    int64_t plane, q;
};
const Position positions[] = {{"first plane, first output", 0, 0},
                              {"middle plane", 3, 2},
                              {"last plane, last output", planes - 1, outputsPerPlane - 1}};

TEST_P(BadIndex, OutOfRangeIndexIs161002WithZeroGradInput) {
    int implementationsThatRan = 0;
    for (const std::string &implementation : implementationsToTry()) {
        ForcedImplementation force(implementation);
        bool ran = false;
        for (int64_t bad : badValues()) {
            std::set<std::string> messages;
            for (const Position &position : positions) {
                SCOPED_TRACE(testing::Message()
                             << "implementation '" << implementation << "', value " << bad << " at " << position.label);
                Operands operands = make();
                fillValid(operands);
                const int64_t flat = position.plane * outputsPerPlane + position.q;
                setIndex(operands.indices, flat, bad);
                const std::vector<uint64_t> gradOutputBefore = allBits(operands.gradOutput),
                                            indicesBefore = allBits(operands.indices);
                ASSERT_NE(operands.gradInput.bitsAt(0), 0u) << "gradInput must start poisoned";

                const RunOutcome outcome = runBackward(operands);
                if (outcome.declined) continue;
                ASSERT_EQ(outcome.phaseOne, ACLNN_SUCCESS) << "phase 1 never reads indices: " << outcome.message;
                ran = true;
                EXPECT_EQ(outcome.phaseTwo, ACLNN_ERR_PARAM_INVALID);
                EXPECT_NE(outcome.message.find(std::to_string(bad)), std::string::npos)
                    << "message does not name the value: " << outcome.message;
                EXPECT_NE(outcome.message.find("indices"), std::string::npos) << outcome.message;
                messages.insert(outcome.message);
                for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i) {
                    ASSERT_EQ(operands.gradInput.bitsAt(i), 0u)
                        << "gradInput element " << i << " is not +0.0 (value " << operands.gradInput.at(i) << ")";
                }
                EXPECT_EQ(operands.gradInput.bytesOutsideViewChanged(), 0) << "memory outside gradInput's view";
                EXPECT_EQ(operands.gradOutput.bytesOutsideViewChanged(), 0);
                EXPECT_EQ(operands.indices.bytesOutsideViewChanged(), 0);
                EXPECT_EQ(allBits(operands.gradOutput), gradOutputBefore) << "gradOutput was modified";
                EXPECT_EQ(allBits(operands.indices), indicesBefore) << "indices were modified";
            }
            if (!messages.empty()) {
                EXPECT_EQ(messages.size(), std::size(positions))
                    << "the message must name the position, so different positions give different messages";
            }
        }
        implementationsThatRan += ran;
    }
    EXPECT_GE(implementationsThatRan, 2) << "at least one forced implementation and the default must run";
}

TEST_P(BadIndex, TwoBadIndicesInDifferentPlanesAre161002WithZeroGradInput) {
    for (const std::string &implementation : implementationsToTry()) {
        SCOPED_TRACE("implementation '" + implementation + "'");
        ForcedImplementation force(implementation);
        Operands operands = make();
        fillValid(operands);
        setIndex(operands.indices, 1 * outputsPerPlane + 1, planeElements + 5);
        setIndex(operands.indices, 4 * outputsPerPlane + 0, -7);
        const RunOutcome outcome = runBackward(operands);
        if (outcome.declined) continue;
        ASSERT_EQ(outcome.phaseOne, ACLNN_SUCCESS) << outcome.message;
        EXPECT_EQ(outcome.phaseTwo, ACLNN_ERR_PARAM_INVALID);
        EXPECT_TRUE(outcome.message.find("37") != std::string::npos || outcome.message.find("-7") != std::string::npos)
            << outcome.message;
        for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i)
            ASSERT_EQ(operands.gradInput.bitsAt(i), 0u) << "element " << i;
        EXPECT_EQ(operands.gradInput.bytesOutsideViewChanged(), 0);
    }
}

TEST_P(BadIndex, MinusOneContributesNothing) {
    for (const std::string &implementation : implementationsToTry()) {
        SCOPED_TRACE("implementation '" + implementation + "'");
        ForcedImplementation force(implementation);
        Operands operands = make();
        fillValid(operands);
        for (const Position &position : positions)
            setIndex(operands.indices, position.plane * outputsPerPlane + position.q, -1);
        for (int64_t q = 0; q < outputsPerPlane; ++q)
            setIndex(operands.indices, 2 * outputsPerPlane + q, -1);  // a whole plane
        const RunOutcome outcome = runBackward(operands);
        if (outcome.declined) continue;
        ASSERT_EQ(outcome.phaseOne, ACLNN_SUCCESS) << outcome.message;
        ASSERT_EQ(outcome.phaseTwo, ACLNN_SUCCESS) << outcome.message;
        const std::vector<double> expected = expectedGradInput(operands);
        for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i) {
            EXPECT_EQ(operands.gradInput.at(i), expected[static_cast<size_t>(i)]) << "element " << i;
            if (expected[static_cast<size_t>(i)] == 0.0) {
                EXPECT_EQ(operands.gradInput.bitsAt(i), 0u) << "+0.0 at " << i;
            }
        }
        EXPECT_EQ(operands.gradInput.bytesOutsideViewChanged(), 0);
    }
}

TEST_P(BadIndex, ValidIndexOutsideItsWindowIsStillScattered) {
    for (const std::string &implementation : implementationsToTry()) {
        SCOPED_TRACE("implementation '" + implementation + "'");
        ForcedImplementation force(implementation);
        Operands operands = make();
        fillValid(operands);
        setIndex(operands.indices, 0, planeElements - 1);         // window 0 covers h,w < 2 only
        setIndex(operands.indices, 4 * outputsPerPlane + 3, 0);   // last window → first element
        setIndex(operands.indices, 5 * outputsPerPlane + 1, 24);  // d1 h2 w0: another window's element
        const RunOutcome outcome = runBackward(operands);
        if (outcome.declined) continue;
        ASSERT_EQ(outcome.phaseOne, ACLNN_SUCCESS) << outcome.message;
        ASSERT_EQ(outcome.phaseTwo, ACLNN_SUCCESS) << outcome.message;
        const std::vector<double> expected = expectedGradInput(operands);
        EXPECT_EQ(expected[planeElements - 1], 0.25) << "test set-up";
        for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i)
            EXPECT_EQ(operands.gradInput.at(i), expected[static_cast<size_t>(i)]) << "element " << i;
        EXPECT_EQ(operands.gradInput.bytesOutsideViewChanged(), 0);
    }
}

TEST_P(BadIndex, RepeatableExecutorRecoversWhenTheIndexIsFixed) {
    for (const std::string &implementation : implementationsToTry()) {
        SCOPED_TRACE("implementation '" + implementation + "'");
        ForcedImplementation force(implementation);
        Operands operands = make();
        fillValid(operands);
        const int64_t flat = 3 * outputsPerPlane + 1;
        setIndex(operands.indices, flat, planeElements);
        IntArray kernel({2, 2, 2}), stride({2, 2, 2}), padding({0}), dilation({1});
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        const aclnnStatus status = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
            operands.gradOutput, operands.self, operands.indices, kernel, stride, padding, dilation, false,
            operands.gradInput, &workspaceSize, &executor);
        if (status == ACLNN_ERR_INNER_FIND_KERNEL_ERROR) continue;
        ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
        ASSERT_EQ(workspaceSize, 0u);
        ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
        for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i)
            ASSERT_EQ(operands.gradInput.bitsAt(i), 0u) << "element " << i;
        setIndex(operands.indices, flat, windowIndex(3, 1));
        operands.gradInput.poison();
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        const std::vector<double> expected = expectedGradInput(operands);
        for (int64_t i = 0; i < operands.gradInput.elementCount(); ++i)
            EXPECT_EQ(operands.gradInput.at(i), expected[static_cast<size_t>(i)]) << "element " << i;
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    }
}

std::string paramName(const ::testing::TestParamInfo<Param> &info) {
    const auto typeName = [](aclDataType type) -> std::string {
        switch (type) {
            case ACL_FLOAT:
                return "Fp32";
            case ACL_FLOAT16:
                return "Fp16";
            case ACL_BF16:
                return "Bf16";
            case ACL_INT32:
                return "Int32";
            case ACL_INT64:
                return "Int64";
            default:
                return "Other";
        }
    };
    return typeName(std::get<0>(info.param)) + typeName(std::get<1>(info.param)) +
           (std::get<2>(info.param) == Layout::Contiguous ? "Contiguous" : "Strided");
}

INSTANTIATE_TEST_SUITE_P(AllTypesAndLayouts, BadIndex,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16),
                                            ::testing::Values(ACL_INT32, ACL_INT64),
                                            ::testing::Values(Layout::Contiguous, Layout::Strided)),
                         paramName);

}  // namespace
