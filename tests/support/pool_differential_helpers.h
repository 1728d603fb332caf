// Helpers shared by the differential tests of every operator family (support/differential_driver.h runs
// them): seeds, random operands in every storage layout, random element bits (tie-heavy, NaN/Inf/-0, plain),
// gradients and hand-written indices, bit-exact comparisons, the implementation list of
// include/poolgrad/poolgrad.h, and a two-phase runner.
// Header-only; it uses only public headers and the independent conversions of float_bits.h.
#pragma once

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
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "poolgrad/poolgrad.h"
#include "support/float_bits.h"
#include "support/test_seed.h"
#include "support/test_tensor.h"
#include "support/two_phase_run.h"

namespace pool_diff {

using test_support::TestTensor;
using Rng = std::mt19937_64;

constexpr aclnnStatus kFindKernelError = 561003;

// ------------------------------------------------------------------------------------------------ seeds

using test_support::freshSeed;
using test_support::seedTrace;
inline std::vector<uint64_t> seeds(std::initializer_list<uint64_t> fixed) { return test_support::seedsWith(fixed); }

// Runs `oneCase(rng, n)` for `cases` cases per seed of seeds(fixed), with the seed and the case number in
// every failure's trace; stops at the first failure (one reproducible case is enough). False after a failure.
template <typename OneCase>
bool forEachRandomCase(std::initializer_list<uint64_t> fixed, int cases, OneCase oneCase) {
    for (uint64_t seed : seeds(fixed)) {
        SCOPED_TRACE(seedTrace(seed));
        Rng rng(seed);
        for (int n = 0; n < cases; ++n) {
            SCOPED_TRACE("case " + std::to_string(n));
            oneCase(rng, n);
            if (testing::Test::HasFailure()) return false;
        }
    }
    return true;
}

inline int64_t uniform(Rng &rng, int64_t low, int64_t high) {  // inclusive
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

inline bool chance(Rng &rng, double probability) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < probability;
}

// ------------------------------------------------------------------------------------------------ text

inline const char *typeName(aclDataType type) {
    switch (type) {
        case ACL_FLOAT:
            return "FLOAT";
        case ACL_FLOAT16:
            return "FLOAT16";
        case ACL_BF16:
            return "BF16";
        case ACL_INT32:
            return "INT32";
        case ACL_INT64:
            return "INT64";
        case ACL_INT8:
            return "INT8";
        default:
            return "?";
    }
}

inline const char *formatName(aclFormat format) {
    switch (format) {
        case ACL_FORMAT_ND:
            return "ND";
        case ACL_FORMAT_NCHW:
            return "NCHW";
        case ACL_FORMAT_NHWC:
            return "NHWC";
        case ACL_FORMAT_NCDHW:
            return "NCDHW";
        case ACL_FORMAT_NDHWC:
            return "NDHWC";
        default:
            return "?";
    }
}

inline std::string listText(const std::vector<int64_t> &values) {
    std::ostringstream text;
    text << "[";
    for (size_t i = 0; i < values.size(); ++i) text << (i ? "," : "") << values[i];
    text << "]";
    return text.str();
}

inline std::string hex(uint64_t bits) {
    std::ostringstream text;
    text << "0x" << std::hex << bits;
    return text.str();
}

// ------------------------------------------------------------------------------------------------ element bits

// Bits of `value` rounded once (round-to-nearest-even, overflow -> Inf) to a floating dtype.
inline uint32_t toBits(float value, aclDataType type) {
    switch (type) {
        case ACL_FLOAT:
            return test_support::bitsFromFloat(value);
        case ACL_FLOAT16:
            return test_support::halfFromFloat(value);
        case ACL_BF16:
            return test_support::bfloat16FromFloat(value);
        default:
            ADD_FAILURE() << "toBits: not a floating dtype";
            return 0;
    }
}

// The exact float value of element bits.
inline float fromBits(uint32_t bits, aclDataType type) {
    switch (type) {
        case ACL_FLOAT:
            return test_support::floatFromBits(bits);
        case ACL_FLOAT16:
            return test_support::floatFromHalf(static_cast<uint16_t>(bits));
        case ACL_BF16:
            return test_support::floatFromBfloat16(static_cast<uint16_t>(bits));
        default:
            ADD_FAILURE() << "fromBits: not a floating dtype";
            return 0;
    }
}

inline bool isNanBits(uint32_t bits, aclDataType type) { return std::isnan(fromBits(bits, type)); }

inline std::vector<float> widen(const std::vector<uint32_t> &bits, aclDataType type) {
    std::vector<float> values(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) values[i] = fromBits(bits[i], type);
    return values;
}

// A quiet NaN of either sign, sometimes with a payload.
inline uint32_t quietNanBits(Rng &rng, aclDataType type) {
    const bool negative = chance(rng, 0.5), payload = chance(rng, 0.4);
    if (type == ACL_FLOAT)
        return (negative ? 0x80000000u : 0u) | 0x7FC00000u | (payload ? uint32_t(uniform(rng, 1, 0x3FFFFF)) : 0u);
    if (type == ACL_FLOAT16)
        return (negative ? 0x8000u : 0u) | 0x7E00u | (payload ? uint32_t(uniform(rng, 1, 0x1FF)) : 0u);
    return (negative ? 0x8000u : 0u) | 0x7FC0u | (payload ? uint32_t(uniform(rng, 1, 0x3F)) : 0u);
}

enum class DataMode { TieHeavy, Special, Plain };

inline const char *dataModeName(DataMode mode) {
    return mode == DataMode::TieHeavy  ? "tie-heavy integers"
           : mode == DataMode::Special ? "NaN/Inf/-0 sprinkled"
                                       : "plain";
}

inline uint32_t randomElement(Rng &rng, aclDataType type, DataMode mode) {
    const float inf = std::numeric_limits<float>::infinity();
    switch (mode) {
        case DataMode::TieHeavy: {
            const int64_t value = uniform(rng, -2, 2);
            if (value == 0 && chance(rng, 0.5)) return toBits(-0.0f, type);
            return toBits(static_cast<float>(value), type);
        }
        case DataMode::Special: {
            const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
            if (roll < 0.06) return quietNanBits(rng, type);
            if (roll < 0.12) return toBits(inf, type);
            if (roll < 0.20) return toBits(-inf, type);
            if (roll < 0.28) return toBits(-0.0f, type);
            if (roll < 0.34) return toBits(0.0f, type);
            return toBits(static_cast<float>(uniform(rng, -3, 3)), type);
        }
        case DataMode::Plain:
            return toBits(static_cast<float>(std::uniform_real_distribution<double>(-1000, 1000)(rng)), type);
    }
    return 0;
}

inline std::vector<uint32_t> randomElements(Rng &rng, int64_t count, aclDataType type, DataMode mode) {
    std::vector<uint32_t> bits(static_cast<size_t>(count));
    for (auto &b : bits) b = randomElement(rng, type, mode);
    return bits;
}

// Gradients of a backward case.
enum class GradMode { Plain, SmallIntegers, WithSpecials, Large };

inline const char *gradModeName(GradMode mode) {
    switch (mode) {
        case GradMode::Plain:
            return "plain gradOutput";
        case GradMode::SmallIntegers:
            return "small-integer gradOutput";
        case GradMode::WithSpecials:
            return "gradOutput with NaN/Inf/-0";
        case GradMode::Large:
            return "large gradOutput (overflow)";
    }
    return "?";
}

inline uint32_t randomGradient(Rng &rng, aclDataType type, GradMode mode) {
    switch (mode) {
        case GradMode::Plain:
            return toBits(static_cast<float>(std::uniform_real_distribution<double>(-4, 4)(rng)), type);
        case GradMode::SmallIntegers:
            return toBits(static_cast<float>(uniform(rng, -3, 3)), type);
        case GradMode::WithSpecials:
            return randomElement(rng, type, DataMode::Special);
        case GradMode::Large: {
            const double magnitude = type == ACL_FLOAT16 ? 60000.0 : 3.0e38;
            const double value = std::uniform_real_distribution<double>(magnitude / 4, magnitude)(rng);
            return toBits(static_cast<float>(chance(rng, 0.8) ? value : -value), type);
        }
    }
    return 0;
}

// Hand-written indices into planes of `planeIn` elements: a few hot positions (many collisions), -1
// (contributes nothing) and uniform ones.
inline std::vector<int64_t> collidingIndices(Rng &rng, int64_t count, int64_t planeIn) {
    std::vector<int64_t> hot(static_cast<size_t>(uniform(rng, 1, 3)));
    for (auto &h : hot) h = uniform(rng, 0, planeIn - 1);
    std::vector<int64_t> indices(static_cast<size_t>(count));
    for (auto &index : indices)
        index = chance(rng, 0.15)  ? -1
                : chance(rng, 0.7) ? hot[static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(hot.size()) - 1))]
                                   : uniform(rng, 0, planeIn - 1);
    return indices;
}

