// One fuzzed operator call: decode a call of any aclnn operator from the input (dtypes, shapes, attributes,
// operand layouts and storage claims, then edits that break one thing), run both phases, and judge it.
//   refused in phase 1  -> no buffer touched, *executor null, *workspaceSize 0, a non-empty message;
//   accepted            -> the contract allows the call (the harness's own reading of SPEC: dtypes, ranks,
//                          attributes, shapes, storage claims, no self-overlapping output), phase 1 wrote
//                          nothing, and when the work is small phase 2 matches the naive reference of
//                          tests/reference bit for bit, writes nothing outside the output views and leaves
//                          the inputs alone (an output aliasing an input must give the result computed from
//                          the inputs as they were before the call).
#include "operator_calls.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_pool_v3.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "fuzz_operand.h"
#include "fuzz_report.h"
#include "known_defects.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_adaptive_pooling.h"
#include "reference/naive_max_pool_v3.h"
#include "reference/naive_pooling.h"

namespace poolgrad_fuzz {
namespace {

constexpr aclnnStatus kInvalid = 161002;
// Bigger calls are planned but not run (phase 1 is still judged): element visits over all operands plus
// window taps over all outputs.
constexpr int64_t kMaxWork = int64_t(1) << 17;
constexpr Int128 kHuge = Int128(1) << 100;

// Onnx: aclnnMaxPool (ONNX MaxPool, values only); V3 also covers aclnnMaxPoolV3 (CALCULATED, NCHW).
enum class Family { Pool, Adaptive, V3, Onnx };

struct OpInfo {
    const char *name;
    Family family;
    bool backward;
    int spatialDims;
    bool mask;
    const char *task;  // poolgradImplementationTask of its implementations
};

constexpr OpInfo kOps[kOperatorCount] = {
    {"aclnnMaxPool3dWithArgmax", Family::Pool, false, 3, false, "argmax-forward"},
    {"aclnnMaxPool3dWithArgmaxBackward", Family::Pool, true, 3, false, "index-scatter-backward"},
    {"aclnnAdaptiveMaxPool3d", Family::Adaptive, false, 3, false, "argmax-forward"},
    {"aclnnAdaptiveMaxPool3dBackward", Family::Adaptive, true, 3, false, "index-scatter-backward"},
    {"aclnnMaxPool2dWithIndices", Family::Pool, false, 2, false, "argmax-forward"},
    {"aclnnMaxPool2dWithMask", Family::Pool, false, 2, true, "argmax-forward"},
    {"aclnnMaxPool2dWithIndicesBackward", Family::Pool, true, 2, false, "index-scatter-backward"},
    {"aclnnMaxPool2dWithMaskBackward", Family::Pool, true, 2, true, "index-scatter-backward"},
    {"aclnnAdaptiveMaxPool2d", Family::Adaptive, false, 2, false, "argmax-forward"},
    {"aclnnAdaptiveMaxPool2dBackward", Family::Adaptive, true, 2, false, "index-scatter-backward"},
    {"aclnnMaxPoolV3WithAttrs", Family::V3, false, 2, false, "argmax-forward"},
    {"aclnnMaxPoolV3Grad", Family::V3, true, 2, false, "recompute-argmax-backward"},
    {"aclnnMaxPool", Family::Onnx, false, 2, false, "argmax-forward"},
    {"aclnnMaxPoolV3", Family::V3, false, 2, false, "argmax-forward"},
};
constexpr int kMaxPoolV3 = 13;  // aclnnMaxPoolV3: the V3 forward with fixed paddingMode, dataFormat and pooling

// ------------------------------------------------------------------------------------------------ decoding

struct ListArgument {
    bool null = false;
    std::vector<int64_t> values;
    aclIntArray *array = nullptr;
    ~ListArgument() {
        if (array != nullptr) aclDestroyIntArray(array);
    }
    aclIntArray *make() {  // again for every phase 1 (one per implementation tried)
        if (array != nullptr) aclDestroyIntArray(array), array = nullptr;
        if (!null) array = aclCreateIntArray(values.data(), values.size());
        return array;
    }
};

// Length code (byte % 8): 0-3 the canonical length, 4 length 1, 5 length 0, 6 length byte % 6, 7 nullptr.
// `range(position)` gives the sane value range of each position.
template <typename Range>
void readList(FuzzInput &in, ListArgument &list, size_t canonical, Range range) {
    const uint8_t code = in.byte() % 8;
    size_t length = canonical;
    if (code == 4) length = 1;
    if (code == 5) length = 0;
    if (code == 6) length = in.byte() % 6;
    list.null = code == 7;
    for (size_t i = 0; i < length; ++i) {
        const auto [low, high] = range(i);
        list.values.push_back(in.fuzzy(low, high));
    }
}

// The aclScalar ceilMode of aclnnMaxPoolV3: any dtype, its value's bytes as the input gives them.
struct ScalarArgument {
    bool null = false;
    aclDataType type = ACL_BOOL;
    alignas(8) unsigned char bytes[16] = {};
    aclScalar *scalar = nullptr;
    ~ScalarArgument() {
        if (scalar != nullptr) aclDestroyScalar(scalar);
    }
    aclScalar *make() {
        if (scalar != nullptr) aclDestroyScalar(scalar), scalar = nullptr;
        if (!null) scalar = aclCreateScalar(bytes, type);
        return scalar;
    }
};

struct Call {
    const OpInfo *op = nullptr;
    aclDataType valueType = ACL_FLOAT, indexType = ACL_INT64;
    bool batched = true, ceilMode = false, nhwc = false, globalPooling = false, nullOptional = false, alias = false;
    int paddingModeCode = 0;
    std::array<int64_t, 5> shape{};  // N, C, D, H, W of the input
    ListArgument kernel, stride, padding, dilation, outputSize, ksize, strides, pads;
    int64_t autoPad = 0, ceilModeValue = 0;  // aclnnMaxPool's int64 attributes (ceilMode: non-zero = ceil)
    ScalarArgument ceilScalar;               // aclnnMaxPoolV3's ceilMode
    bool ceilJudged = true;  // false: a ceilMode scalar whose truth the harness does not decide (NaN, ±Inf, huge)
    uint8_t dataMode = 0, indexMode = 0;
    uint32_t seed = 0;
    std::vector<Operand> operands;  // in the operator's argument order
};

aclDataType decodeType(uint8_t code, std::initializer_list<aclDataType> usual) {
    if (code >= 0xC0) return static_cast<aclDataType>(code - 0xC0);
    return *(usual.begin() + code % usual.size());
}

const char *paddingModeText(int code) {
    switch (code) {
        case 1:
            return "SAME";
        case 2:
            return "VALID";
        case 3:
            return "same";  // not a mode: the names are case-sensitive
        default:
            return "CALCULATED";
    }
}

reference::ElementType referenceType(aclDataType type);

// aclnnMaxPoolV3's ceilMode scalar: code (byte % 8: 6 raw value bytes, 7 nullptr), dtype (the usual
// numeric ones by code % 13, any for codes >= 0xC0), then fuzzy(0,1) stored in that dtype (or 8 raw bytes).
// The contract: nullptr = false, a numeric or bool scalar non-zero = ceil. A float strictly between -1 and 1
// other than ±0, a NaN, an infinity or a non-numeric dtype is not judged (the call is then neither judged
// nor run: only the sanitizers watch it).
void readCeilScalar(FuzzInput &in, Call &call) {
    ScalarArgument &scalar = call.ceilScalar;
    const uint8_t code = in.byte() % 8;
    scalar.type = decodeType(in.byte(), {ACL_BOOL, ACL_INT64, ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE,
                                         ACL_INT8, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_UINT64});
    scalar.null = code == 7 || call.nullOptional;
    call.ceilMode = false;
    call.ceilJudged = true;
    if (scalar.null) return;
    if (code == 6) {
        const uint32_t low = in.u32(), high = in.u32();
        std::memcpy(scalar.bytes, &low, 4);
        std::memcpy(scalar.bytes + 4, &high, 4);
    } else {
        const int64_t value = in.fuzzy(0, 1);
        if (scalar.type == ACL_FLOAT) {
            const float f = float(value);
            std::memcpy(scalar.bytes, &f, 4);
        } else if (scalar.type == ACL_DOUBLE) {
            const double d = double(value);
            std::memcpy(scalar.bytes, &d, 8);
        } else if (scalar.type == ACL_FLOAT16 || scalar.type == ACL_BF16) {
            const uint32_t bits = reference::elementBits(float(value), referenceType(scalar.type));
            std::memcpy(scalar.bytes, &bits, 2);
        } else {
            std::memcpy(scalar.bytes, &value, 8);
        }
    }
    uint64_t raw = 0;
    std::memcpy(&raw, scalar.bytes, 8);
    double value = 0;
    switch (scalar.type) {
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8:
            call.ceilMode = (raw & 0xFF) != 0;
            return;
        case ACL_INT16:
        case ACL_UINT16:
            call.ceilMode = (raw & 0xFFFF) != 0;
            return;
        case ACL_INT32:
        case ACL_UINT32:
            call.ceilMode = (raw & 0xFFFFFFFFu) != 0;
            return;
        case ACL_INT64:
        case ACL_UINT64:
            call.ceilMode = raw != 0;
            return;
        case ACL_FLOAT: {
            float f;
            std::memcpy(&f, scalar.bytes, 4);
            value = f;
            break;
        }
        case ACL_DOUBLE:
            std::memcpy(&value, scalar.bytes, 8);
            break;
        case ACL_FLOAT16:
        case ACL_BF16:
            value = reference::elementValue(uint32_t(raw & 0xFFFF), referenceType(scalar.type));
            break;
        default:
            call.ceilJudged = false;
            return;
    }
    if (knownDefectsAvoided() && !(std::fabs(value) < 0x1p63)) {  // regression-max-pool-v3-*-ceil-mode
        scalar.type = ACL_BOOL;
        scalar.bytes[0] = 1;
        call.ceilMode = true;
        return;
    }
    call.ceilJudged = std::isfinite(value) && (value == 0 || std::fabs(value) >= 1);
    call.ceilMode = value != 0;
}

// ------------------------------------------------------------------------------------------------ the contract

struct Axis {
    int64_t k = 1, s = 1, p = 0, d = 1;  // pool; V3 uses k, s and p = leading pad
    int64_t padEnd = 0;                  // V3 CALCULATED trailing pad
};

// Product of non-negative factors, saturated at kHuge.
Int128 product(const std::vector<int64_t> &factors) {
    Int128 result = 1;
    for (int64_t factor : factors) {
        if (factor <= 0) return 0;
        result = result > kHuge / factor ? kHuge : std::min<Int128>(result * factor, kHuge);
    }
    return result;
}

Int128 floorDiv(Int128 a, Int128 b) {
    Int128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

Int128 pooledSize(int64_t in, const Axis &a, bool ceil) {
    const Int128 eff = Int128(a.d) * (a.k - 1) + 1;
    const Int128 span = Int128(in) + 2 * Int128(a.p) - eff;
    Int128 out = (ceil ? floorDiv(span + a.s - 1, a.s) : floorDiv(span, a.s)) + 1;
    if (ceil && (out - 1) * a.s >= Int128(in) + a.p) out -= 1;
    return out;
}

// The regular-pool attributes per (D,H,W) as SPEC §3.2 expands them; nullopt (and why) when invalid.
std::optional<std::array<Axis, 3>> poolAxes(const Call &call, std::string &why) {
    const int sd = call.op->spatialDims;
    auto expand = [&](const ListArgument &list, bool allowEmpty, const char *name, std::array<int64_t, 3> &values,
                      int64_t depth) -> bool {
        const size_t n = list.values.size();
        if (list.null) return why = text(name, " is null"), false;
        if (!(n == 1 || n == size_t(sd) || (allowEmpty && n == 0))) return why = text(name, " has length ", n), false;
        if (n == 0) return true;  // the caller fills it
        if (n == 1)
            values = {list.values[0], list.values[0], list.values[0]};
        else if (sd == 3)
            values = {list.values[0], list.values[1], list.values[2]};
        else
            values = {depth, list.values[0], list.values[1]};
        if (sd == 2) values[0] = depth;
        return true;
    };
    std::array<int64_t, 3> k{}, s{}, p{}, d{};
    if (!expand(call.kernel, false, "kernelSize", k, 1)) return std::nullopt;
    s = k;
    if (!expand(call.stride, true, "stride", s, 1)) return std::nullopt;
    if (!expand(call.padding, false, "padding", p, 0)) return std::nullopt;
    if (!expand(call.dilation, false, "dilation", d, 1)) return std::nullopt;
    std::array<Axis, 3> axes{};
    for (int a = 0; a < 3; ++a) {
        axes[a] = {k[a], s[a], p[a], d[a], 0};
        if (k[a] < 1 || s[a] < 1 || d[a] < 1 || p[a] < 0 || p[a] > k[a] / 2)
            return why =
                       text("axis ", a, " has kernel ", k[a], " stride ", s[a], " padding ", p[a], " dilation ", d[a]),
                   std::nullopt;
    }
    return axes;
}

// kH*kW of a 2-D kernel (the mask's third dim), saturated rather than wrapped.
int64_t kernelArea(const std::array<Axis, 3> &axes) {
    return static_cast<int64_t>(std::min<Int128>(Int128(axes[1].k) * axes[2].k, INT64_MAX));
}

struct V3Plan {
    std::array<Axis, 2> axes{};  // H, W with k, s, p (leading) and padEnd
    int64_t outH = 0, outW = 0;
};

std::optional<V3Plan> v3Plan(const Call &call, int64_t inH, int64_t inW, std::string &why) {
    const bool forward = !call.op->backward;
    if (call.paddingModeCode == 3) return why = "paddingMode is not a mode", std::nullopt;
    if (call.globalPooling && !forward) return why = "globalPooling with MaxPoolV3Grad", std::nullopt;
    if (call.ceilMode && call.paddingModeCode != 0) return why = "ceilMode without CALCULATED", std::nullopt;
    if (call.ksize.null || call.strides.null) return why = "ksize or strides null", std::nullopt;
    if (call.ksize.values.size() != 4 || call.strides.values.size() != 4)
        return why = "ksize/strides length", std::nullopt;
    const bool padsNull = call.pads.null;
    if (!padsNull && call.pads.values.size() != 4) return why = "pads length", std::nullopt;
    const int h = call.nhwc ? 1 : 2, w = call.nhwc ? 2 : 3, n = 0, c = call.nhwc ? 3 : 1;
    for (int position : {n, c})
        if (call.ksize.values[position] != 1 || call.strides.values[position] != 1)
            return why = "ksize/strides N or C entry is not 1", std::nullopt;
    V3Plan plan;
    const int64_t kernelLimit = forward ? INT64_MAX : 255, strideLimit = forward ? INT64_MAX : 63;
    for (int a = 0; a < 2; ++a) {
        const int position = a == 0 ? h : w;
        plan.axes[a].k = call.ksize.values[position];
        plan.axes[a].s = call.strides.values[position];
        if (plan.axes[a].k < 1 || plan.axes[a].k > kernelLimit || plan.axes[a].s < 1 || plan.axes[a].s > strideLimit)
            return why = "ksize/strides H or W out of range", std::nullopt;
    }
    std::array<int64_t, 4> pads{0, 0, 0, 0};
    if (!padsNull) std::copy(call.pads.values.begin(), call.pads.values.end(), pads.begin());
    if (call.paddingModeCode == 0)
        for (int64_t pad : pads)
            if (pad < 0) return why = "negative pad", std::nullopt;
    if (call.globalPooling) {
        plan.outH = plan.outW = 1;
        plan.axes[0] = {inH, 1, 0, 1, 0};
        plan.axes[1] = {inW, 1, 0, 1, 0};
        return plan;
    }
    const std::array<int64_t, 2> in{inH, inW};
    std::array<Int128, 2> out{};
    for (int a = 0; a < 2; ++a) {
        Axis &axis = plan.axes[a];
        if (call.paddingModeCode == 2) {  // VALID
            out[a] = std::max<Int128>(floorDiv(Int128(in[a]) - axis.k, axis.s) + 1, 0);
            axis.p = 0;
        } else if (call.paddingModeCode == 1) {  // SAME
            out[a] = floorDiv(Int128(in[a]) + axis.s - 1, axis.s);
            const Int128 total = std::max<Int128>((out[a] - 1) * axis.s + axis.k - in[a], 0);
            axis.p = static_cast<int64_t>(total / 2);
        } else {  // CALCULATED
            const int64_t begin = pads[a == 0 ? 0 : 2], end = pads[a == 0 ? 1 : 3];
            const Int128 span = Int128(in[a]) + begin + end - axis.k;
            Int128 o = (call.ceilMode ? floorDiv(span + axis.s - 1, axis.s) : floorDiv(span, axis.s)) + 1;
            if (call.ceilMode && (o - 1) * axis.s >= Int128(in[a]) + begin) o -= 1;
            out[a] = std::max<Int128>(o, 0);
            axis.p = begin;
            axis.padEnd = end;
        }
        if (out[a] > INT64_MAX) return why = "output size overflows", std::nullopt;
    }
    plan.outH = static_cast<int64_t>(out[0]);
    plan.outW = static_cast<int64_t>(out[1]);
    return plan;
}

// aclnnMaxPool (SPEC §7.3): kernelShape length 1/2 (>= 1), strides 0/1/2 (>= 1, default 1), pads 0/1/2/4
// ({top, left, bottom, right}; each 0 <= pad < its kernel and begin + end <= kernel), dilations 0/1/2/4 all 1,
// autoPad 0; as a V3 plan with CALCULATED pads (axes[a].p the leading, padEnd the trailing pad).
std::optional<V3Plan> onnxPlan(const Call &call, int64_t inH, int64_t inW, std::string &why) {
    if (call.kernel.null || call.stride.null || call.padding.null || call.dilation.null)
        return why = "a list is null", std::nullopt;
    const auto &k = call.kernel.values, &s = call.stride.values, &p = call.padding.values, &d = call.dilation.values;
    if (k.size() != 1 && k.size() != 2) return why = "kernelShape length", std::nullopt;
    if (s.size() > 2) return why = "strides length", std::nullopt;
    if (p.size() != 0 && p.size() != 1 && p.size() != 2 && p.size() != 4) return why = "pads length", std::nullopt;
    if (d.size() != 0 && d.size() != 1 && d.size() != 2 && d.size() != 4) return why = "dilations length", std::nullopt;
    for (int64_t value : d)
        if (value != 1) return why = "a dilation is not 1", std::nullopt;
    if (call.autoPad != 0) return why = "autoPad is not 0", std::nullopt;
    std::array<int64_t, 4> pads{0, 0, 0, 0};  // top, left, bottom, right
    if (p.size() == 1) pads = {p[0], p[0], p[0], p[0]};
    if (p.size() == 2) pads = {p[0], p[1], p[0], p[1]};
    if (p.size() == 4) pads = {p[0], p[1], p[2], p[3]};
    V3Plan plan;
    const std::array<int64_t, 2> in{inH, inW};
    std::array<Int128, 2> out{};
    for (int a = 0; a < 2; ++a) {
        Axis &axis = plan.axes[a];
        axis.k = k.size() == 1 ? k[0] : k[a];
        axis.s = s.empty() ? 1 : s.size() == 1 ? s[0] : s[a];
        axis.p = pads[a];
        axis.padEnd = pads[a + 2];
        if (axis.k < 1 || axis.s < 1) return why = "kernel or stride < 1", std::nullopt;
        if (axis.p < 0 || axis.padEnd < 0 || axis.p >= axis.k || axis.padEnd >= axis.k ||
            Int128(axis.p) + axis.padEnd > axis.k)
            return why = text("pads ", axis.p, " and ", axis.padEnd, " against kernel ", axis.k), std::nullopt;
        const Int128 span = Int128(in[a]) + axis.p + axis.padEnd - axis.k;
        Int128 o = (call.ceilMode ? floorDiv(span + axis.s - 1, axis.s) : floorDiv(span, axis.s)) + 1;
        if (call.ceilMode && (o - 1) * axis.s >= Int128(in[a]) + axis.p) o -= 1;
        if (o < 1 || o > INT64_MAX) return why = "Ho or Wo < 1", std::nullopt;
        out[a] = o;
    }
    plan.outH = static_cast<int64_t>(out[0]);
    plan.outW = static_cast<int64_t>(out[1]);
    return plan;
}

// The plan of a V3-like call: aclnnMaxPool's ONNX attributes or the MaxPoolV3 ones.
std::optional<V3Plan> windowPlan(const Call &call, int64_t inH, int64_t inW, std::string &why) {
    return call.op->family == Family::Onnx ? onnxPlan(call, inH, inW, why) : v3Plan(call, inH, inW, why);
}

// ------------------------------------------------------------------------------------------------ operands

// Which dim of an operand is N, C, D, H, W (-1: a size-1 axis it does not have).
std::array<int, 5> axisMap(const Call &call, size_t rank) {
    if (call.op->family == Family::V3)
        return call.nhwc ? std::array<int, 5>{0, 3, -1, 1, 2} : std::array<int, 5>{0, 1, -1, 2, 3};
    const int sd = call.op->spatialDims;
    const bool batched = rank == size_t(sd) + 2;
    std::array<int, 5> map{};
    int next = 0;
    map[0] = batched ? next++ : -1;
    map[1] = next++;
    map[2] = sd == 3 ? next++ : -1;
    map[3] = next++;
    map[4] = next++;
    return map;
}

// Dims of an operand of logical (N,C,D,H,W) size in the operator's layout.
// `batched`: whether it has an N axis (regular and adaptive pools and aclnnMaxPool: rank spatialDims + 2).
std::vector<int64_t> layoutDims(const Call &call, const std::array<int64_t, 5> &size, bool batched) {
    if (call.op->family == Family::V3)
        return call.nhwc ? std::vector<int64_t>{size[0], size[3], size[4], size[1]}
                         : std::vector<int64_t>{size[0], size[1], size[3], size[4]};
    std::vector<int64_t> dims;
    if (batched) dims.push_back(size[0]);
    dims.push_back(size[1]);
    if (call.op->spatialDims == 3) dims.push_back(size[2]);
    dims.push_back(size[3]);
    dims.push_back(size[4]);
    return dims;
}

std::vector<int64_t> layoutDims(const Call &call, const std::array<int64_t, 5> &size) {
    return layoutDims(call, size, call.batched);
}

int channelAxisOf(const Call &call) {
    if (call.op->family == Family::V3) return call.nhwc ? 3 : 1;
    return call.batched ? 1 : 0;
}

// The mask shape of an input of N (when batched) and C planes.
std::vector<int64_t> maskDims(bool batched, int64_t n, int64_t c, int64_t kernelElements, int64_t outH, int64_t outW) {
    std::vector<int64_t> dims;
    if (batched) dims.push_back(n);
    dims.push_back(c);
    dims.push_back(kernelElements);
    const Int128 perPlane = std::min<Int128>(Int128(outH) * outW, kHuge);
    dims.push_back(static_cast<int64_t>(std::min<Int128>(((perPlane + 15) / 16 + 1) * 32, INT64_MAX)));
    return dims;
}

// 5-D logical size of an operand from its dims (size-1 axes where it has none); nullopt if the rank does
// not fit the operator.
std::optional<std::array<int64_t, 5>> logicalSize(const Call &call, const Operand &operand) {
    const size_t rank = operand.dims.size();
    if (call.op->family == Family::V3) {
        if (rank != 4) return std::nullopt;
    } else if (rank != size_t(call.op->spatialDims) + 1 && rank != size_t(call.op->spatialDims) + 2) {
        return std::nullopt;
    }
    const std::array<int, 5> map = axisMap(call, rank);
    std::array<int64_t, 5> size{};
    for (int k = 0; k < 5; ++k) size[k] = map[k] < 0 ? 1 : operand.dims[static_cast<size_t>(map[k])];
    return size;
}

std::vector<int64_t> operandIndex(const std::array<int, 5> &map, size_t rank, const std::array<int64_t, 5> &at) {
    std::vector<int64_t> index(rank, 0);
    for (int k = 0; k < 5; ++k)
        if (map[k] >= 0) index[static_cast<size_t>(map[k])] = at[k];
    return index;
}

template <typename Visit>
void forEach5(const std::array<int64_t, 5> &size, Visit &&visit) {
    std::array<int64_t, 5> at{};
    for (at[0] = 0; at[0] < size[0]; ++at[0])
        for (at[1] = 0; at[1] < size[1]; ++at[1])
            for (at[2] = 0; at[2] < size[2]; ++at[2])
                for (at[3] = 0; at[3] < size[3]; ++at[3])
                    for (at[4] = 0; at[4] < size[4]; ++at[4]) visit(at);
}

bool isFloatType(aclDataType type) { return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16; }

bool isOnnxIntegerType(aclDataType type) {
    return type == ACL_INT32 || type == ACL_INT64 || type == ACL_UINT8 || type == ACL_INT16 || type == ACL_INT8 ||
           type == ACL_UINT16;
}

// The integer an element's raw bits hold (sign- or zero-extended from its width).
int64_t integerValue(uint64_t bits, aclDataType type) {
    switch (type) {
        case ACL_INT8:
            return int8_t(uint8_t(bits));
        case ACL_UINT8:
            return uint8_t(bits);
        case ACL_INT16:
            return int16_t(uint16_t(bits));
        case ACL_UINT16:
            return uint16_t(bits);
        case ACL_INT32:
            return int32_t(uint32_t(bits));
        default:
            return int64_t(bits);
    }
}

uint64_t integerBits(int64_t value, aclDataType type) {
    const size_t bytes = elementBytes(type);
    return bytes >= 8 ? uint64_t(value) : uint64_t(value) & ((uint64_t(1) << (8 * bytes)) - 1);
}

reference::ElementType referenceType(aclDataType type) {
    return type == ACL_FLOAT16 ? reference::ElementType::Float16
           : type == ACL_BF16  ? reference::ElementType::BFloat16
                               : reference::ElementType::Float32;
}

uint64_t randomElementBits(SplitMix &rng, aclDataType type, uint8_t mode) {
    const reference::ElementType element = referenceType(type);
    const uint64_t raw = rng.next();
    switch (mode % 4) {
        case 0: {  // tie-heavy small integers and -0
            const int64_t value = rng.uniform(-2, 2);
            return reference::elementBits(value == 0 && (raw & 1) ? -0.0f : float(value), element);
        }
        case 1: {  // NaN, infinities, signed zeros among small integers
            const int64_t roll = rng.uniform(0, 9);
            if (roll == 0) return type == ACL_FLOAT ? 0x7FC00000u | (raw & 0x8000FFFFu) : 0x7E00u | (raw & 0x80FFu);
            if (roll == 1) return reference::elementBits(INFINITY, element);
            if (roll == 2) return reference::elementBits(-INFINITY, element);
            if (roll == 3) return reference::elementBits(-0.0f, element);
            return reference::elementBits(float(rng.uniform(-3, 3)), element);
        }
        case 2:
            return reference::elementBits(float(int64_t(raw % 200001) - 100000) / 64.0f, element);
        default:  // any bit pattern
            return elementBytes(type) == 2 ? raw & 0xFFFFu : raw & 0xFFFFFFFFu;
    }
}

// aclnnMaxPool's integer elements by data mode: tie-heavy -2..2, the type's extremes among 0 and ±1, any.
uint64_t randomIntegerBits(SplitMix &rng, aclDataType type, uint8_t mode) {
    const uint64_t signBit = uint64_t(1) << (8 * elementBytes(type) - 1);
    switch (mode % 4) {
        case 0:
            return integerBits(rng.uniform(-2, 2), type);
        case 1: {
            const uint64_t choices[] = {0, 1, ~uint64_t(0), signBit - 1, signBit};
            return integerBits(int64_t(choices[rng.uniform(0, 4)]), type);
        }
        default:
            return rng.next();
    }
}

float valueOf(uint64_t bits, aclDataType type) {
    return reference::elementValue(static_cast<uint32_t>(bits), referenceType(type));
}

// Logical NCDHW contents of an operand (raw bits).
std::vector<uint64_t> gather(const Call &call, const Operand &operand, const std::array<int64_t, 5> &size) {
    const std::array<int, 5> map = axisMap(call, operand.dims.size());
    std::vector<uint64_t> bits;
    forEach5(size, [&](const std::array<int64_t, 5> &at) {
        bits.push_back(operand.bitsAt(operandIndex(map, operand.dims.size(), at)));
    });
    return bits;
}

std::vector<float> widen(const std::vector<uint64_t> &bits, aclDataType type) {
    std::vector<float> values(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) values[i] = valueOf(bits[i], type);
    return values;
}

int64_t signedIndex(uint64_t bits, aclDataType type) {
    return type == ACL_INT32 ? int64_t(int32_t(uint32_t(bits))) : int64_t(bits);
}

// ------------------------------------------------------------------------------------------------ the call

aclnnStatus phaseOne(Call &call, uint64_t *workspaceSize, aclOpExecutor **executor) {
    auto t = [&](size_t i) { return call.operands[i].tensor; };
    const char *format = call.nullOptional ? nullptr : (call.nhwc ? "NHWC" : "NCHW");
    const char *mode = call.paddingModeCode == 0 && call.nullOptional ? nullptr : paddingModeText(call.paddingModeCode);
    switch (&*call.op - kOps) {
        case 0:
            return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(t(0), call.kernel.make(), call.stride.make(),
                                                            call.padding.make(), call.dilation.make(), call.ceilMode,
                                                            t(1), t(2), workspaceSize, executor);
        case 1:
            return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                t(0), t(1), t(2), call.kernel.make(), call.stride.make(), call.padding.make(), call.dilation.make(),
                call.ceilMode, t(3), workspaceSize, executor);
        case 2:
            return aclnnAdaptiveMaxPool3dGetWorkspaceSize(t(0), call.outputSize.make(), t(1), t(2), workspaceSize,
                                                          executor);
        case 3:
            return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(t(0), t(1), t(2), t(3), workspaceSize, executor);
        case 4:
            return aclnnMaxPool2dWithIndicesGetWorkspaceSize(t(0), call.kernel.make(), call.stride.make(),
                                                             call.padding.make(), call.dilation.make(), call.ceilMode,
                                                             t(1), t(2), workspaceSize, executor);
        case 5:
            return aclnnMaxPool2dWithMaskGetWorkspaceSize(t(0), call.kernel.make(), call.stride.make(),
                                                          call.padding.make(), call.dilation.make(), call.ceilMode,
                                                          t(1), t(2), workspaceSize, executor);
        case 6:
            return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                t(0), t(1), t(2), call.kernel.make(), call.stride.make(), call.padding.make(), call.dilation.make(),
                call.ceilMode, t(3), workspaceSize, executor);
        case 7:
            return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
                t(0), t(1), t(2), call.kernel.make(), call.stride.make(), call.padding.make(), call.dilation.make(),
                call.ceilMode, t(3), workspaceSize, executor);
        case 8:
            return aclnnAdaptiveMaxPool2dGetWorkspaceSize(t(0), call.outputSize.make(), t(1), t(2), workspaceSize,
                                                          executor);
        case 9:
            return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(t(0), t(1), t(2), t(3), workspaceSize, executor);
        case 10:
            return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(t(0), call.ksize.make(), call.strides.make(), mode,
                                                           call.pads.make(), format, call.globalPooling, call.ceilMode,
                                                           t(1), workspaceSize, executor);
        case 12:
            return aclnnMaxPoolGetWorkspaceSize(t(0), call.kernel.make(), call.stride.make(), call.autoPad,
                                                call.padding.make(), call.dilation.make(), call.ceilModeValue, t(1),
                                                workspaceSize, executor);
        case kMaxPoolV3:
            return aclnnMaxPoolV3GetWorkspaceSize(t(0), call.ksize.make(), call.strides.make(), call.pads.make(),
                                                  call.ceilScalar.make(), t(1), workspaceSize, executor);
        default:
            return aclnnMaxPoolV3GradGetWorkspaceSize(t(0), t(1), t(2), call.ksize.make(), call.strides.make(), mode,
                                                      call.pads.make(), format, call.globalPooling, call.ceilMode, t(3),
                                                      workspaceSize, executor);
    }
}

