// Randomized differential tests of aclnnMaxPool3dWithArgmax and aclnnMaxPool3dWithArgmaxBackward against the
// naive reference of tests/reference (written from SPEC only).
//
// Every case draws a fresh problem: dtype, index dtype, rank 4/5, kernel/stride/padding/dilation in every
// list-length form, ceilMode, odd and 1-sized axes, and for EVERY operand a storage layout (contiguous,
// channels-last, or padded strides with an offset). Each case runs through the default selection and through
// every implementation forced with poolgradForceImplementation (those that decline are skipped; one whose
// name contains "reference" must accept every problem). Forward values are compared bit for bit (NaN
// included), indices exactly; gradInput bit for bit (any NaN matches NaN). Outputs are poisoned before each
// run and must not change outside their view; inputs must not change at all.
//
// Seeds: a fixed list plus one fresh seed per test run (from std::random_device, or POOLGRAD_TEST_SEED when
// set, to reproduce a failure). The seed and the case number are printed with every failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_pooling.h"
#include "support/max_pool3d_run.h"
#include "support/test_tensor.h"

namespace {

using reference::ElementType;
using reference::Shape5;
using test_support::MaxPool3dLists;
using test_support::TestTensor;
using test_support::TwoPhaseStatus;

constexpr aclnnStatus kFindKernelError = 561003;
using Rng = std::mt19937_64;

// ------------------------------------------------------------------------------------------------ seeds

uint64_t freshSeed() {
    static const uint64_t seed = [] {
        if (const char *text = std::getenv("POOLGRAD_TEST_SEED")) return static_cast<uint64_t>(std::strtoull(text, nullptr, 0));
        std::random_device device;
        return (uint64_t(device()) << 32) ^ uint64_t(device());
    }();
    return seed;
}

std::vector<uint64_t> seeds(std::initializer_list<uint64_t> fixed) {
    std::vector<uint64_t> all(fixed);
    all.push_back(freshSeed());
    return all;
}

int64_t uniform(Rng &rng, int64_t low, int64_t high) {  // inclusive
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

bool chance(Rng &rng, double probability) { return std::uniform_real_distribution<double>(0, 1)(rng) < probability; }

// ------------------------------------------------------------------------------------------------ problems

ElementType elementType(aclDataType type) {
    return type == ACL_FLOAT ? ElementType::Float32 : type == ACL_FLOAT16 ? ElementType::Float16 : ElementType::BFloat16;
}

const char *typeName(aclDataType type) {
    switch (type) {
        case ACL_FLOAT: return "FLOAT";
        case ACL_FLOAT16: return "FLOAT16";
        case ACL_BF16: return "BF16";
        case ACL_INT32: return "INT32";
        case ACL_INT64: return "INT64";
        default: return "?";
    }
}

std::string listText(const std::vector<int64_t> &values) {
    std::ostringstream text;
    text << "[";
    for (size_t i = 0; i < values.size(); ++i) text << (i ? "," : "") << values[i];
    text << "]";
    return text.str();
}

struct Problem {
    int rank = 5;
    aclDataType type = ACL_FLOAT;
    aclDataType indexType = ACL_INT32;
    Shape5 inputShape{};
    Shape5 outputShape{};
    reference::Pool3dParams params;
    MaxPool3dLists lists;

    // The caller's view shape: rank 4 drops N (= 1).
    std::vector<int64_t> view(const Shape5 &shape) const {
        if (rank == 5) return {shape.begin(), shape.end()};
        return {shape.begin() + 1, shape.end()};
    }
    int64_t planes() const { return inputShape[0] * inputShape[1]; }
    int64_t planeIn() const { return inputShape[2] * inputShape[3] * inputShape[4]; }
    int64_t planeOut() const { return outputShape[2] * outputShape[3] * outputShape[4]; }

    std::string describe() const {
        std::ostringstream text;
        text << typeName(type) << "/" << typeName(indexType) << " self " << listText(view(inputShape)) << " -> "
             << listText(view(outputShape)) << " kernel " << listText(lists.kernel) << " stride "
             << listText(lists.stride) << " padding " << listText(lists.padding) << " dilation "
             << listText(lists.dilation) << " ceilMode " << (lists.ceilMode ? "true" : "false");
        return text.str();
    }
};

struct ProblemLimits {
    int64_t maxBatch = 2;
    int64_t maxChannels = 3;
    int64_t maxExtra = 5;  // input axis = smallest valid size + [0, maxExtra]
};

Problem randomProblem(Rng &rng, const ProblemLimits &limits = {}) {
    Problem problem;
    problem.rank = chance(rng, 0.5) ? 5 : 4;
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    problem.type = types[uniform(rng, 0, 2)];
    problem.indexType = chance(rng, 0.5) ? ACL_INT32 : ACL_INT64;
    auto &p = problem.params;
    auto &lists = problem.lists;

    // kernelSize: length 1 or 3, values 1..4.
    if (chance(rng, 0.3)) {
        p.kernel.fill(uniform(rng, 1, 4));
        lists.kernel = {p.kernel[0]};
    } else {
        for (auto &k : p.kernel) k = uniform(rng, 1, 4);
        lists.kernel = {p.kernel.begin(), p.kernel.end()};
    }
    // stride: length 0 (= kernel), 1 or 3, values 1..3.
    switch (uniform(rng, 0, 2)) {
        case 0:
            p.stride = p.kernel;
            lists.stride = {};
            break;
        case 1:
            p.stride.fill(uniform(rng, 1, 3));
            lists.stride = {p.stride[0]};
            break;
        default:
            for (auto &s : p.stride) s = uniform(rng, 1, 3);
            lists.stride = {p.stride.begin(), p.stride.end()};
    }
    // padding: length 1 or 3, 0 <= p <= floor(k/2) on every axis.
    if (chance(rng, 0.4)) {
        const int64_t limit = std::min({p.kernel[0], p.kernel[1], p.kernel[2]}) / 2;
        p.padding.fill(uniform(rng, 0, limit));
        lists.padding = {p.padding[0]};
    } else {
        for (int a = 0; a < 3; ++a) p.padding[a] = uniform(rng, 0, p.kernel[a] / 2);
        lists.padding = {p.padding.begin(), p.padding.end()};
    }
    // dilation: length 1 or 3, values 1..3 (1 half of the time).
    if (chance(rng, 0.5)) {
        p.dilation.fill(chance(rng, 0.5) ? 1 : uniform(rng, 2, 3));
        lists.dilation = {p.dilation[0]};
    } else {
        for (auto &d : p.dilation) d = chance(rng, 0.5) ? 1 : uniform(rng, 2, 3);
        lists.dilation = {p.dilation.begin(), p.dilation.end()};
    }
    p.ceilMode = lists.ceilMode = chance(rng, 0.5);

    problem.inputShape[0] = problem.rank == 5 ? uniform(rng, 1, limits.maxBatch) : 1;
    problem.inputShape[1] = uniform(rng, 1, limits.maxChannels);
    for (int a = 0; a < 3; ++a) {
        int64_t smallest = 1;
        while (reference::pooledSize(smallest, p.kernel[a], p.stride[a], p.padding[a], p.dilation[a], p.ceilMode) < 1)
            ++smallest;
        problem.inputShape[2 + a] = chance(rng, 0.15) ? smallest : smallest + uniform(rng, 0, limits.maxExtra);
    }
    problem.outputShape = reference::pooledShape(problem.inputShape, p);
    return problem;
}

// ------------------------------------------------------------------------------------------------ operands

// Padded: strides larger than dense on random axes (rows, planes, ...), sometimes a gap between elements;
// PlaneGapped: dense (n,c) planes with a gap after every plane (what a dense-plane kernel accepts), both with an
// offset and slack after the last element, so that a write past any plane lands in watched storage.
enum class Layout { Contiguous, ChannelsLast, Padded, PlaneGapped };
constexpr int kLayoutCount = 4;

struct Operand {
    TestTensor tensor;
    std::string description;
};

// An operand of the given view shape in the given storage layout.
Operand makeOperand(Rng &rng, const std::vector<int64_t> &shape, aclDataType type, aclFormat format, Layout layout) {
    std::ostringstream text;
    if (layout == Layout::Contiguous) {
        text << "contiguous";
        return {TestTensor(shape, type, format), text.str()};
    }
    if (layout == Layout::ChannelsLast) {
        const std::vector<int> order = shape.size() == 5 ? std::vector<int>{0, 2, 3, 4, 1} : std::vector<int>{1, 2, 3, 0};
        TestTensor tensor = TestTensor::permuted(shape, order, type, format);
        text << "channels-last strides " << listText(tensor.strides());
        return {std::move(tensor), text.str()};
    }
    std::vector<int64_t> strides(shape.size());
    if (layout == Layout::Padded) {  // every stride at least the dense one, random gaps
        int64_t running = chance(rng, 0.7) ? 1 : 2;
        for (size_t i = shape.size(); i-- > 0;) {
            strides[i] = running;
            running = running * std::max<int64_t>(shape[i], 1) + (chance(rng, 0.5) ? 0 : uniform(rng, 1, 3));
        }
        text << "padded";
    } else {  // PlaneGapped
        int64_t running = 1;
        const size_t channelAxis = shape.size() - 4;
        for (size_t i = shape.size(); i-- > 0;) {
            strides[i] = running;
            running = running * std::max<int64_t>(shape[i], 1) + (i == channelAxis + 1 ? uniform(rng, 1, 5) : 0);
        }
        text << "plane-gapped";
    }
    const int64_t offset = uniform(rng, 1, 9), slack = uniform(rng, 1, 4);
    text << " strides " << listText(strides) << " offset " << offset;
    return {TestTensor(shape, strides, offset, type, format, slack), text.str()};
}

// An operand of the given view shape in a random storage layout.
Operand makeOperand(Rng &rng, const std::vector<int64_t> &shape, aclDataType type, aclFormat format) {
    return makeOperand(rng, shape, type, format, static_cast<Layout>(uniform(rng, 0, kLayoutCount - 1)));
}

// ------------------------------------------------------------------------------------------------ data

enum class DataMode { TieHeavy, Special, Plain };
const char *dataModeName(DataMode mode) {
    return mode == DataMode::TieHeavy ? "tie-heavy" : mode == DataMode::Special ? "NaN/Inf/-0 sprinkled" : "plain";
}

uint32_t quietNanBits(Rng &rng, ElementType type) {
    const bool negative = chance(rng, 0.5);
    const bool payload = chance(rng, 0.3);
    switch (type) {
        case ElementType::Float32:
            return (negative ? 0x80000000u : 0u) | 0x7FC00000u | (payload ? uint32_t(uniform(rng, 1, 0x3FFFFF)) : 0u);
        case ElementType::Float16:
            return (negative ? 0x8000u : 0u) | 0x7E00u | (payload ? uint32_t(uniform(rng, 1, 0x1FF)) : 0u);
        case ElementType::BFloat16:
            return (negative ? 0x8000u : 0u) | 0x7FC0u | (payload ? uint32_t(uniform(rng, 1, 0x3F)) : 0u);
    }
    return 0;
}

// Bits of one random element.
uint32_t randomElement(Rng &rng, ElementType type, DataMode mode, double plainMagnitude = 1000.0) {
    const float inf = std::numeric_limits<float>::infinity();
    switch (mode) {
        case DataMode::TieHeavy: {
            const int64_t value = uniform(rng, -2, 2);
            if (value == 0 && chance(rng, 0.5)) return reference::elementBits(-0.0f, type);
            return reference::elementBits(static_cast<float>(value), type);
        }
        case DataMode::Special: {
            const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
            if (roll < 0.05) return quietNanBits(rng, type);
            if (roll < 0.10) return reference::elementBits(inf, type);
            if (roll < 0.15) return reference::elementBits(-inf, type);
            if (roll < 0.20) return reference::elementBits(-0.0f, type);
            if (roll < 0.25) return reference::elementBits(0.0f, type);
            return reference::elementBits(static_cast<float>(std::uniform_real_distribution<double>(-10, 10)(rng)), type);
        }
        case DataMode::Plain:
            return reference::elementBits(
                static_cast<float>(std::uniform_real_distribution<double>(-plainMagnitude, plainMagnitude)(rng)), type);
    }
    return 0;
}

std::vector<uint32_t> randomElements(Rng &rng, int64_t count, ElementType type, DataMode mode) {
    std::vector<uint32_t> bits(static_cast<size_t>(count));
    for (auto &b : bits) b = randomElement(rng, type, mode);
    return bits;
}

std::vector<float> widen(const std::vector<uint32_t> &bits, ElementType type) {
    std::vector<float> values(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) values[i] = reference::elementValue(bits[i], type);
    return values;
}

void store(TestTensor &tensor, const std::vector<uint32_t> &bits) {
    for (size_t i = 0; i < bits.size(); ++i) tensor.setBits(static_cast<int64_t>(i), bits[i]);
}

void storeIndices(TestTensor &tensor, const std::vector<int64_t> &indices) {
    for (size_t i = 0; i < indices.size(); ++i) tensor.set(static_cast<int64_t>(i), static_cast<double>(indices[i]));
}

// ------------------------------------------------------------------------------------------------ checks

std::string hex(uint64_t bits) {
    std::ostringstream text;
    text << "0x" << std::hex << bits;
    return text.str();
}

// Exact bit comparison of a floating output; `nanMatchesNan` lets any NaN match an expected NaN.
testing::AssertionResult bitsMatch(const TestTensor &tensor, const std::vector<uint32_t> &expected, ElementType type,
                                   bool nanMatchesNan, const char *what) {
    if (tensor.elementCount() != static_cast<int64_t>(expected.size()))
        return testing::AssertionFailure() << what << ": element count differs";
    int64_t mismatches = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const uint32_t got = static_cast<uint32_t>(tensor.bitsAt(i)), want = expected[static_cast<size_t>(i)];
        bool same = got == want;
        if (!same && nanMatchesNan && reference::elementIsNan(want, type)) same = reference::elementIsNan(got, type);
        if (!same && mismatches++ < 5)
            first << "\n  " << what << "[" << i << "]: got " << hex(got) << " (" << reference::elementValue(got, type)
                  << "), expected " << hex(want) << " (" << reference::elementValue(want, type) << ")";
    }
    if (mismatches == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << mismatches << " of " << tensor.elementCount() << " elements differ"
                                       << first.str();
}

testing::AssertionResult indicesMatch(const TestTensor &tensor, const std::vector<int64_t> &expected) {
    int64_t mismatches = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const double got = tensor.at(i);
        if (got != static_cast<double>(expected[static_cast<size_t>(i)]) && mismatches++ < 5)
            first << "\n  indices[" << i << "]: got " << got << ", expected " << expected[static_cast<size_t>(i)];
    }
    if (mismatches == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << mismatches << " of " << tensor.elementCount() << " indices differ"
                                       << first.str();
}

testing::AssertionResult unchanged(const TestTensor &tensor, const std::vector<uint64_t> &bits, const char *what) {
    for (int64_t i = 0; i < tensor.elementCount(); ++i)
        if (tensor.bitsAt(i) != bits[static_cast<size_t>(i)])
            return testing::AssertionFailure() << "input " << what << "[" << i << "] was modified";
    if (tensor.bytesOutsideViewChanged() != 0)
        return testing::AssertionFailure() << "storage of input " << what << " outside its view was modified";
    return testing::AssertionSuccess();
}

std::vector<uint64_t> snapshot(const TestTensor &tensor) {
    std::vector<uint64_t> bits(static_cast<size_t>(tensor.elementCount()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) bits[static_cast<size_t>(i)] = tensor.bitsAt(i);
    return bits;
}

// ------------------------------------------------------------------------------------------------ implementations

// Resets the forced implementation and the thread count however the test ends.
struct LibraryControlsGuard {
    ~LibraryControlsGuard() {
        poolgradForceImplementation(nullptr);
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
    }
};

// "" (the default selection) followed by every implementation of the task ("argmax-forward" or
// "index-scatter-backward"); forcing one of another task would not restrict the call.
std::vector<std::string> implementationChoices(const std::string &task) {
    std::vector<std::string> names{""};
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i)
        if (task == poolgradImplementationTask(i)) names.emplace_back(poolgradImplementationName(i));
    return names;
}

bool isReference(const std::string &name) { return name.find("reference") != std::string::npos; }

struct AcceptanceLog {
    std::map<std::string, int> accepted;
    int cases = 0;
    void print(const char *test) const {
        std::cout << "[ info     ] " << test << ": " << cases << " cases;";
        for (const auto &[name, count] : accepted) std::cout << " " << (name.empty() ? "<default>" : name) << "=" << count;
        std::cout << std::endl;
    }
};

// ------------------------------------------------------------------------------------------------ forward

struct ForwardCase {
    Problem problem;
    DataMode mode = DataMode::Plain;
    std::vector<uint32_t> inputBits;
    reference::ForwardResult expected;
    std::vector<uint32_t> expectedBits;  // the selected input element's own bits, -inf for an empty window
    int64_t emptyWindows = 0;
};

void computeForwardExpectation(ForwardCase &c) {
    const ElementType type = elementType(c.problem.type);
    c.expected = reference::maxPool3dWithArgmax(widen(c.inputBits, type), c.problem.inputShape, c.problem.params);
    c.expectedBits.assign(c.expected.indices.size(), 0);
    c.emptyWindows = 0;
    const int64_t Q = c.problem.planeOut(), P = c.problem.planeIn();
    for (size_t o = 0; o < c.expected.indices.size(); ++o) {
        const int64_t index = c.expected.indices[o];
        if (index < 0) {
            ++c.emptyWindows;
            c.expectedBits[o] = reference::elementBits(-std::numeric_limits<float>::infinity(), type);
            continue;
        }
        const int64_t plane = static_cast<int64_t>(o) / Q;
        c.expectedBits[o] = c.inputBits[static_cast<size_t>(plane * P + index)];
        // Self-check of the reference: the value it reports is the element it points at.
        const float value = c.expected.values[o];
        if (!std::isnan(value)) {
            EXPECT_EQ(reference::elementBits(value, type), c.expectedBits[o]);
        } else {
            EXPECT_TRUE(reference::elementIsNan(c.expectedBits[o], type));
        }
    }
}

ForwardCase randomForwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    ForwardCase c;
    c.problem = randomProblem(rng, limits);
    c.mode = static_cast<DataMode>(uniform(rng, 0, 2));
    c.inputBits = randomElements(rng, c.problem.planes() * c.problem.planeIn(), elementType(c.problem.type), c.mode);
    computeForwardExpectation(c);
    return c;
}

aclFormat randomForwardFormat(Rng &rng) {
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW};
    return formats[uniform(rng, 0, 2)];
}

