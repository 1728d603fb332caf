#include "support/argmax_forward_case.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "poolgrad/poolgrad.h"
#include "support/float_bits.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"

namespace test_support {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bitsOf(float value) { return bitsFromFloat(value); }

float floatOf(uint32_t bits) { return floatFromBits(bits); }

// Threads and the forced implementation for one scope; every setting restored after it.
struct ForcedRun {
    ForcedRun(const char *implementation, int threads) {
        poolgradSetNumThreads(threads);
        poolgradSetParallelThreshold(1);
        EXPECT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
    }
    ~ForcedRun() {
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradForceImplementation(nullptr);
    }
};

}  // namespace

MaxPool3dLists listsOf(const reference::Pool3dParams &p) {
    return {{p.kernel.begin(), p.kernel.end()},
            {p.stride.begin(), p.stride.end()},
            {p.padding.begin(), p.padding.end()},
            {p.dilation.begin(), p.dilation.end()},
            p.ceilMode};
}

std::string ArgmaxForwardCase::describe() const {
    std::ostringstream text;
    text << (valueType == ACL_FLOAT16 ? "f16 "
             : valueType == ACL_BF16  ? "bf16 "
                                      : "")
         << (indexType == ACL_INT32 ? "i32" : "i64") << (channelsLast ? " channels-last" : "") << " input " << input[0] << "x" << input[1] << "x" << input[2]
         << "x" << input[3] << "x" << input[4] << " k" << params.kernel[0] << params.kernel[1] << params.kernel[2]
         << " s" << params.stride[0] << params.stride[1] << params.stride[2] << " p" << params.padding[0]
         << params.padding[1] << params.padding[2] << " d" << params.dilation[0] << params.dilation[1]
         << params.dilation[2] << (params.ceilMode ? " ceil" : "");
    return text.str();
}

std::vector<int64_t> checkArgmaxForward(const ArgmaxForwardCase &c, const char *implementation, int threads) {
    SCOPED_TRACE(c.describe() + ", " + std::to_string(threads) + " threads");
    const auto tensor = [&](const std::vector<int64_t> &shape, aclDataType type) {
        return c.channelsLast ? TestTensor::permuted(shape, {0, 2, 3, 4, 1}, type) : TestTensor(shape, type);
    };
    const std::vector<int64_t> inputShape(c.input.begin(), c.input.end());
    TestTensor self = c.inputStrides.empty() ? tensor(inputShape, c.valueType)
                                             : TestTensor(inputShape, c.inputStrides, 0, c.valueType);
    std::vector<float> values(c.bits.size());
    for (size_t i = 0; i < c.bits.size(); ++i) {
        self.setBits(static_cast<int64_t>(i), c.bits[i]);
        const uint16_t low = static_cast<uint16_t>(c.bits[i]);
        values[i] = c.valueType == ACL_FLOAT16 ? floatFromHalf(low)
                    : c.valueType == ACL_BF16  ? floatFromBfloat16(low)
                                               : floatOf(c.bits[i]);
    }
    const reference::ForwardResult expected = reference::maxPool3dWithArgmax(values, c.input, c.params);
    const std::vector<int64_t> outputShape(expected.outputShape.begin(), expected.outputShape.end());
    TestTensor out = tensor(outputShape, c.valueType), indices = tensor(outputShape, c.indexType);
    out.poison();
    indices.poison();
    TwoPhaseStatus status;
    poolgradRunReport report{};
    {
        const ForcedRun forced(implementation, threads);
        status = runMaxPool3dWithArgmax(self, listsOf(c.params), out, indices);
        EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    }
    EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    EXPECT_STREQ(report.implementation, implementation);
    const int64_t planeIn = c.input[2] * c.input[3] * c.input[4];
    const reference::Shape5 &o = expected.outputShape;
    const int64_t planeOut = o[2] * o[3] * o[4];
    std::vector<int64_t> written(static_cast<size_t>(out.elementCount()));
    int failures = 0;
    for (int64_t q = 0; q < out.elementCount(); ++q) {
        const int64_t expectedIndex = expected.indices[static_cast<size_t>(q)];
        const int64_t index = written[static_cast<size_t>(q)] = static_cast<int64_t>(indices.at(q));
        const uint64_t minusInfinity = c.valueType == ACL_FLOAT16 ? 0xfc00u
                                       : c.valueType == ACL_BF16  ? 0xff80u
                                                                  : bitsOf(-kInf);
        const uint64_t expectedBits =
            expectedIndex >= 0 ? self.bitsAt(q / planeOut * planeIn + expectedIndex) : minusInfinity;
        if ((index != expectedIndex || out.bitsAt(q) != expectedBits) && ++failures <= 5)
            ADD_FAILURE() << "output " << q << ": index " << index << " (expected " << expectedIndex << "), bits 0x"
                          << std::hex << out.bitsAt(q) << " (expected 0x" << expectedBits << ")" << std::dec;
    }
    return written;
}

std::vector<uint32_t> tieHeavyBits(std::mt19937_64 &rng, int64_t count, double nanChance, double hugeChance,
                                   bool finite) {
    const float pool[] = {finite ? -3.0f : -kInf, -2, -1, -0.0f, 0.0f, 1, 2, 3, finite ? 4.0f : kInf};
    const uint32_t nans[] = {0x7fc00000u, 0x7fc12345u, 0x7f800001u, 0xffc00000u, 0xff812345u};
    std::uniform_int_distribution<int> pick(0, 8), pickNan(0, 4);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<uint32_t> bits(static_cast<size_t>(count));
    for (uint32_t &b : bits) {
        const double u = unit(rng);
        b = u < nanChance                ? nans[pickNan(rng)]
            : u < nanChance + hugeChance ? bitsOf(pick(rng) % 2 ? 3e38f : -3e38f)
                                         : bitsOf(pool[pick(rng)]);
    }
    return bits;
}