using PhaseTwo = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
constexpr PhaseTwo kPhaseTwo[kOperatorCount] = {
    aclnnMaxPool3dWithArgmax,
    aclnnMaxPool3dWithArgmaxBackward,
    aclnnAdaptiveMaxPool3d,
    aclnnAdaptiveMaxPool3dBackward,
    aclnnMaxPool2dWithIndices,
    aclnnMaxPool2dWithMask,
    aclnnMaxPool2dWithIndicesBackward,
    aclnnMaxPool2dWithMaskBackward,
    aclnnAdaptiveMaxPool2d,
    aclnnAdaptiveMaxPool2dBackward,
    aclnnMaxPoolV3WithAttrs,
    aclnnMaxPoolV3Grad,
    aclnnMaxPool,
    aclnnMaxPoolV3,
};

// What the contract says about an accepted call: the expected output shapes and the data needed by the
// reference, or why the call should have been refused. Empty operands skip the judgement (their rules
// are subtle and there is nothing to compare).
struct Expectation {
    std::string refuse;         // non-empty: the contract refuses the call
    std::string nullDataAtRun;  // a non-empty operand whose data is null: the run must refuse (161001)
    bool anyEmpty = false;      // an empty operand, or a call the harness does not judge (neither judged nor run)
    std::array<int64_t, 5> in{}, out{};  // logical sizes of the pooled input and output
    std::array<Axis, 3> axes{};          // Pool
    V3Plan v3;                           // V3
    Int128 work = 0;
    bool referenceSafe = true;  // attribute values small enough for the naive reference's int64 arithmetic
};