struct ForwardOperands {
    Operand self, out, indices;
    aclFormat format;
};

ForwardOperands makeForwardOperands(Rng &rng, const ForwardCase &c) {
    const aclFormat format = randomForwardFormat(rng);
    const Problem &p = c.problem;
    ForwardOperands operands{makeOperand(rng, p.view(p.inputShape), p.type, format),
                             makeOperand(rng, p.view(p.outputShape), p.type, format),
                             makeOperand(rng, p.view(p.outputShape), p.indexType, format), format};
    store(operands.self.tensor, c.inputBits);
    return operands;
}

// Runs one forward case with the implementation `name` ("" = default). Returns false when a forced
// implementation declined it (561003); any other failure is reported through gtest.
bool runForwardAndCheck(const ForwardCase &c, ForwardOperands &operands, const std::string &name) {
    SCOPED_TRACE("implementation " + (name.empty() ? std::string("<default>") : name));
    EXPECT_EQ(poolgradForceImplementation(name.empty() ? nullptr : name.c_str()), ACL_SUCCESS);
    const std::vector<uint64_t> selfBefore = snapshot(operands.self.tensor);
    operands.out.tensor.poison();
    operands.indices.tensor.poison();
    const TwoPhaseStatus status =
        test_support::runMaxPool3dWithArgmax(operands.self.tensor, c.problem.lists, operands.out.tensor,
                                             operands.indices.tensor);
    poolgradForceImplementation(nullptr);
    if (!name.empty() && status.phaseOne == kFindKernelError) {
        EXPECT_FALSE(status.executorReturned);
        return false;
    }
    EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    if (status.phaseOne != 0 || status.phaseTwo != 0) return true;
    const ElementType type = elementType(c.problem.type);
    EXPECT_TRUE(bitsMatch(operands.out.tensor, c.expectedBits, type, /*nanMatchesNan=*/false, "out"));
    EXPECT_TRUE(indicesMatch(operands.indices.tensor, c.expected.indices));
    EXPECT_EQ(operands.out.tensor.bytesOutsideViewChanged(), 0) << "out written outside its view";
    EXPECT_EQ(operands.indices.tensor.bytesOutsideViewChanged(), 0) << "indices written outside its view";
    EXPECT_TRUE(unchanged(operands.self.tensor, selfBefore, "self"));
    return true;
}