// What a backward case feeds the operator: gradients drawn in one mode, and indices either hand-written
// (colliding, with -1) or those of the reference forward over random data.
struct BackwardInputs {
    bool handWritten = false;
    GradMode gradMode = GradMode::Plain;
    std::vector<uint32_t> gradOutputBits;
    std::vector<int64_t> indices;

    std::string describe() const {
        return std::string(handWritten ? "colliding hand-written indices with -1" : "indices from forward") + ", " +
               gradModeName(gradMode);
    }
};

// `forwardIndices(inputBits)` gives the reference forward's indices over `inputs` random input elements.
template <typename ForwardIndices>
BackwardInputs randomBackwardInputs(Rng &rng, aclDataType type, int64_t inputs, int64_t outputs, int64_t planeIn,
                                    ForwardIndices forwardIndices) {
    BackwardInputs b;
    b.handWritten = chance(rng, 0.5);
    b.gradMode = static_cast<GradMode>(uniform(rng, 0, 3));
    b.indices = b.handWritten
                    ? collidingIndices(rng, outputs, planeIn)
                    : forwardIndices(randomElements(rng, inputs, type, static_cast<DataMode>(uniform(rng, 0, 2))));
    b.gradOutputBits.resize(static_cast<size_t>(outputs));
    for (auto &bits : b.gradOutputBits) bits = randomGradient(rng, type, b.gradMode);
    return b;
}