Expectation judge(const Call &call) {
    Expectation e;
    const OpInfo &op = *call.op;
    for (const Operand &operand : call.operands) {
        if (operand.tensor == nullptr) return e.refuse = operand.role + " is null (or was not created)", e;
        if (operand.empty()) e.anyEmpty = true;
    }
    for (const Operand &operand : call.operands) {
        // self of an index backward gives its shape and dtype only: its data is never read.
        const bool shapeOnly = op.backward && op.family != Family::V3 && operand.role == "self";
        if (operand.empty() || shapeOnly) continue;
        // Accepted by phase 1 (CANN lets the addresses be set before the run), refused by the run.
        if (operand.nullData && e.nullDataAtRun.empty()) e.nullDataAtRun = operand.role;
        if (operand.storageGiven && operand.reach > operand.claimed)
            return e.refuse = operand.role + " reaches beyond its storage claim", e;
    }
    const Operand &first = call.operands[0];
    // input: self / x / origInput; for index backwards gradOutput comes first and self second.
    const size_t inputAt = op.backward && op.family != Family::V3 ? 1 : 0;
    const Operand &input = call.operands[inputAt];
    const aclDataType valueType = input.type;
    const bool v3Grad = op.family == Family::V3 && op.backward;
    // aclnnAdaptiveMaxPool2d also takes DOUBLE, as CANN's op_api does (issue #14); the naive reference has
    // no double path, so such a call is judged on its acceptance and on the bytes outside its outputs only.
    const bool adaptive2dDouble =
        valueType == ACL_DOUBLE && op.family == Family::Adaptive && !op.backward && op.spatialDims == 2;
    if (adaptive2dDouble) e.referenceSafe = false;
    // aclnnMaxPool also takes six integer dtypes (SPEC §7.3), compared exactly.
    const bool onnxInteger = op.family == Family::Onnx && isOnnxIntegerType(valueType);
    if (!(valueType == ACL_FLOAT || valueType == ACL_FLOAT16 || (valueType == ACL_BF16 && !v3Grad) ||
          adaptive2dDouble || onnxInteger))
        return e.refuse = "input dtype unsupported", e;
    const size_t rank = input.dims.size();
    for (const Operand &operand : call.operands)
        if (operand.dims.size() != rank) return e.refuse = operand.role + " rank differs from the input's", e;
    for (size_t i = 0; i < call.operands.size(); ++i) {
        const Operand &operand = call.operands[i];
        const bool isIndices = i == 2 && (op.family == Family::Pool || op.family == Family::Adaptive);
        if (isIndices) {
            if (op.mask ? operand.type != ACL_INT8 : (operand.type != ACL_INT32 && operand.type != ACL_INT64))
                return e.refuse = "indices dtype unsupported", e;
        } else if (operand.type != valueType) {
            return e.refuse = operand.role + " dtype differs from the input's", e;
        }
    }
    const auto inSize = logicalSize(call, input);
    if (!inSize) return e.refuse = "input rank unsupported", e;
    e.in = *inSize;
    if (e.anyEmpty) return e;
    for (const Operand &operand : call.operands)
        for (int64_t dim : operand.dims)
            if (dim < 0) return e.refuse = "negative dim", e;
    const Int128 plane = product({e.in[2], e.in[3], e.in[4]});
    std::vector<int64_t> expectedOut;
    std::string why;
    if (op.family == Family::Pool) {
        const auto axes = poolAxes(call, why);
        if (!axes) return e.refuse = why, e;
        e.axes = *axes;
        e.out = e.in;
        for (int a = 0; a < 3; ++a) {
            const Int128 size = pooledSize(e.in[2 + a], e.axes[a], call.ceilMode);
            if (size < 1 || size > INT64_MAX) return e.refuse = text("pooled size on axis ", a, " is < 1"), e;
            e.out[2 + a] = static_cast<int64_t>(size);
        }
        for (int a = 0; a < 3; ++a)
            if (Int128(e.axes[a].d) * e.axes[a].k > (Int128(1) << 40) || e.axes[a].s > (int64_t(1) << 40))
                e.referenceSafe = false;
        e.work = product({e.out[0], e.out[1], e.out[2], e.out[3], e.out[4], e.axes[0].k, e.axes[1].k, e.axes[2].k});
    } else if (op.family == Family::Adaptive) {
        if (!op.backward) {
            if (call.outputSize.null) return e.refuse = "outputSize is null", e;
            const auto &v = call.outputSize.values;
            const size_t sd = size_t(op.spatialDims);
            if (!(v.empty() || v.size() == 1 || v.size() == sd)) return e.refuse = "outputSize length", e;
            e.out = e.in;
            for (size_t a = 0; a < sd; ++a) {
                const int64_t value = v.empty() ? e.in[5 - sd + a] : v.size() == 1 ? v[0] : v[a];
                if (value < 1) return e.refuse = "outputSize value < 1", e;
                e.out[5 - sd + a] = value;
            }
        } else {
            const auto outSize = logicalSize(call, first);
            e.out = *outSize;
            if (e.out[0] != e.in[0] || e.out[1] != e.in[1]) return e.refuse = "gradOutput N or C differ", e;
        }
        std::vector<int64_t> factors{e.out[0], e.out[1], e.out[2], e.out[3], e.out[4]};
        for (int a = 2; a < 5; ++a) factors.push_back(e.in[a] / e.out[a] + 2);  // taps per window, at most
        e.work = product(factors);
    } else {
        if (op.family == Family::Onnx) {
            // Formats ND, NCHW and NCL, equal for self and out (SPEC §7.3).
            const aclFormat format = call.operands[0].format;
            if (format != ACL_FORMAT_ND && format != ACL_FORMAT_NCHW && format != ACL_FORMAT_NCL)
                return e.refuse = "self format is not ND, NCHW or NCL", e;
            if (call.operands[1].format != format) return e.refuse = "out format differs from self's", e;
        }
        if (!call.ceilJudged) return e.anyEmpty = true, e;  // not judged, not run
        const auto plan = windowPlan(call, e.in[3], e.in[4], why);
        if (!plan) return e.refuse = why, e;
        e.v3 = *plan;
        e.out = {e.in[0], e.in[1], 1, plan->outH, plan->outW};
        if (!op.backward && (plan->outH < 1 || plan->outW < 1)) return e.refuse = "Ho or Wo < 1", e;
        for (const Axis &axis : plan->axes)
            if (axis.k > (int64_t(1) << 40) || axis.s > (int64_t(1) << 40) || axis.p > (int64_t(1) << 40) ||
                axis.padEnd > (int64_t(1) << 40))
                e.referenceSafe = false;
        e.work = product({e.out[0], e.out[1], e.out[3], e.out[4], plan->axes[0].k, plan->axes[1].k});
    }
    for (const Operand &operand : call.operands) e.work = std::min(e.work + operand.elements, kHuge);

    // Shapes.
    // The input's rank says whether the call is batched (edits may have dropped or added a dim to every
    // operand, consistently).
    const bool batched = rank == size_t(op.spatialDims) + 2;
    const std::vector<int64_t> inDims = layoutDims(call, e.in, batched), outDims = layoutDims(call, e.out, batched);
    auto requireDims = [&](const Operand &operand, const std::vector<int64_t> &dims) {
        if (operand.dims != dims && e.refuse.empty()) e.refuse = operand.role + " shape differs from the contract's";
    };
    if (op.family == Family::V3 || op.family == Family::Onnx) {
        requireDims(call.operands[0], inDims);
        requireDims(call.operands[1], outDims);
        if (op.backward) {
            requireDims(call.operands[2], outDims);
            requireDims(call.operands[3], inDims);
        }
    } else if (!op.backward) {
        requireDims(call.operands[1], outDims);
        if (op.mask)
            requireDims(call.operands[2], maskDims(batched, e.in[0], e.in[1], kernelArea(e.axes), e.out[3], e.out[4]));
        else
            requireDims(call.operands[2], outDims);
    } else {
        if (op.family == Family::Pool) requireDims(call.operands[0], outDims);
        if (op.mask)
            requireDims(call.operands[2], maskDims(batched, e.in[0], e.in[1], kernelArea(e.axes), e.out[3], e.out[4]));
        else
            requireDims(call.operands[2], call.operands[0].dims);
        requireDims(call.operands[3], inDims);
    }
    if (!e.refuse.empty()) return e;
    if ((op.family == Family::Pool || op.family == Family::Adaptive) &&
        (op.mask || call.operands[2].type == ACL_INT32) && plane > INT32_MAX)
        e.refuse = "INT32 indices for a plane of more than 2^31-1 elements";
    return e;
}

