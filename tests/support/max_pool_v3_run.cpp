#include "support/max_pool_v3_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "support/float_bits.h"
#include "support/pool_differential_helpers.h"

namespace max_pool_v3_test {
namespace {

using test_support::IntArray;
using test_support::TestTensor;

}  // namespace

V3Attributes attributesFor(const reference::MaxPoolV3Params &params, bool nhwc) {
    V3Attributes a;
    const int64_t kh = params.kernelH, kw = params.kernelW, sh = params.strideH, sw = params.strideW;
    a.ksize = nhwc ? std::vector<int64_t>{1, kh, kw, 1} : std::vector<int64_t>{1, 1, kh, kw};
    a.strides = nhwc ? std::vector<int64_t>{1, sh, sw, 1} : std::vector<int64_t>{1, 1, sh, sw};
    a.paddingMode = params.mode == reference::V3PaddingMode::Same    ? "SAME"
                    : params.mode == reference::V3PaddingMode::Valid ? "VALID"
                                                                     : "CALCULATED";
    a.pads = std::vector<int64_t>(params.pads.begin(), params.pads.end());
    a.dataFormat = nhwc ? "NHWC" : "NCHW";
    a.ceilMode = params.ceilMode;
    a.globalPooling = params.globalPooling;
    return a;
}

std::string describeProblem(aclDataType type, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w,
                            const reference::MaxPoolV3Params &params, int64_t outH, int64_t outW) {
    const V3Attributes a = attributesFor(params, nhwc);
    std::ostringstream text;
    text << (type == ACL_FLOAT     ? "fp32"
             : type == ACL_FLOAT16 ? "fp16"
                                   : "bf16")
         << ' ' << a.dataFormat << " n" << n << "c" << c << "h" << h << "w" << w << " k" << params.kernelH << "x"
         << params.kernelW << " s" << params.strideH << "x" << params.strideW << ' ' << a.paddingMode << " pads["
         << params.pads[0] << ',' << params.pads[1] << ',' << params.pads[2] << ',' << params.pads[3] << "] ceil"
         << params.ceilMode << " out" << outH << "x" << outW;
    return text.str();
}

V3Status runMaxPoolV3Grad(const aclTensor *origInput, const aclTensor *origOutput, const aclTensor *grad,
                          const V3Attributes &attributes, aclTensor *outGrad) {
    IntArray ksize(attributes.ksize), strides(attributes.strides);
    std::optional<IntArray> pads;
    if (attributes.pads) pads.emplace(*attributes.pads);
    return test_support::runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPoolV3GradGetWorkspaceSize(
                origInput, origOutput, grad, ksize, strides, attributes.paddingMode,
                pads ? static_cast<aclIntArray *>(*pads) : nullptr, attributes.dataFormat, attributes.globalPooling,
                attributes.ceilMode, outGrad, workspaceSize, executor);
        },
        aclnnMaxPoolV3Grad);
}

V3Status runMaxPoolV3WithAttrs(const aclTensor *x, const V3Attributes &attributes, aclTensor *y) {
    IntArray ksize(attributes.ksize), strides(attributes.strides);
    std::optional<IntArray> pads;
    if (attributes.pads) pads.emplace(*attributes.pads);
    return test_support::runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(
                x, ksize, strides, attributes.paddingMode, pads ? static_cast<aclIntArray *>(*pads) : nullptr,
                attributes.dataFormat, attributes.globalPooling, attributes.ceilMode, y, workspaceSize, executor);
        },
        aclnnMaxPoolV3WithAttrs);
}

const char *storageName(Storage storage) {
    switch (storage) {
        case Storage::Contiguous:
            return "contiguous";
        case Storage::Permuted:
            return "permuted";
        case Storage::Gapped:
            return "gapped";
        case Storage::PermutedGapped:
            return "permuted+gapped";
    }
    return "?";
}