std::string forwardTrace(const ForwardCase &c, const ForwardOperands &operands) {
    return c.problem.describe() + ", data " + dataModeName(c.mode) + "; self " + operands.self.description +
           "; out " + operands.out.description + "; indices " + operands.indices.description;
}

TEST(MaxPool3dDifferential, ForwardMatchesReferenceOnEveryImplementation) {
    LibraryControlsGuard guard;
    const std::vector<std::string> choices = implementationChoices("argmax-forward");
    AcceptanceLog log;
    int64_t emptyWindows = 0, casesWithEmptyWindows = 0, casesWithUnitAxis = 0;
    // Every fourth case has up to 40 channels: the channels-last kernels vectorise across C, and need
    // full vectors (8 or 16 lanes) plus a remainder to be tested.
    ProblemLimits wideChannels;
    wideChannels.maxBatch = 1;
    wideChannels.maxChannels = 40;
    wideChannels.maxExtra = 3;
    for (uint64_t seed : seeds({1, 2, 3, 4})) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with POOLGRAD_TEST_SEED=" + std::to_string(seed) + ")");
        Rng rng(seed);
        for (int n = 0; n < 100; ++n) {
            const ForwardCase c = randomForwardCase(rng, n % 4 == 3 ? wideChannels : ProblemLimits{});
            ForwardOperands operands = makeForwardOperands(rng, c);
            SCOPED_TRACE("case " + std::to_string(n) + ": " + forwardTrace(c, operands));
            emptyWindows += c.emptyWindows;
            casesWithEmptyWindows += c.emptyWindows > 0;
            casesWithUnitAxis += std::count(c.problem.inputShape.begin() + 2, c.problem.inputShape.end(), 1) > 0;
            ++log.cases;
            bool referenceAccepted = false;
            for (const std::string &name : choices) {
                if (!runForwardAndCheck(c, operands, name)) continue;
                ++log.accepted[name];
                referenceAccepted = referenceAccepted || isReference(name);
            }
            EXPECT_TRUE(referenceAccepted) << "no implementation named *reference* accepted the problem";
            if (testing::Test::HasFailure()) return;  // one reproducible failure is enough
        }
    }
    log.print("forward");
    std::cout << "[ info     ] forward: " << emptyWindows << " empty windows in " << casesWithEmptyWindows
              << " cases; " << casesWithUnitAxis << " cases with a spatial axis of size 1" << std::endl;
}