// Byte ranges the outputs may write, per buffer.
std::vector<unsigned char> writableMask(const Call &call, const Buffer &buffer) {
    std::vector<unsigned char> mask(buffer.size, 0);
    for (const Operand &operand : call.operands) {
        if (!operand.output || operand.buffer.get() != &buffer || operand.elements > kMaxBufferElements) continue;
        forEachIndex(operand.dims, [&](const std::vector<int64_t> &index) {
            const size_t at = operand.byteOffset(index);
            for (size_t b = 0; b < operand.bytesPerElement() && at + b < mask.size(); ++b) mask[at + b] = 1;
        });
    }
    return mask;
}

void snapshotAll(Call &call) {
    for (Operand &operand : call.operands)
        operand.snapshot.assign(operand.buffer->bytes, operand.buffer->bytes + operand.buffer->size);
}

// Every byte of every buffer equals its snapshot, except where `allowOutputs` lets an output view write.
void requireBuffersUnchanged(const Call &call, bool allowOutputs, const char *when) {
    for (const Operand &operand : call.operands) {
        const Buffer &buffer = *operand.buffer;
        if (operand.snapshot.size() != buffer.size) continue;  // a shared buffer is checked through its owner
        const std::vector<unsigned char> mask =
            allowOutputs ? writableMask(call, buffer) : std::vector<unsigned char>(buffer.size, 0);
        for (size_t b = 0; b < buffer.size; ++b)
            FUZZ_REQUIRE(mask[b] || buffer.bytes[b] == operand.snapshot[b], call.op->name, ": ", when, " changed byte ",
                         b, " of the buffer of ", operand.role, " (outside every output view)");
    }
}