// What an argmax forward writes to `out`: the bits of each output's selected input element (NaN payloads
// included), -inf where the window is empty (index -1). Indices are per plane of planeIn input elements.
inline std::vector<uint32_t> selectedBits(const std::vector<uint32_t> &input, const std::vector<int64_t> &indices,
                                          int64_t planeIn, int64_t planeOut, aclDataType type) {
    std::vector<uint32_t> bits(indices.size());
    for (size_t q = 0; q < indices.size(); ++q) {
        const int64_t index = indices[q];
        bits[q] = index < 0 ? toBits(-std::numeric_limits<float>::infinity(), type)
                            : input[static_cast<size_t>(static_cast<int64_t>(q) / planeOut * planeIn + index)];
    }
    return bits;
}

// ------------------------------------------------------------------------------------------------ operands

struct Operand {
    TestTensor tensor;
    std::string description;
};

// Storage layouts of a test operand. Padded: every stride at least the dense one, random gaps;
// PlaneGapped: dense (n,c) planes with a gap after every plane (what a dense-plane kernel accepts). Both have
// an element offset and slack after the last element, so that a write past any plane lands in watched storage.
enum class Layout { Contiguous, ChannelsLast, Padded, PlaneGapped };
constexpr int kLayoutCount = 4;

// An operand of view shape `shape` stored as `layout`; `channelAxis` is the axis channels-last stores innermost
// and the one whose planes PlaneGapped separates.
inline Operand makeOperand(Rng &rng, const std::vector<int64_t> &shape, int channelAxis, aclDataType type,
                           aclFormat format, Layout layout) {
    if (layout == Layout::Contiguous) return {TestTensor(shape, type, format), "contiguous"};
    if (layout == Layout::ChannelsLast) {
        std::vector<int> order;
        for (int i = 0; i < static_cast<int>(shape.size()); ++i)
            if (i != channelAxis) order.push_back(i);
        order.push_back(channelAxis);
        TestTensor tensor = TestTensor::permuted(shape, order, type, format);
        std::string text = "channels-last strides " + listText(tensor.strides());
        return {std::move(tensor), text};
    }
    std::vector<int64_t> strides(shape.size());
    int64_t running = layout == Layout::Padded && chance(rng, 0.3) ? 2 : 1;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = running;
        running *= std::max<int64_t>(shape[i], 1);
        if (layout == Layout::Padded)
            running += chance(rng, 0.5) ? 0 : uniform(rng, 1, 3);
        else if (i == static_cast<size_t>(channelAxis) + 1)
            running += uniform(rng, 1, 5);
    }
    const int64_t offset = uniform(rng, 1, 9), slack = uniform(rng, 0, 4);
    std::string text = std::string(layout == Layout::Padded ? "padded" : "plane-gapped") + " strides " +
                       listText(strides) + " offset " + std::to_string(offset);
    return {TestTensor(shape, strides, offset, type, format, slack), text};
}