// ------------------------------------------------------------------------------------------------ backward

enum class IndexMode { FromForward, UniformWithMinusOne };
enum class GradMode { Plain, SmallIntegers, WithSpecials, Large };

struct BackwardCase {
    Problem problem;
    IndexMode indexMode = IndexMode::FromForward;
    GradMode gradMode = GradMode::Plain;
    std::vector<uint32_t> gradOutputBits;
    std::vector<int64_t> indices;
    std::vector<uint32_t> expectedBits;
};

const char *indexModeName(IndexMode mode) {
    return mode == IndexMode::FromForward ? "indices from forward" : "uniform random indices with -1";
}
const char *gradModeName(GradMode mode) {
    switch (mode) {
        case GradMode::Plain: return "plain gradOutput";
        case GradMode::SmallIntegers: return "small-integer gradOutput";
        case GradMode::WithSpecials: return "gradOutput with Inf/NaN";
        case GradMode::Large: return "large gradOutput (overflow)";
    }
    return "?";
}

uint32_t randomGradient(Rng &rng, ElementType type, GradMode mode) {
    switch (mode) {
        case GradMode::Plain: return randomElement(rng, type, DataMode::Plain, 4.0);
        case GradMode::SmallIntegers:
            return reference::elementBits(static_cast<float>(uniform(rng, -3, 3)), type);
        case GradMode::WithSpecials: return randomElement(rng, type, DataMode::Special);
        case GradMode::Large: {
            const double magnitude = type == ElementType::Float16 ? 60000.0 : 3.0e38;
            const double value = std::uniform_real_distribution<double>(magnitude / 4, magnitude)(rng);
            return reference::elementBits(static_cast<float>(chance(rng, 0.8) ? value : -value), type);
        }
    }
    return 0;
}