// ------------------------------------------------------------------------------------------------ comparisons

void compareBits(const Call &call, const Operand &operand, const std::array<int64_t, 5> &size,
                 const std::vector<uint64_t> &expected, bool nanMatchesNan, const char *what) {
    const std::vector<uint64_t> got = gather(call, operand, size);
    for (size_t i = 0; i < got.size(); ++i) {
        bool same = got[i] == expected[i];
        if (!same && nanMatchesNan && isFloatType(operand.type))
            same = std::isnan(valueOf(expected[i], operand.type)) && std::isnan(valueOf(got[i], operand.type));
        FUZZ_REQUIRE(same, call.op->name, ": ", what, " element ", i, " is 0x", std::hex, got[i],
                     ", the reference says 0x", expected[i]);
    }
}

// Indices an index backward reads, by indexMode: argmax of a random window, any in the plane, with -1s,
// or with one index outside the plane.
std::vector<int64_t> makeIndices(const Call &call, const Expectation &e, SplitMix &rng) {
    const int64_t plane = e.in[2] * e.in[3] * e.in[4];
    const int64_t count = e.out[0] * e.out[1] * e.out[2] * e.out[3] * e.out[4];
    std::vector<int64_t> indices(static_cast<size_t>(count));
    for (auto &index : indices) {
        switch (call.indexMode % 4) {
            case 0:
                index = rng.uniform(0, std::min<int64_t>(plane - 1, 3));
                break;
            case 1:
                index = rng.uniform(0, plane - 1);
                break;
            case 2:
                index = rng.uniform(-1, plane - 1);
                break;
            default:
                index = rng.uniform(-1, plane - 1);
                break;
        }
    }
    if (call.indexMode % 4 == 3 && count > 0) {
        const int64_t bad[] = {plane, -2, plane + 7, INT32_MAX, INT32_MIN};
        indices[static_cast<size_t>(rng.uniform(0, count - 1))] = bad[rng.uniform(0, 4)];
    }
    return indices;
}

// The mask of MaxPool2dWithMask: INT32 indices in (n, c, ho, wo) order from its first byte.
int32_t *maskIndices(const Operand &mask) { return reinterpret_cast<int32_t *>(mask.buffer->bytes + mask.offset); }

void fillInputs(Call &call, const Expectation &e, SplitMix &rng, std::vector<int64_t> &indices) {
    const OpInfo &op = *call.op;
    for (Operand &operand : call.operands) {
        if (operand.output) {
            std::memset(operand.buffer->bytes, 0xA5, operand.buffer->size);
            continue;
        }
        const size_t bytes = operand.bytesPerElement();
        const bool integerValues = op.family == Family::Onnx && isOnnxIntegerType(operand.type);
        for (size_t at = 0; at + bytes <= operand.buffer->size; at += bytes) {
            const uint64_t bits[2] = {isFloatType(operand.type) ? randomElementBits(rng, operand.type, call.dataMode)
                                      : integerValues           ? randomIntegerBits(rng, operand.type, call.dataMode)
                                                                : rng.next(),
                                      rng.next()};
            std::memcpy(operand.buffer->bytes + at, bits, std::min(bytes, sizeof bits));
        }
    }
    // Aliased outputs share an input's buffer: give the shared bytes input values again.
    for (Operand &operand : call.operands)
        if (!operand.output)
            for (Operand &other : call.operands)
                if (other.output && other.buffer == operand.buffer) {
                    const size_t bytes = operand.bytesPerElement();
                    for (size_t at = 0; at + bytes <= operand.buffer->size; at += bytes) {
                        const uint64_t bits[2] = {randomElementBits(rng, operand.type, call.dataMode), 0};
                        std::memcpy(operand.buffer->bytes + at, bits, std::min(bytes, sizeof bits));
                    }
                }
    if (!op.backward || op.family == Family::V3 || !e.refuse.empty() || e.anyEmpty) return;
    if (e.work > kMaxWork) return;
    indices = makeIndices(call, e, rng);
    Operand &target = call.operands[2];
    if (op.mask) {
        const Int128 needed = Int128(indices.size()) * 4 + target.offset;
        if (needed <= Int128(target.buffer->size) && target.offset % 4 == 0) {
            const std::vector<int32_t> narrow(indices.begin(), indices.end());
            std::memcpy(maskIndices(target), narrow.data(), narrow.size() * 4);
        }
        return;
    }
    const std::array<int, 5> map = axisMap(call, target.dims.size());
    size_t i = 0;
    forEach5(e.out, [&](const std::array<int64_t, 5> &at) {
        const int64_t value = indices[i++];
        target.setBits(operandIndex(map, target.dims.size(), at),
                       target.type == ACL_INT32 ? uint64_t(uint32_t(int32_t(value))) : uint64_t(value));
    });
    // An indices view with zero or colliding strides holds the last value written to each address.
    const std::vector<uint64_t> stored = gather(call, target, e.out);
    for (size_t q = 0; q < stored.size(); ++q) indices[q] = signedIndex(stored[q], target.type);
}