// The same in a random layout; `contiguous` forces the first (so that whole problems reach the dense fast paths).
inline Operand makeOperand(Rng &rng, const std::vector<int64_t> &shape, int channelAxis, aclDataType type,
                           aclFormat format, bool contiguous = false) {
    const Layout layout = contiguous ? Layout::Contiguous : static_cast<Layout>(uniform(rng, 0, kLayoutCount - 1));
    return makeOperand(rng, shape, channelAxis, type, format, layout);
}

inline void storeBits(TestTensor &tensor, const std::vector<uint32_t> &bits) {
    for (size_t i = 0; i < bits.size(); ++i) tensor.setBits(static_cast<int64_t>(i), bits[i]);
}

inline void storeIndices(TestTensor &tensor, const std::vector<int64_t> &indices) {
    for (size_t i = 0; i < indices.size(); ++i) tensor.set(static_cast<int64_t>(i), static_cast<double>(indices[i]));
}

inline std::vector<uint64_t> snapshot(const TestTensor &tensor) {
    std::vector<uint64_t> bits(static_cast<size_t>(tensor.elementCount()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) bits[static_cast<size_t>(i)] = tensor.bitsAt(i);
    return bits;
}

// ------------------------------------------------------------------------------------------------ checks

// Bit-exact comparison of a floating tensor; `nanMatchesNan` lets any NaN stand for an expected NaN.
inline testing::AssertionResult bitsMatch(const TestTensor &tensor, const std::vector<uint32_t> &expected,
                                          aclDataType type, bool nanMatchesNan, const char *what) {
    if (tensor.elementCount() != static_cast<int64_t>(expected.size()))
        return testing::AssertionFailure()
               << what << ": " << tensor.elementCount() << " elements, expected " << expected.size();
    int64_t mismatches = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const uint32_t got = static_cast<uint32_t>(tensor.bitsAt(i)), want = expected[static_cast<size_t>(i)];
        bool same = got == want;
        if (!same && nanMatchesNan && isNanBits(want, type)) same = isNanBits(got, type);
        if (!same && mismatches++ < 6)
            first << "\n  " << what << "[" << i << "]: got " << hex(got) << " (" << fromBits(got, type)
                  << "), expected " << hex(want) << " (" << fromBits(want, type) << ")";
    }
    if (mismatches == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << what << ": " << mismatches << " of " << tensor.elementCount()
                                       << " elements differ" << first.str();
}

inline testing::AssertionResult indicesMatch(const TestTensor &tensor, const std::vector<int64_t> &expected,
                                             const char *what = "indices") {
    if (tensor.elementCount() != static_cast<int64_t>(expected.size()))
        return testing::AssertionFailure() << what << ": element count differs";
    int64_t mismatches = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const double got = tensor.at(i);
        if (got != static_cast<double>(expected[static_cast<size_t>(i)]) && mismatches++ < 6)
            first << "\n  " << what << "[" << i << "]: got " << got << ", expected "
                  << expected[static_cast<size_t>(i)];
    }
    if (mismatches == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << what << ": " << mismatches << " of " << tensor.elementCount() << " differ"
                                       << first.str();
}

// An input operand was neither modified inside its view nor outside it.
inline testing::AssertionResult unchanged(const TestTensor &tensor, const std::vector<uint64_t> &before,
                                          const char *what) {
    for (int64_t i = 0; i < tensor.elementCount(); ++i)
        if (tensor.bitsAt(i) != before[static_cast<size_t>(i)])
            return testing::AssertionFailure() << "input " << what << "[" << i << "] was modified";
    if (tensor.bytesOutsideViewChanged() != 0)
        return testing::AssertionFailure() << "storage of input " << what << " outside its view was modified";
    return testing::AssertionSuccess();
}

// Float32 accumulators rounded once to the output dtype.
inline std::vector<uint32_t> roundAll(const std::vector<float> &accumulators, aclDataType type) {
    std::vector<uint32_t> bits(accumulators.size());
    for (size_t i = 0; i < accumulators.size(); ++i) bits[i] = toBits(accumulators[i], type);
    return bits;
}

// ------------------------------------------------------------------------------------------------ library controls

// Resets the forced implementation and the thread count however the test ends.
struct LibraryControlsGuard {
    ~LibraryControlsGuard() {
        poolgradForceImplementation(nullptr);
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
    }
};

// "" (the default selection) followed by the name of every implementation of `task` ("argmax-forward",
// "index-scatter-backward", ... as poolgradImplementationTask reports it).
inline std::vector<std::string> implementationChoices(const std::string &task) {
    std::vector<std::string> names{""};
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i) {
        const char *name = poolgradImplementationName(i);
        const char *kind = poolgradImplementationTask(i);
        if (name != nullptr && kind != nullptr && task == kind) names.emplace_back(name);
    }
    EXPECT_GE(names.size(), 2u) << "no implementation of task " << task;
    return names;
}