void computeBackwardExpectation(BackwardCase &c) {
    const ElementType type = elementType(c.problem.type);
    const reference::BackwardResult result = reference::maxPool3dWithArgmaxBackward(
        widen(c.gradOutputBits, type), c.indices, c.problem.outputShape, c.problem.inputShape);
    ASSERT_TRUE(result.ok) << "test bug: generated an invalid index";
    c.expectedBits.resize(result.accumulators.size());
    for (size_t i = 0; i < result.accumulators.size(); ++i)
        c.expectedBits[i] = reference::elementBits(result.accumulators[i], type);
}

BackwardCase randomBackwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    BackwardCase c;
    c.problem = randomProblem(rng, limits);
    const ElementType type = elementType(c.problem.type);
    c.indexMode = chance(rng, 0.5) ? IndexMode::FromForward : IndexMode::UniformWithMinusOne;
    c.gradMode = static_cast<GradMode>(uniform(rng, 0, 3));
    const int64_t outputs = c.problem.planes() * c.problem.planeOut();
    if (c.indexMode == IndexMode::FromForward) {
        const DataMode dataMode = static_cast<DataMode>(uniform(rng, 0, 2));
        const std::vector<uint32_t> input =
            randomElements(rng, c.problem.planes() * c.problem.planeIn(), type, dataMode);
        c.indices = reference::maxPool3dWithArgmax(widen(input, type), c.problem.inputShape, c.problem.params).indices;
    } else {
        c.indices.resize(static_cast<size_t>(outputs));
        for (auto &index : c.indices) index = chance(rng, 0.1) ? -1 : uniform(rng, 0, c.problem.planeIn() - 1);
    }
    c.gradOutputBits.resize(static_cast<size_t>(outputs));
    for (auto &bits : c.gradOutputBits) bits = randomGradient(rng, type, c.gradMode);
    computeBackwardExpectation(c);
    return c;
}

struct BackwardOperands {
    Operand gradOutput, self, indices, gradInput;
};

BackwardOperands makeBackwardOperands(Rng &rng, const BackwardCase &c) {
    // Formats are only tags for the backward (SPEC §4, §11 #20): self/gradOutput/gradInput share one, indices any.
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCHW};
    const aclFormat format = formats[uniform(rng, 0, 3)], indexFormat = formats[uniform(rng, 0, 3)];
    const Problem &p = c.problem;
    BackwardOperands operands{makeOperand(rng, p.view(p.outputShape), p.type, format),
                              makeOperand(rng, p.view(p.inputShape), p.type, format),
                              makeOperand(rng, p.view(p.outputShape), p.indexType, indexFormat),
                              makeOperand(rng, p.view(p.inputShape), p.type, format)};
    store(operands.gradOutput.tensor, c.gradOutputBits);
    storeIndices(operands.indices.tensor, c.indices);
    // self stays poisoned: its data is never read (SPEC §3.6).
    return operands;
}

std::string backwardTrace(const BackwardCase &c, const BackwardOperands &operands) {
    return c.problem.describe() + ", " + indexModeName(c.indexMode) + ", " + gradModeName(c.gradMode) +
           "; gradOutput " + operands.gradOutput.description + "; self " + operands.self.description + "; indices " +
           operands.indices.description + "; gradInput " + operands.gradInput.description;
}