// The naive reference's description of a V3-like call (MaxPoolV3WithAttrs, MaxPoolV3Grad, MaxPoolV3 and
// aclnnMaxPool, whose ONNX pads the plan holds as CALCULATED leading and trailing pads).
reference::MaxPoolV3Params v3Params(const Call &call, const Expectation &e) {
    reference::MaxPoolV3Params params;
    params.kernelH = e.v3.axes[0].k;
    params.kernelW = e.v3.axes[1].k;
    params.strideH = e.v3.axes[0].s;
    params.strideW = e.v3.axes[1].s;
    params.mode = call.paddingModeCode == 1   ? reference::V3PaddingMode::Same
                  : call.paddingModeCode == 2 ? reference::V3PaddingMode::Valid
                                              : reference::V3PaddingMode::Calculated;
    params.pads = {e.v3.axes[0].p, e.v3.axes[0].padEnd, e.v3.axes[1].p, e.v3.axes[1].padEnd};
    params.ceilMode = call.ceilMode;
    params.globalPooling = call.globalPooling;
    return params;
}

void checkForward(const Call &call, const Expectation &e, aclnnStatus status) {
    const OpInfo &op = *call.op;
    FUZZ_REQUIRE(status == 0, op.name, ": phase 2 failed with ", status,
                 " on an accepted forward: ", aclGetRecentErrMsg());
    const Operand &self = call.operands[0], &out = call.operands[1];
    const aclDataType type = self.type;
    const std::vector<uint64_t> inputBits = gather(call, self, e.in);
    const std::vector<float> input = widen(inputBits, type);
    const int64_t plane = e.in[2] * e.in[3] * e.in[4];
    std::vector<uint64_t> expected;
    std::vector<int64_t> expectedIndices;
    if (op.family == Family::V3 || op.family == Family::Onnx) {
        const reference::MaxPoolV3Params params = v3Params(call, e);
        if (!isFloatType(type)) {  // aclnnMaxPool's integers, exactly
            std::vector<int64_t> integers;
            for (uint64_t bits : inputBits) integers.push_back(integerValue(bits, type));
            const std::vector<int64_t> values =
                reference::maxPoolV3ForwardIntegers(integers, e.in[0], e.in[1], e.in[3], e.in[4], params);
            for (int64_t value : values) expected.push_back(integerBits(value, type));
            compareBits(call, out, e.out, expected, false, "out");
            return;
        }
        const std::vector<float> values =
            reference::maxPoolV3Forward(input, e.in[0], e.in[1], e.in[3], e.in[4], params);
        for (float value : values) expected.push_back(reference::elementBits(value, referenceType(type)));
        compareBits(call, out, e.out, expected, true, op.family == Family::V3 ? "y" : "out");
        return;
    }
    std::vector<int64_t> selected;  // flat input position of each output, -1 for an empty window
    if (op.family == Family::Pool) {
        reference::Pool3dParams params;
        for (int a = 0; a < 3; ++a) {
            params.kernel[a] = e.axes[a].k;
            params.stride[a] = e.axes[a].s;
            params.padding[a] = e.axes[a].p;
            params.dilation[a] = e.axes[a].d;
        }
        params.ceilMode = call.ceilMode;
        const reference::ForwardResult result = reference::maxPool3dWithArgmax(input, e.in, params);
        expectedIndices = result.indices;
        for (size_t q = 0; q < result.indices.size(); ++q) {
            const int64_t planeIndex = int64_t(q) / (e.out[2] * e.out[3] * e.out[4]);
            selected.push_back(result.indices[q] < 0 ? -1 : planeIndex * plane + result.indices[q]);
        }
    } else {
        const reference::adaptive::ForwardResult result =
            reference::adaptive::forward(input, e.in, {e.out[2], e.out[3], e.out[4]});
        expectedIndices = result.indices;
        selected = result.selected;
    }
    for (int64_t s : selected)
        expected.push_back(s < 0 ? reference::elementBits(-INFINITY, referenceType(type)) : inputBits[size_t(s)]);
    compareBits(call, out, e.out, expected, true, "out");
    const Operand &indices = call.operands[2];
    if (op.mask) {
        if (kernelArea(e.axes) == 1) return;  // nothing stored for single-element windows
        const int32_t *stored = maskIndices(indices);
        for (size_t q = 0; q < expectedIndices.size(); ++q)
            FUZZ_REQUIRE(stored[q] == expectedIndices[q], op.name, ": mask index ", q, " is ", stored[q],
                         ", the reference says ", expectedIndices[q]);
        return;
    }
    const std::vector<uint64_t> got = gather(call, indices, e.out);
    for (size_t q = 0; q < got.size(); ++q)
        FUZZ_REQUIRE(signedIndex(got[q], indices.type) == expectedIndices[q], op.name, ": indices element ", q, " is ",
                     signedIndex(got[q], indices.type), ", the reference says ", expectedIndices[q]);
}

void checkBackward(const Call &call, const Expectation &e, aclnnStatus status, const std::vector<int64_t> &indices,
                   const std::vector<uint64_t> &gradOutputBits, const std::vector<uint64_t> &origInputBits,
                   const std::vector<uint64_t> &origOutputBits) {
    const OpInfo &op = *call.op;
    const Operand &gradInput = call.operands[3];
    const aclDataType type = gradInput.type;
    const reference::ElementType element = referenceType(type);
    std::vector<float> sums;
    bool ok = true;
    if (op.family == Family::V3) {
        reference::MaxPoolV3Params params;
        params.kernelH = e.v3.axes[0].k;
        params.kernelW = e.v3.axes[1].k;
        params.strideH = e.v3.axes[0].s;
        params.strideW = e.v3.axes[1].s;
        params.mode = call.paddingModeCode == 1   ? reference::V3PaddingMode::Same
                      : call.paddingModeCode == 2 ? reference::V3PaddingMode::Valid
                                                  : reference::V3PaddingMode::Calculated;
        if (!call.pads.null) std::copy(call.pads.values.begin(), call.pads.values.end(), params.pads.begin());
        params.ceilMode = call.ceilMode;
        sums = reference::maxPoolV3GradSums(widen(origInputBits, type), widen(origOutputBits, type),
                                            widen(gradOutputBits, type), e.in[0], e.in[1], e.in[3], e.in[4], params);
    } else {
        std::vector<int64_t> used = indices;
        if (op.mask && kernelArea(e.axes) == 1) {  // implied: the single element of each window
            size_t q = 0;
            forEach5(e.out, [&](const std::array<int64_t, 5> &at) {
                used[q++] = (at[3] * e.axes[1].s - e.axes[1].p) * e.in[4] + at[4] * e.axes[2].s - e.axes[2].p;
            });
        }
        const reference::BackwardResult result =
            reference::maxPool3dWithArgmaxBackward(widen(gradOutputBits, type), used, e.out, e.in);
        sums = result.accumulators;
        ok = result.ok;
    }
    if (!ok) {
        FUZZ_REQUIRE(status == kInvalid, op.name, ": an index outside the plane gave status ", status, ", not 161002");
        FUZZ_REQUIRE(std::strlen(aclGetRecentErrMsg()) > 0, op.name, ": bad index refused without a message");
        compareBits(call, gradInput, e.in, std::vector<uint64_t>(sums.size(), 0), false,
                    "gradInput (after a bad index)");
        return;
    }
    FUZZ_REQUIRE(status == 0, op.name, ": phase 2 failed with ", status, " on valid indices: ", aclGetRecentErrMsg());
    std::vector<uint64_t> expected;
    for (float sum : sums) expected.push_back(reference::elementBits(sum, element));
    compareBits(call, gradInput, e.in, expected, true, "gradInput");
}

// What one run of a call is judged with (computed once per call, whichever implementation runs it).
struct Checks {
    const Expectation &e;
    bool small;
    int opIndex;
    const std::vector<int64_t> &indices;
    const std::vector<uint64_t> &gradOutputBits, &origInputBits, &origOutputBits;
};

void restoreSnapshots(Call &call) {
    for (Operand &operand : call.operands)
        if (operand.snapshot.size() == operand.buffer->size && operand.buffer->size > 0)
            std::memcpy(operand.buffer->bytes, operand.snapshot.data(), operand.buffer->size);
}