TestTensor makeOperand(const std::vector<int64_t> &shape, aclDataType type, Storage storage, std::mt19937 &rng,
                       aclFormat format) {
    if (storage == Storage::Contiguous) return TestTensor(shape, type, format);
    std::vector<int> order(shape.size());
    std::iota(order.begin(), order.end(), 0);
    const bool permute = storage == Storage::Permuted || storage == Storage::PermutedGapped;
    const bool gaps = storage == Storage::Gapped || storage == Storage::PermutedGapped;
    if (permute) std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> strides(shape.size());
    int64_t running = 1;
    for (size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = running;
        running *=
            std::max<int64_t>(shape[order[k]], 1) + (gaps ? std::uniform_int_distribution<int64_t>(0, 2)(rng) : 0);
    }
    const int64_t offset = gaps ? std::uniform_int_distribution<int64_t>(1, 5)(rng) : 0;
    return TestTensor(shape, strides, offset, type, format, gaps ? 3 : 0);
}

std::vector<int64_t> layoutShape(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
    return nhwc ? std::vector<int64_t>{n, h, w, c} : std::vector<int64_t>{n, c, h, w};
}

int64_t layoutIndex(bool nhwc, int64_t c, int64_t h, int64_t w, int64_t n, int64_t ci, int64_t hi, int64_t wi) {
    return nhwc ? ((n * h + hi) * w + wi) * c + ci : ((n * c + ci) * h + hi) * w + wi;
}

namespace {

// Calls visit(flat index) for every logical (n, c, h, w) element in logical order.
template <typename Visit>
void forEachLogical(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w, Visit visit) {
    for (int64_t ni = 0; ni < n; ++ni)
        for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t hi = 0; hi < h; ++hi)
                for (int64_t wi = 0; wi < w; ++wi) visit(layoutIndex(nhwc, c, h, w, ni, ci, hi, wi));
}

}  // namespace

void storeLogical(TestTensor &tensor, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w,
                  const std::vector<double> &values) {
    if (static_cast<int64_t>(values.size()) != n * c * h * w) throw std::invalid_argument("storeLogical: size");
    size_t i = 0;
    forEachLogical(nhwc, n, c, h, w, [&](int64_t flat) { tensor.set(flat, values[i++]); });
}

std::vector<float> loadLogical(const TestTensor &tensor, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
    std::vector<float> values;
    values.reserve(static_cast<size_t>(n * c * h * w));
    forEachLogical(nhwc, n, c, h, w, [&](int64_t flat) { values.push_back(static_cast<float>(tensor.at(flat))); });
    return values;
}

std::vector<uint64_t> loadLogicalBits(const TestTensor &tensor, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
    std::vector<uint64_t> bits;
    bits.reserve(static_cast<size_t>(n * c * h * w));
    forEachLogical(nhwc, n, c, h, w, [&](int64_t flat) { bits.push_back(tensor.bitsAt(flat)); });
    return bits;
}

uint64_t bitsIn(aclDataType type, float value) { return pool_diff::toBits(value, type); }

bool bitsAreNan(aclDataType type, uint64_t bits) { return pool_diff::isNanBits(static_cast<uint32_t>(bits), type); }

test_support::TestTensor filled(const std::vector<int64_t> &shape, aclDataType type,
                                const std::vector<double> &values) {
    test_support::TestTensor tensor(shape, type);
    tensor.setValues(values);
    return tensor;
}

void expectBits(const test_support::TestTensor &tensor, const std::vector<double> &expected, const char *what) {
    ASSERT_EQ(tensor.elementCount(), static_cast<int64_t>(expected.size())) << what;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const double value = expected[static_cast<size_t>(i)];
        if (std::isnan(value))
            EXPECT_TRUE(bitsAreNan(tensor.type(), tensor.bitsAt(i))) << what << "[" << i << "]";
        else
            EXPECT_EQ(tensor.bitsAt(i), bitsIn(tensor.type(), static_cast<float>(value)))
                << what << "[" << i << "] = " << tensor.at(i) << ", expected " << value;
    }
    EXPECT_EQ(tensor.bytesOutsideViewChanged(), 0) << what;
}

void expectSuccess(const V3Status &status) {
    EXPECT_EQ(status.phaseOne, 0) << status.message;
    EXPECT_EQ(status.phaseTwo, 0) << status.message;
}

}  // namespace max_pool_v3_test