std::vector<uint32_t> sixteenBitPatterns(const std::vector<uint32_t> &float32Bits, aclDataType type) {
    std::vector<uint32_t> bits(float32Bits.size());
    for (size_t i = 0; i < bits.size(); ++i) {
        const uint32_t b = float32Bits[i];
        const bool nan = (b & 0x7fffffffu) > 0x7f800000u;
        if (nan) {
            const uint32_t sign = (b >> 16) & 0x8000u;
            const bool quiet = (b & 0x00400000u) != 0;
            // A payload besides the quiet bit, so that a signalling NaN stays a NaN.
            bits[i] = type == ACL_FLOAT16 ? sign | 0x7c00u | (quiet ? 0x0200u : 0u) | 0x0015u
                                          : sign | 0x7f80u | (quiet ? 0x0040u : 0u) | 0x0005u;
        } else {
            const float value = floatOf(b);
            bits[i] = type == ACL_FLOAT16 ? halfFromFloat(value) : bfloat16FromFloat(value);
        }
    }
    return bits;
}

bool hasOutputs(const reference::Shape5 &input, const reference::Pool3dParams &params) {
    for (int a = 0; a < 3; ++a)
        if (reference::pooledSize(input[2 + a], params.kernel[a], params.stride[a], params.padding[a],
                                  params.dilation[a], params.ceilMode) < 1)
            return false;
    return true;
}

reference::Pool3dParams threeByThreeStride2(int64_t padH, int64_t padW) {
    reference::Pool3dParams p;
    p.kernel = {1, 3, 3};
    p.stride = {1, 2, 2};
    p.padding = {0, padH, padW};
    return p;
}

reference::Pool3dParams stride1Windows(int64_t kernelH, int64_t kernelW, int64_t padH, int64_t padW) {
    reference::Pool3dParams p;
    p.kernel = {1, kernelH, kernelW};
    p.stride = {1, 1, 1};
    p.padding = {0, padH, padW};
    return p;
}

void checkNaNInEveryPosition(const char *implementation, const std::vector<std::array<int64_t, 2>> &heightsWidths,
                             const std::vector<int64_t> &kernels, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (const auto &[height, width] : heightsWidths)
        for (const int64_t kernel : kernels) {
            ArgmaxForwardCase c;
            c.input = {1, 1, 1, height, width};
            c.params = stride1Windows(kernel, kernel, kernel / 2, kernel / 2);
            const std::vector<uint32_t> base = tieHeavyBits(rng, height * width, 0, 0, true);
            for (int64_t position = 0; position < height * width; ++position) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = 0x7fc00000u + static_cast<uint32_t>(position);
                if (position % 3 == 0)
                    c.bits[static_cast<size_t>((position * 7 + 5) % (height * width))] = 0xffc00001u;
                checkArgmaxForward(c, implementation, 1);
                if (testing::Test::HasFailure()) return;
            }
        }
}

void checkStride1ValuesOnly(const char *implementation, int64_t height, int64_t width, int64_t kernel, int64_t pad,
                            int dataKinds, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t n = 2, channels = 3;
    for (int kind = 0; kind < dataKinds; ++kind)
        for (const int threads : {1, 2, 3}) {
            SCOPED_TRACE("data kind " + std::to_string(kind) + ", " + std::to_string(threads) + " threads");
            std::vector<uint32_t> bits = kind == 0 ? tieHeavyBits(rng, n * channels * height * width, 0.02, 0.05)
                                                   : tieHeavyBits(rng, n * channels * height * width, 0, 0, true);
            if (kind == 1)
                for (size_t i = 0; i < bits.size(); i += 7) bits[i] = 0x80000000u;  // -0 among the +0 ties
            if (kind == 2)
                for (uint32_t &b : bits)
                    if (b == 0x80000000u) b = 0;
            TestTensor x({n, channels, height, width}, ACL_FLOAT);
            std::vector<float> values(bits.size());
            for (size_t i = 0; i < bits.size(); ++i) {
                x.setBits(static_cast<int64_t>(i), bits[i]);
                values[i] = floatOf(bits[i]);
            }
            const reference::ForwardResult expected = reference::maxPool3dWithArgmax(
                values, {n, channels, 1, height, width}, stride1Windows(kernel, kernel, pad, pad));
            TestTensor y({n, channels, expected.outputShape[3], expected.outputShape[4]}, ACL_FLOAT);
            y.poison();
            const max_pool_v3_test::V3Attributes attributes{{1, 1, kernel, kernel},
                                                            {1, 1, 1, 1},
                                                            "CALCULATED",
                                                            std::vector<int64_t>{pad, pad, pad, pad},
                                                            "NCHW",
                                                            false,
                                                            false};
            max_pool_v3_test::V3Status status;
            poolgradRunReport report{};
            {
                const ForcedRun forced(implementation, threads);
                status = max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y);
                EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
            }
            EXPECT_EQ(status.phaseTwo, 0) << status.message;
            EXPECT_STREQ(report.implementation, implementation);
            const int64_t planeIn = height * width, planeOut = expected.outputShape[3] * expected.outputShape[4];
            for (int64_t q = 0; q < y.elementCount(); ++q) {
                const int64_t index = expected.indices[static_cast<size_t>(q)];
                ASSERT_GE(index, 0) << "output " << q;
                ASSERT_EQ(y.bitsAt(q), bits[static_cast<size_t>(q / planeOut * planeIn + index)]) << "output " << q;
            }
        }
}

}  // namespace test_support