// The executor (repeatable, just run) run again on copies of every buffer, its tensors re-pointed there with
// aclSetInputTensorAddr / aclSetOutputTensorAddr: the copies start as the buffers did before the first run
// and must end byte-identical to them (the same computation on the same bytes, planned again for the new
// addresses), and the first run's buffers must not change. The tensors are pointed back afterwards (CANN's
// functions record the new address in them too), since the copies are freed.
void rerunOnCopies(const Call &call, aclOpExecutor *executor, int opIndex, aclnnStatus firstStatus) {
    const OpInfo &op = *call.op;
    // Each copy lies at the old buffer's address modulo 64, so the run is planned as the first was: a plan
    // chosen for other alignments may be another implementation, whose NaN payloads the contract leaves open
    // (tests/tensor_address_test.cpp moves operands off their alignment).
    struct Copy {
        std::unique_ptr<unsigned char[]> storage;
        unsigned char *bytes;
    };
    std::map<const Buffer *, Copy> copies;
    for (const Operand &operand : call.operands) {
        const Buffer *old = operand.buffer.get();
        if (copies.count(old)) continue;
        Copy copy{std::make_unique<unsigned char[]>(old->size + 64), nullptr};
        const uintptr_t base = reinterpret_cast<uintptr_t>(copy.storage.get());
        copy.bytes = copy.storage.get() + (reinterpret_cast<uintptr_t>(old->bytes) - base) % 64;
        const Operand *owner = nullptr;  // the operand holding the buffer's snapshot from before the first run
        for (const Operand &other : call.operands)
            if (other.buffer.get() == old && other.snapshot.size() == old->size) owner = &other;
        if (old->size > 0) std::memcpy(copy.bytes, owner ? owner->snapshot.data() : old->bytes, old->size);
        copies.emplace(old, std::move(copy));
    }
    size_t inputs = 0, outputs = 0;
    for (const Operand &operand : call.operands) {
        void *address = operand.nullData ? nullptr : copies.at(operand.buffer.get()).bytes;
        const aclnnStatus status = operand.output ? aclSetOutputTensorAddr(executor, outputs++, operand.tensor, address)
                                                  : aclSetInputTensorAddr(executor, inputs++, operand.tensor, address);
        FUZZ_REQUIRE(status == 0, op.name, ": re-pointing ", operand.role, " failed with ", status, ": ",
                     aclGetRecentErrMsg());
    }
    std::map<const Buffer *, std::vector<unsigned char>> afterFirst;
    for (const auto &[old, copy] : copies) afterFirst[old].assign(old->bytes, old->bytes + old->size);
    const aclnnStatus second = kPhaseTwo[opIndex % kOperatorCount](nullptr, 0, executor, nullptr);
    FUZZ_REQUIRE(second == firstStatus, op.name, ": the run on re-pointed memory returned ", second, ", the first run ",
                 firstStatus, ": ", aclGetRecentErrMsg());
    for (const auto &[old, copy] : copies) {
        FUZZ_REQUIRE(old->size == 0 || std::memcmp(old->bytes, afterFirst[old].data(), old->size) == 0, op.name,
                     ": the run on re-pointed memory changed the first run's buffers");
        FUZZ_REQUIRE(old->size == 0 || std::memcmp(old->bytes, copy.bytes, old->size) == 0, op.name,
                     ": the run on re-pointed memory gave other bytes than the first run");
    }
    for (const Operand &operand : call.operands)
        FUZZ_REQUIRE(aclSetRawTensorAddr(operand.tensor, operand.nullData ? nullptr : operand.buffer->bytes) == 0,
                     op.name, ": pointing ", operand.role, " back failed: ", aclGetRecentErrMsg());
}

// Both phases of the call with `forced` as the only implementation (nullptr: the library's choice), judged.
// Returns whether phase 2 ran and its outputs were compared with the reference.
bool runAndJudge(Call &call, const Checks &c, const char *forced) {
    const OpInfo &op = *call.op;
    const Expectation &e = c.e;
    uint64_t workspaceSize = 0xDEADBEEF;
    aclOpExecutor *executor = reinterpret_cast<aclOpExecutor *>(uintptr_t(0x1234560));
    poolgradForceImplementation(forced);
    const aclnnStatus first = phaseOne(call, &workspaceSize, &executor);
    poolgradForceImplementation(nullptr);

    if (first != 0) {
        FUZZ_REQUIRE(executor == nullptr && workspaceSize == 0, op.name, ": phase 1 failed with ", first,
                     " but left *executor/*workspaceSize set");
        FUZZ_REQUIRE(std::strlen(aclGetRecentErrMsg()) > 0, op.name, ": phase 1 failed with ", first,
                     " and no message");
        requireBuffersUnchanged(call, false, "a refused phase 1");
        return false;
    }
    FUZZ_REQUIRE(executor != nullptr, op.name, ": phase 1 succeeded without an executor");
    requireBuffersUnchanged(call, false, "phase 1");
    FUZZ_REQUIRE(e.refuse.empty(), op.name, ": phase 1 accepted a call the contract refuses (", e.refuse, ")");
    for (const Operand &operand : call.operands) {
        FUZZ_REQUIRE(operand.elements < (Int128(1) << 63) && operand.reach < (Int128(1) << 63), op.name,
                     ": phase 1 accepted ", operand.role, " whose element count or extent overflows int64");
        const bool shapeOnly = op.backward && op.family != Family::V3 && operand.role == "self";
        FUZZ_REQUIRE(!operand.storageGiven || operand.empty() || shapeOnly || operand.reach <= operand.claimed, op.name,
                     ": phase 1 accepted ", operand.role, " whose view reaches element ",
                     static_cast<long long>(std::min<Int128>(operand.reach - 1, INT64_MAX)),
                     " beyond its storage claim of ",
                     static_cast<long long>(std::min<Int128>(operand.claimed, INT64_MAX)), " elements");
        FUZZ_REQUIRE(!operand.output || !operand.definitelySelfOverlapping(), op.name, ": phase 1 accepted output ",
                     operand.role, " whose elements overlap (zero or colliding strides)");
    }
    if (!c.small || workspaceSize > (uint64_t(1) << 20)) {
        FUZZ_REQUIRE(aclDestroyAclOpExecutor(executor) == 0, op.name, ": destroying an unrun executor failed");
        return false;
    }
    // The library's own choice is also run a second time on re-pointed memory (rerunOnCopies).
    const bool repoint = forced == nullptr && workspaceSize == 0;
    if (repoint) FUZZ_REQUIRE(aclSetAclOpExecutorRepeatable(executor) == 0, op.name, ": aclSetAclOpExecutorRepeatable");
    std::vector<unsigned char> workspace(static_cast<size_t>(workspaceSize) + 1);
    const aclnnStatus second = kPhaseTwo[c.opIndex % kOperatorCount](workspaceSize ? workspace.data() : nullptr,
                                                                     workspaceSize, executor, nullptr);
    requireBuffersUnchanged(call, true, "phase 2");
    // After the checks below, which read the first run's message (a successful call clears it).
    const auto rerunRepointed = [&] {
        if (!repoint) return;
        rerunOnCopies(call, executor, c.opIndex, second);
        FUZZ_REQUIRE(aclDestroyAclOpExecutor(executor) == 0, op.name, ": destroying the repeatable executor failed");
    };
    if (forced != nullptr && second == 0) {
        // The forced implementation ran, or the report says which ran instead and why.
        poolgradRunReport report{};
        FUZZ_REQUIRE(poolgradGetLastRunReport(&report) == 0, op.name, ": poolgradGetLastRunReport failed");
        FUZZ_REQUIRE(std::strcmp(report.implementation, forced) == 0 || report.fallback[0] != 0, op.name, ": forced ",
                     forced, " but the run report names ", report.implementation, " without a fallback");
    }
    if (!e.nullDataAtRun.empty()) {
        FUZZ_REQUIRE(second == ACLNN_ERR_PARAM_NULLPTR, op.name, ": the run with null data in ", e.nullDataAtRun,
                     " returned ", second, " (161001 expected)");
        FUZZ_REQUIRE(std::strlen(aclGetRecentErrMsg()) > 0, op.name, ": the run refused null data without a message");
        requireBuffersUnchanged(call, false, "a run refused for null data");
        return rerunRepointed(), false;
    }
    if (!e.referenceSafe) return rerunRepointed(), false;
    if (op.backward)
        checkBackward(call, e, second, c.indices, c.gradOutputBits, c.origInputBits, c.origOutputBits);
    else
        checkForward(call, e, second);
    rerunRepointed();
    return true;
}

}  // namespace