bool runBackwardAndCheck(const BackwardCase &c, BackwardOperands &operands, const std::string &name) {
    SCOPED_TRACE("implementation " + (name.empty() ? std::string("<default>") : name));
    EXPECT_EQ(poolgradForceImplementation(name.empty() ? nullptr : name.c_str()), ACL_SUCCESS);
    const std::vector<uint64_t> gradOutputBefore = snapshot(operands.gradOutput.tensor),
                                indicesBefore = snapshot(operands.indices.tensor),
                                selfBefore = snapshot(operands.self.tensor);
    operands.gradInput.tensor.poison();
    const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
        operands.gradOutput.tensor, operands.self.tensor, operands.indices.tensor, c.problem.lists,
        operands.gradInput.tensor);
    poolgradForceImplementation(nullptr);
    if (!name.empty() && status.phaseOne == kFindKernelError) {
        EXPECT_FALSE(status.executorReturned);
        return false;
    }
    EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    if (status.phaseOne != 0 || status.phaseTwo != 0) return true;
    EXPECT_TRUE(bitsMatch(operands.gradInput.tensor, c.expectedBits, elementType(c.problem.type),
                          /*nanMatchesNan=*/true, "gradInput"));
    EXPECT_EQ(operands.gradInput.tensor.bytesOutsideViewChanged(), 0) << "gradInput written outside its view";
    EXPECT_TRUE(unchanged(operands.gradOutput.tensor, gradOutputBefore, "gradOutput"));
    EXPECT_TRUE(unchanged(operands.indices.tensor, indicesBefore, "indices"));
    EXPECT_TRUE(unchanged(operands.self.tensor, selfBefore, "self"));
    return true;
}

TEST(MaxPool3dDifferential, BackwardMatchesReferenceOnEveryImplementation) {
    LibraryControlsGuard guard;
    const std::vector<std::string> choices = implementationChoices("index-scatter-backward");
    AcceptanceLog log;
    for (uint64_t seed : seeds({11, 12, 13, 14})) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with POOLGRAD_TEST_SEED=" + std::to_string(seed) + ")");
        Rng rng(seed);
        for (int n = 0; n < 100; ++n) {
            const BackwardCase c = randomBackwardCase(rng);
            BackwardOperands operands = makeBackwardOperands(rng, c);
            SCOPED_TRACE("case " + std::to_string(n) + ": " + backwardTrace(c, operands));
            ++log.cases;
            bool referenceAccepted = false;
            for (const std::string &name : choices) {
                if (!runBackwardAndCheck(c, operands, name)) continue;
                ++log.accepted[name];
                referenceAccepted = referenceAccepted || isReference(name);
            }
            EXPECT_TRUE(referenceAccepted) << "no implementation named *reference* accepted the problem";
            if (testing::Test::HasFailure()) return;
        }
    }
    log.print("backward");
}

TEST(MaxPool3dDifferential, BackwardOfTheLibraryForwardMatchesReference) {
    // The realistic chain: the library's own forward produces the indices fed to its backward.
    Rng rng(freshSeed() ^ 0x5eedULL);
    SCOPED_TRACE("seed " + std::to_string(freshSeed()) + " (rerun with POOLGRAD_TEST_SEED)");
    for (int n = 0; n < 40; ++n) {
        const ForwardCase forward = randomForwardCase(rng);
        ForwardOperands forwardOperands = makeForwardOperands(rng, forward);
        SCOPED_TRACE("case " + std::to_string(n) + ": " + forwardTrace(forward, forwardOperands));
        ASSERT_TRUE(runForwardAndCheck(forward, forwardOperands, ""));
        BackwardCase c;
        c.problem = forward.problem;
        c.indices = forward.expected.indices;
        c.gradMode = GradMode::Plain;
        c.gradOutputBits.resize(c.indices.size());
        for (auto &bits : c.gradOutputBits) bits = randomGradient(rng, elementType(c.problem.type), c.gradMode);
        computeBackwardExpectation(c);
        TestTensor gradOutput(c.problem.view(c.problem.outputShape), c.problem.type, forwardOperands.format);
        store(gradOutput, c.gradOutputBits);
        TestTensor gradInput(c.problem.view(c.problem.inputShape), c.problem.type, forwardOperands.format);
        // The forward's own self and indices tensors (in their random layouts) are fed to the backward.
        const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
            gradOutput, forwardOperands.self.tensor, forwardOperands.indices.tensor, c.problem.lists, gradInput);
        ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
        ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(bitsMatch(gradInput, c.expectedBits, elementType(c.problem.type), true, "gradInput"));
        if (testing::Test::HasFailure()) return;
    }
}

// ------------------------------------------------------------------------------------------------ threads

TEST(MaxPool3dDifferential, ResultsAreBitIdenticalForOneTwoAndThreeThreads) {
    LibraryControlsGuard guard;
    // Even these small problems must really be split between the threads.
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    const std::vector<std::string> forwardChoices = implementationChoices("argmax-forward");
    const std::vector<std::string> backwardChoices = implementationChoices("index-scatter-backward");
    std::vector<std::string> choices = forwardChoices;
    choices.insert(choices.end(), backwardChoices.begin() + 1, backwardChoices.end());  // "" only once
    const auto among = [](const std::vector<std::string> &list, const std::string &name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    ProblemLimits limits;
    limits.maxBatch = 3;
    limits.maxChannels = 4;  // up to 12 planes, so that planes are split between threads
    for (uint64_t seed : seeds({21, 22})) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with POOLGRAD_TEST_SEED=" + std::to_string(seed) + ")");
        Rng rng(seed);
        for (int n = 0; n < 25; ++n) {
            const ForwardCase forward = randomForwardCase(rng, limits);
            ForwardOperands forwardOperands = makeForwardOperands(rng, forward);
            const BackwardCase backward = randomBackwardCase(rng, limits);
            BackwardOperands backwardOperands = makeBackwardOperands(rng, backward);
            SCOPED_TRACE("case " + std::to_string(n) + ": forward " + forwardTrace(forward, forwardOperands) +
                         " | backward " + backwardTrace(backward, backwardOperands));
            for (const std::string &name : choices) {
                std::vector<uint64_t> firstOut, firstIndices, firstGradInput;
                bool forwardAccepted = false, backwardAccepted = false;
                for (int32_t threads : {1, 2, 3}) {
                    SCOPED_TRACE("threads " + std::to_string(threads));
                    ASSERT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
                    ASSERT_EQ(poolgradGetNumThreads(), threads);
                    // Each run is also checked against the reference.
                    if (among(forwardChoices, name) && runForwardAndCheck(forward, forwardOperands, name)) {
                        forwardAccepted = true;
                        if (threads == 1) {
                            firstOut = snapshot(forwardOperands.out.tensor);
                            firstIndices = snapshot(forwardOperands.indices.tensor);
                        } else {
                            EXPECT_EQ(snapshot(forwardOperands.out.tensor), firstOut);
                            EXPECT_EQ(snapshot(forwardOperands.indices.tensor), firstIndices);
                        }
                    }
                    if (among(backwardChoices, name) && runBackwardAndCheck(backward, backwardOperands, name)) {
                        backwardAccepted = true;
                        if (threads == 1) {
                            firstGradInput = snapshot(backwardOperands.gradInput.tensor);
                        } else {
                            EXPECT_EQ(snapshot(backwardOperands.gradInput.tensor), firstGradInput);
                        }
                    }
                }
                if (name.empty()) {
                    EXPECT_TRUE(forwardAccepted && backwardAccepted);
                }
            }
            if (testing::Test::HasFailure()) return;
        }
    }
    EXPECT_EQ(poolgradSetNumThreads(0), ACL_SUCCESS);
}