constexpr const char *kForwardTask = "argmax-forward";
constexpr const char *kBackwardTask = "index-scatter-backward";
constexpr const char *kRecomputeTask = "recompute-argmax-backward";

inline bool isReference(const std::string &name) { return name.find("reference") != std::string::npos; }

inline std::string implementationTrace(const std::string &name) {
    return "implementation " + (name.empty() ? std::string("<default>") : name);
}

// ------------------------------------------------------------------------------------------------ two-phase runs

using TwoPhase = test_support::TwoPhaseStatus;
using test_support::runTwoPhase;

// Phase 1 + phase 2 succeeded, with the CPU backend's workspace of 0 (SPEC §1.2).
#define EXPECT_RAN(status)                                                         \
    do {                                                                           \
        const pool_diff::TwoPhase ran_ = (status);                                 \
        EXPECT_EQ(ran_.phaseOne, ACLNN_SUCCESS) << ran_.message;                   \
        EXPECT_EQ(ran_.phaseTwo, ACLNN_SUCCESS) << ran_.message;                   \
        EXPECT_EQ(ran_.workspaceSize, 0u) << "SPEC §1.2: CPU backend workspace 0"; \
    } while (0)

// A tensor's elements, as float or as integers (for exact expected values).
inline std::vector<float> floatsOf(const TestTensor &tensor) {
    std::vector<float> values;
    for (double v : tensor.values()) values.push_back(static_cast<float>(v));
    return values;
}

inline std::vector<int64_t> intsOf(const TestTensor &tensor) {
    std::vector<int64_t> values;
    for (double v : tensor.values()) values.push_back(static_cast<int64_t>(v));
    return values;
}

}  // namespace pool_diff