void fuzzOperatorCall(FuzzInput &in, int opIndex) {
    Call call;
    call.op = &kOps[opIndex % kOperatorCount];
    const OpInfo &op = *call.op;
    call.valueType = op.family == Family::Onnx
                         ? decodeType(in.byte(), {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT32, ACL_INT64, ACL_UINT8,
                                                  ACL_INT16, ACL_INT8, ACL_UINT16})
                         : decodeType(in.byte(), {ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
    call.indexType = op.mask ? ACL_INT8 : decodeType(in.byte(), {ACL_INT32, ACL_INT64});
    const uint8_t flags = in.byte();
    call.batched = op.family == Family::V3 || (flags & 1);
    call.ceilMode = flags & 2;
    call.nhwc = flags & 4;
    call.paddingModeCode = (flags >> 3) & 3;
    call.globalPooling = flags & 32;
    call.nullOptional = flags & 64;
    if (call.nullOptional) call.nhwc = false;  // a null dataFormat means NCHW
    call.alias = flags & 128;
    const bool plainV3 = opIndex % kOperatorCount == kMaxPoolV3;
    if (op.family == Family::Onnx || plainV3) call.nhwc = false, call.paddingModeCode = 0, call.globalPooling = false;
    call.shape = {in.fuzzy(1, 3), in.fuzzy(1, 3), in.fuzzy(1, 6), in.fuzzy(1, 6), in.fuzzy(1, 6)};
    if (op.spatialDims == 2) call.shape[2] = 1;
    if (!call.batched) call.shape[0] = 1;
    const size_t sd = size_t(op.spatialDims);
    if (op.family == Family::Pool) {
        readList(in, call.kernel, sd, [](size_t) { return std::pair<int64_t, int64_t>{1, 3}; });
        readList(in, call.stride, sd, [](size_t) { return std::pair<int64_t, int64_t>{1, 3}; });
        readList(in, call.padding, sd, [](size_t) { return std::pair<int64_t, int64_t>{0, 1}; });
        readList(in, call.dilation, sd, [](size_t) { return std::pair<int64_t, int64_t>{1, 2}; });
    } else if (op.family == Family::Adaptive) {
        readList(in, call.outputSize, sd, [](size_t) { return std::pair<int64_t, int64_t>{1, 6}; });
    } else if (op.family == Family::Onnx) {
        readList(in, call.kernel, 2, [](size_t) { return std::pair<int64_t, int64_t>{1, 3}; });
        readList(in, call.stride, 2, [](size_t) { return std::pair<int64_t, int64_t>{1, 3}; });
        readList(in, call.padding, 4, [](size_t) { return std::pair<int64_t, int64_t>{0, 1}; });
        readList(in, call.dilation, 2, [](size_t) { return std::pair<int64_t, int64_t>{1, 1}; });
        call.autoPad = in.fuzzy(0, 0);
        call.ceilModeValue = in.fuzzy(0, 1);
        call.ceilMode = call.ceilModeValue != 0;
    } else {
        const bool nhwc = call.nhwc;
        auto spatial = [nhwc](size_t position) { return nhwc ? (position == 1 || position == 2) : position >= 2; };
        readList(in, call.ksize, 4, [&](size_t p) {
            return spatial(p) ? std::pair<int64_t, int64_t>{1, 3} : std::pair<int64_t, int64_t>{1, 1};
        });
        readList(in, call.strides, 4, [&](size_t p) {
            return spatial(p) ? std::pair<int64_t, int64_t>{1, 3} : std::pair<int64_t, int64_t>{1, 1};
        });
        readList(in, call.pads, 4, [](size_t) { return std::pair<int64_t, int64_t>{0, 2}; });
        if (call.nullOptional) call.pads.null = true;
        if (plainV3) readCeilScalar(in, call);
    }
    call.dataMode = in.byte();
    call.indexMode = in.byte();
    call.seed = in.u32();

    // The output size the call is built with: the contract's when the attributes are valid.
    std::array<int64_t, 5> outSize = call.shape;
    std::string why;
    if (op.family == Family::Pool) {
        if (const auto axes = poolAxes(call, why))
            for (int a = 0; a < 3; ++a)
                outSize[2 + a] = static_cast<int64_t>(
                    std::clamp<Int128>(pooledSize(call.shape[2 + a], (*axes)[a], call.ceilMode), 0, INT64_MAX));
    } else if (op.family == Family::Adaptive) {
        const auto &v = call.outputSize.values;
        for (size_t a = 0; a < sd; ++a)
            if (!v.empty()) outSize[5 - sd + a] = v.size() == 1 ? v[0] : a < v.size() ? v[a] : 1;
    } else if (const auto plan = windowPlan(call, call.shape[3], call.shape[4], why)) {
        outSize[3] = plan->outH;
        outSize[4] = plan->outW;
    }
    int64_t kernelElements = 1;
    if (op.mask)
        if (const auto axes = poolAxes(call, why)) kernelElements = kernelArea(*axes);

    struct Role {
        const char *name;
        bool output;
        std::vector<int64_t> dims;
        aclDataType type;
    };
    const std::vector<int64_t> inDims = layoutDims(call, call.shape), outDims = layoutDims(call, outSize);
    const std::vector<int64_t> indexDims =
        op.mask ? maskDims(call.batched, call.shape[0], call.shape[1], kernelElements, outSize[3], outSize[4])
                : outDims;
    std::vector<Role> roles;
    if (op.family == Family::V3) {
        roles = op.backward ? std::vector<Role>{{"origInput", false, inDims, call.valueType},
                                                {"origOutput", false, outDims, call.valueType},
                                                {"grad", false, outDims, call.valueType},
                                                {"outGrad", true, inDims, call.valueType}}
                : plainV3
                    ? std::vector<Role>{{"x", false, inDims, call.valueType}, {"out", true, outDims, call.valueType}}
                    : std::vector<Role>{{"x", false, inDims, call.valueType}, {"y", true, outDims, call.valueType}};
    } else if (op.family == Family::Onnx) {
        roles = {{"self", false, inDims, call.valueType}, {"out", true, outDims, call.valueType}};
    } else if (op.backward) {
        roles = {{"gradOutput", false, outDims, call.valueType},
                 {"self", false, inDims, call.valueType},
                 {"indices", false, indexDims, call.indexType},
                 {"gradInput", true, inDims, call.valueType}};
    } else {
        roles = {{"self", false, inDims, call.valueType},
                 {"out", true, outDims, call.valueType},
                 {"indices", true, indexDims, call.indexType}};
    }

    std::vector<OperandLayout> layouts(roles.size());
    for (size_t i = 0; i < roles.size(); ++i) {
        OperandLayout &layout = layouts[i];
        layout.layout = in.byte();
        layout.offset = in.fuzzy(0, 3);
        layout.storage = in.byte();
        const uint8_t overlapping = layout.layout % 8;
        if (knownDefectsAvoided() && roles[i].output && (overlapping == 5 || overlapping >= 6)) layout.layout = 1;
    }
    if (knownDefectsAvoided()) call.alias = false;
    std::vector<OperandEdits> edits(roles.size());
    const int editCount = in.byte() % 9;
    for (int i = 0; i < editCount; ++i) {
        OperandEdits &edit = edits[in.byte() % roles.size()];
        const uint8_t field = in.byte() % 10;
        const int axis = in.byte();
        const int64_t value = in.fuzzy(0, 8);
        switch (field) {
            case 0:
                edit.dims.emplace_back(axis, value);
                break;
            case 1:
                edit.typeSet = true, edit.type = value;
                break;
            case 2:
                edit.formatSet = true, edit.format = value;
                break;
            case 3:
                edit.dropLastDim = true;
                break;
            case 4:
                edit.appendDims.push_back(value);
                break;
            case 5:
                edit.nullTensor = true;
                break;
            case 6:
                if (!(knownDefectsAvoided() && roles[&edit - edits.data()].output))
                    edit.strides.emplace_back(axis, value);
                break;
            case 7:
                edit.offsetSet = true, edit.offset = value;
                break;
            case 8:
                edit.storage.push_back(value);
                break;
            default:
                edit.nullData = true;
                break;
        }
    }

    SplitMix rng(call.seed);
    call.operands = std::vector<Operand>(roles.size());
    for (size_t i = 0; i < roles.size(); ++i)
        buildOperand(call.operands[i], roles[i].name, roles[i].output, roles[i].dims, roles[i].type,
                     call.op->family == Family::V3 ? (call.nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW)
                     : op.spatialDims == 3         ? ACL_FORMAT_NCDHW
                                                   : ACL_FORMAT_NCHW,
                     channelAxisOf(call), layouts[i], edits[i], rng);
    // The alias flag makes the (first) output share the buffer of the input it could be computed in place
    // over: gradInput/outGrad over gradOutput/grad, out/y over self/x.
    const size_t outputAt = op.backward ? 3 : 1;
    const size_t aliasedInput = op.backward ? (op.family == Family::V3 ? 2 : 0) : 0;
    for (size_t i = 0; i < roles.size(); ++i)
        allocateBuffer(call.operands[i], call.alias && i == outputAt ? &call.operands[aliasedInput] : nullptr);
    for (size_t i = 0; i < roles.size(); ++i) createTensor(call.operands[i], edits[i]);

    const Expectation e = judge(call);
    std::vector<int64_t> indices;
    fillInputs(call, e, rng, indices);
    // Logical inputs as they were before the call (an aliased output overwrites them).
    std::vector<uint64_t> gradOutputBits, origInputBits, origOutputBits;
    const bool small = e.refuse.empty() && !e.anyEmpty && e.work <= kMaxWork;
    if (small && op.backward) {
        if (op.family == Family::V3) {
            origInputBits = gather(call, call.operands[0], e.in);
            origOutputBits = gather(call, call.operands[1], e.out);
            gradOutputBits = gather(call, call.operands[2], e.out);
        } else {
            gradOutputBits = gather(call, call.operands[0], e.out);
        }
    }
    snapshotAll(call);

    // Implementation (one forced, or, with bit 3, every one in turn after the first run) and threads.
    const uint8_t implementationCode = in.byte();
    std::vector<const char *> names;  // the implementations of the operator's task
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i)
        if (std::strcmp(poolgradImplementationTask(i), op.task) == 0) names.push_back(poolgradImplementationName(i));
    const char *forced = nullptr;
    if (const uint8_t force = implementationCode % 8; force != 0 && !names.empty())
        forced = names[size_t(force - 1) % names.size()];
    const uint8_t threads = in.byte();
    poolgradSetNumThreads(threads & 1 ? 2 : 1);
    poolgradSetParallelThreshold(threads & 2 ? 1 : 0);
    // Streaming stores wherever a kernel can stream: the fuzzer's small tensors never reach 4 MiB.
    poolgradSetStreamingStores(threads & 4 ? POOLGRAD_STREAMING_STORES_ALWAYS : POOLGRAD_STREAMING_STORES_AUTOMATIC);

    const Checks checks{e, small, opIndex, indices, gradOutputBits, origInputBits, origOutputBits};
    const bool judged = runAndJudge(call, checks, forced);
    if (judged && (implementationCode & 8))
        for (const char *name : names) {
            restoreSnapshots(call);
            runAndJudge(call, checks, name);
        }
    poolgradSetNumThreads(1);
    poolgradSetParallelThreshold(0);
    poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_AUTOMATIC);
}

}  // namespace poolgrad_fuzz