// ------------------------------------------------------------------------------------------------ directed

TEST(MaxPool3dDirected, EmptyWindowGivesMinusInfinityAndMinusOneAndBackwardSkipsIt) {
    // SPEC §3.4: W = 1, k = 2, s = 2, p = 1, d = 3, ceilMode: one output whose window {-1, 2} misses the input.
    const MaxPool3dLists lists{{1, 1, 2}, {1, 1, 2}, {0, 0, 1}, {1, 1, 3}, true};
    ASSERT_EQ(reference::pooledSize(1, 2, 2, 1, 3, true), 1);
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            SCOPED_TRACE(std::string(typeName(type)) + "/" + typeName(indexType));
            TestTensor self({1, 1, 1, 1, 1}, type);
            self.set(0, 5.0);
            TestTensor out({1, 1, 1, 1, 1}, type), indices({1, 1, 1, 1, 1}, indexType);
            TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.at(0), -std::numeric_limits<double>::infinity());
            EXPECT_EQ(indices.at(0), -1.0);

            TestTensor gradOutput({1, 1, 1, 1, 1}, type);
            gradOutput.set(0, 7.0);
            TestTensor gradInput({1, 1, 1, 1, 1}, type);
            status = test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(gradInput.bitsAt(0), 0u) << "index -1 contributes nothing; gradInput is +0.0";
        }
    }
}

// ------------------------------------------------------------------------------------------------ empty tensors

TEST(MaxPool3dEmptyTensors, ForwardWithEmptySelfSucceedsAndWritesNothing) {
    struct Shapes {
        std::vector<int64_t> self, out;
    };
    const std::vector<Shapes> cases{{{1, 0, 4, 4, 4}, {1, 0, 2, 2, 2}},
                                    {{0, 2, 4, 4, 4}, {0, 2, 2, 2, 2}},
                                    {{1, 2, 0, 4, 4}, {1, 2, 0, 2, 2}},
                                    {{0, 3, 3, 3}, {0, 1, 1, 1}},
                                    {{2, 3, 0, 3}, {2, 1, 0, 1}}};
    for (const Shapes &shapes : cases) {
        for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
            SCOPED_TRACE("self " + listText(shapes.self) + " " + typeName(type));
            TestTensor self(shapes.self, type);
            // Strided outputs with slack, so that a stray write anywhere in the storage is seen.
            std::vector<int64_t> strides(shapes.out.size(), 1);
            for (size_t i = strides.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * std::max<int64_t>(shapes.out[i + 1], 1) + 1;
            TestTensor out(shapes.out, strides, 3, type, ACL_FORMAT_ND, 8);
            TestTensor indices(shapes.out, strides, 2, ACL_INT64, ACL_FORMAT_ND, 8);
            const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, {{2}, {}, {0}, {1}, false}, out, indices);
            EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(status.workspaceSize, 0u);
            EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(indices.bytesOutsideViewChanged(), 0);
        }
    }
}

TEST(MaxPool3dEmptyTensors, BackwardWithEmptyGradOutputZeroFillsGradInput) {
    Rng rng(freshSeed());
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    struct Shapes {
        std::vector<int64_t> gradOutput, self;
    };
    const std::vector<Shapes> cases{{{1, 2, 0, 2, 2}, {1, 2, 4, 4, 4}},
                                    {{2, 3, 2, 0, 1}, {2, 3, 5, 4, 3}},
                                    {{3, 0, 1, 1}, {3, 3, 3, 3}}};
    for (const Shapes &shapes : cases) {
        for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
            for (int layout = 0; layout < kLayoutCount; ++layout) {  // every gradInput layout
                SCOPED_TRACE("gradOutput " + listText(shapes.gradOutput) + " self " + listText(shapes.self) + " " +
                             typeName(type));
                TestTensor gradOutput(shapes.gradOutput, type), indices(shapes.gradOutput, ACL_INT32);
                TestTensor self(shapes.self, type);
                Operand gradInput = makeOperand(rng, shapes.self, type, ACL_FORMAT_ND, static_cast<Layout>(layout));
                SCOPED_TRACE("gradInput " + gradInput.description);
                const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
                    gradOutput, self, indices, {{2}, {}, {0}, {1}, false}, gradInput.tensor);
                EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
                EXPECT_EQ(status.workspaceSize, 0u);
                EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
                for (int64_t i = 0; i < gradInput.tensor.elementCount(); ++i)
                    ASSERT_EQ(gradInput.tensor.bitsAt(i), 0u) << "gradInput[" << i << "] must be +0.0";
                EXPECT_EQ(gradInput.tensor.bytesOutsideViewChanged(), 0);
            }
        }
    }
}

TEST(MaxPool3dEmptyTensors, BackwardWithEmptySelfSucceedsAndWritesNothing) {
    struct Shapes {
        std::vector<int64_t> gradOutput, self;
    };
    const std::vector<Shapes> cases{{{1, 0, 2, 2, 2}, {1, 0, 4, 4, 4}},
                                    {{1, 2, 1, 2, 2}, {1, 2, 0, 4, 4}},
                                    {{0, 1, 1, 1}, {0, 3, 3, 3}}};
    for (const Shapes &shapes : cases) {
        SCOPED_TRACE("gradOutput " + listText(shapes.gradOutput) + " self " + listText(shapes.self));
        TestTensor gradOutput(shapes.gradOutput, ACL_FLOAT), indices(shapes.gradOutput, ACL_INT64);
        for (int64_t i = 0; i < gradOutput.elementCount(); ++i) {
            gradOutput.set(i, 1.0);
            indices.set(i, 0.0);
        }
        TestTensor self(shapes.self, ACL_FLOAT);
        std::vector<int64_t> strides(shapes.self.size(), 2);
        TestTensor gradInput(shapes.self, strides, 5, ACL_FLOAT, ACL_FORMAT_ND, 16);
        const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
            gradOutput, self, indices, {{2}, {}, {0}, {1}, false}, gradInput);
        EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(status.workspaceSize, 0u);
        EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
    }
}

// ------------------------------------------------------------------------------------------------ repeatable executors

TEST(MaxPool3dRepeatableExecutor, ForwardRereadsCurrentInputOnEveryRun) {
    Rng rng(freshSeed() ^ 0xf0f0ULL);
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    for (int n = 0; n < 6; ++n) {
        ForwardCase c = randomForwardCase(rng);
        while (c.emptyWindows > 0) c = randomForwardCase(rng);  // every output must depend on the data
        c.mode = DataMode::Plain;
        ForwardOperands operands = makeForwardOperands(rng, c);
        SCOPED_TRACE("case " + std::to_string(n) + ": " + forwardTrace(c, operands));
        test_support::IntArray kernel(c.problem.lists.kernel), stride(c.problem.lists.stride),
            padding(c.problem.lists.padding), dilation(c.problem.lists.dilation);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(operands.self.tensor, kernel, stride, padding, dilation,
                                                           c.problem.lists.ceilMode, operands.out.tensor,
                                                           operands.indices.tensor, &workspaceSize, &executor),
                  0)
            << aclGetRecentErrMsg();
        ASSERT_NE(executor, nullptr);
        ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0) << aclGetRecentErrMsg();
        std::vector<uint32_t> previousExpected;
        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE("run " + std::to_string(run));
            if (run > 0) {  // new data in the same storage, from a range disjoint from the previous run's
                const double low = 1000.0 * (2 * run + 1), high = low + 1000.0;
                for (auto &bits : c.inputBits)
                    bits = reference::elementBits(
                        static_cast<float>(std::uniform_real_distribution<double>(low, high)(rng)),
                        elementType(c.problem.type));
                computeForwardExpectation(c);
                store(operands.self.tensor, c.inputBits);
                EXPECT_NE(c.expectedBits, previousExpected) << "test needs different data on every run";
            }
            previousExpected = c.expectedBits;
            operands.out.tensor.poison();
            operands.indices.tensor.poison();
            ASSERT_EQ(test_support::runPhaseTwo(aclnnMaxPool3dWithArgmax, workspaceSize, executor), 0)
                << aclGetRecentErrMsg();
            EXPECT_TRUE(bitsMatch(operands.out.tensor, c.expectedBits, elementType(c.problem.type), false, "out"));
            EXPECT_TRUE(indicesMatch(operands.indices.tensor, c.expected.indices));
            EXPECT_EQ(operands.out.tensor.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(operands.indices.tensor.bytesOutsideViewChanged(), 0);
        }
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0) << aclGetRecentErrMsg();
    }
}

TEST(MaxPool3dRepeatableExecutor, BackwardRereadsCurrentGradOutputAndIndicesOnEveryRun) {
    Rng rng(freshSeed() ^ 0x0f0fULL);
    SCOPED_TRACE("seed " + std::to_string(freshSeed()));
    for (int n = 0; n < 6; ++n) {
        BackwardCase c = randomBackwardCase(rng);
        BackwardOperands operands = makeBackwardOperands(rng, c);
        SCOPED_TRACE("case " + std::to_string(n) + ": " + backwardTrace(c, operands));
        test_support::IntArray kernel(c.problem.lists.kernel), stride(c.problem.lists.stride),
            padding(c.problem.lists.padding), dilation(c.problem.lists.dilation);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                      operands.gradOutput.tensor, operands.self.tensor, operands.indices.tensor, kernel, stride,
                      padding, dilation, c.problem.lists.ceilMode, operands.gradInput.tensor, &workspaceSize,
                      &executor),
                  0)
            << aclGetRecentErrMsg();
        ASSERT_NE(executor, nullptr);
        ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0) << aclGetRecentErrMsg();
        const ElementType type = elementType(c.problem.type);
        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE("run " + std::to_string(run));
            if (run > 0) {  // new gradients (never all zero) and new indices in the same storage
                for (auto &bits : c.gradOutputBits)
                    bits = reference::elementBits(static_cast<float>(uniform(rng, 1, 9)), type);
                for (auto &index : c.indices) index = uniform(rng, 0, c.problem.planeIn() - 1);
                computeBackwardExpectation(c);
                store(operands.gradOutput.tensor, c.gradOutputBits);
                storeIndices(operands.indices.tensor, c.indices);
            }
            operands.gradInput.tensor.poison();
            ASSERT_EQ(test_support::runPhaseTwo(aclnnMaxPool3dWithArgmaxBackward, workspaceSize, executor), 0)
                << aclGetRecentErrMsg();
            EXPECT_TRUE(bitsMatch(operands.gradInput.tensor, c.expectedBits, type, true, "gradInput"));
            EXPECT_EQ(operands.gradInput.tensor.bytesOutsideViewChanged(), 0);
        }
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0) << aclGetRecentErrMsg();
    }
}

}  // namespace
