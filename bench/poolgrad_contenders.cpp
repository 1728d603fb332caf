// poolgrad's contenders for a case: the dispatched implementation (the headline) and every
// implementation of the list that accepts the problem when forced (poolgradForceImplementation). Only
// the public C API is used, so whatever the library's list holds is measured.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "bench_case.h"
#include "poolgrad/poolgrad.h"

namespace bench {
namespace {

using PhaseTwo = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

[[noreturn]] void apiFail(const std::string &what, int status) {
    const char *message = aclGetRecentErrMsg();
    throw std::runtime_error("poolgrad: " + what + " failed with " + std::to_string(status) + ": " +
                             (message ? message : ""));
}

// One operand: aclrtMalloc storage, its logical 5-D (N,C,D,H,W) sizes and strides, and the aclTensor
// the operator sees (5-D, 4-D (N,C,H,W) or 4-D (N,H,W,C) over the same storage).
struct Operand {
    enum class Kind { Value, Index32, Index64 };
    Kind kind = Kind::Value;
    DType dt = DType::F32;
    int64_t size[5] = {}, stride[5] = {};
    int64_t elements = 0;
    void *data = nullptr;
    aclTensor *tensor = nullptr;

    Operand() = default;
    Operand(const Operand &) = delete;
    Operand &operator=(const Operand &) = delete;
    ~Operand() {
        if (tensor) aclDestroyTensor(tensor);
        if (data) aclrtFree(data);
    }

    size_t elementBytes() const {
        return kind == Kind::Index64 ? 8 : kind == Kind::Index32 ? 4 : (dt == DType::F32 ? 4 : 2);
    }
    int64_t offsetOf(int64_t flat) const {
        int64_t offset = 0;
        for (int axis = 4; axis >= 0; --axis) {
            offset += (flat % size[axis]) * stride[axis];
            flat /= size[axis];
        }
        return offset;
    }
    void write(const std::vector<float> &values) {
        for (int64_t i = 0; i < elements; ++i) {
            char *at = static_cast<char *>(data) + offsetOf(i) * static_cast<int64_t>(elementBytes());
            const float v = values[static_cast<size_t>(i)];
            if (dt == DType::F32)
                std::memcpy(at, &v, 4);
            else {
                const uint16_t bits = dt == DType::F16 ? floatToHalfBits(v) : floatToBf16Bits(v);
                std::memcpy(at, &bits, 2);
            }
        }
    }
    std::vector<float> read() const {
        std::vector<float> values(static_cast<size_t>(elements));
        for (int64_t i = 0; i < elements; ++i) {
            const char *at = static_cast<const char *>(data) + offsetOf(i) * static_cast<int64_t>(elementBytes());
            float v;
            if (kind != Kind::Value) {
                int64_t index = 0;
                if (kind == Kind::Index32) {
                    int32_t i32;
                    std::memcpy(&i32, at, 4);
                    index = i32;
                } else {
                    std::memcpy(&index, at, 8);
                }
                v = static_cast<float>(index);
            } else if (dt == DType::F32) {
                std::memcpy(&v, at, 4);
            } else {
                uint16_t bits;
                std::memcpy(&bits, at, 2);
                v = dt == DType::F16 ? halfBitsToFloat(bits) : bf16BitsToFloat(bits);
            }
            values[static_cast<size_t>(i)] = v;
        }
        return values;
    }
};

aclDataType aclType(const Operand &o) {
    if (o.kind == Operand::Kind::Index32) return ACL_INT32;
    if (o.kind == Operand::Kind::Index64) return ACL_INT64;
    return o.dt == DType::F32 ? ACL_FLOAT : o.dt == DType::F16 ? ACL_FLOAT16 : ACL_BF16;
}

// Allocates `o` with logical sizes (N,C,spatial) in the case's layout and makes its aclTensor.
void allocate(Operand &o, const Case &c, const int64_t spatial[3], Operand::Kind kind) {
    o.kind = kind;
    o.dt = c.dt;
    const int64_t N = c.n, C = c.c, D = spatial[0], H = spatial[1], W = spatial[2];
    const int64_t sizes[5] = {N, C, D, H, W};
    std::memcpy(o.size, sizes, sizeof sizes);
    o.elements = N * C * D * H * W;
    if (c.layout == Layout::Plain) {
        const int64_t strides[5] = {C * D * H * W, D * H * W, H * W, W, 1};
        std::memcpy(o.stride, strides, sizeof strides);
    } else {
        const int64_t strides[5] = {D * H * W * C, 1, H * W * C, W * C, C};
        std::memcpy(o.stride, strides, sizeof strides);
    }
    const size_t bytes = static_cast<size_t>(o.elements) * o.elementBytes();
    if (int st = aclrtMalloc(&o.data, bytes, ACL_MEM_MALLOC_HUGE_FIRST); st != ACL_SUCCESS) apiFail("aclrtMalloc", st);
    std::memset(o.data, 0, bytes);
    std::vector<int64_t> shape, strides;
    aclFormat format = ACL_FORMAT_ND;
    if (!c.twoD()) {
        shape.assign(o.size, o.size + 5);
        strides.assign(o.stride, o.stride + 5);
    } else if (c.op == Op::V3 && c.layout == Layout::ChannelsLast) {
        shape = {N, H, W, C};
        strides = {o.stride[0], o.stride[3], o.stride[4], o.stride[1]};
        format = ACL_FORMAT_NHWC;
    } else {
        shape = {N, C, H, W};
        strides = {o.stride[0], o.stride[1], o.stride[3], o.stride[4]};
        if (c.op == Op::V3) format = ACL_FORMAT_NCHW;
    }
    const std::vector<int64_t> storage = {o.elements};
    o.tensor = aclCreateTensor(shape.data(), shape.size(), aclType(o), strides.data(), 0, format, storage.data(),
                               storage.size(), o.data);
    if (o.tensor == nullptr) apiFail("aclCreateTensor", -1);
}

struct IntArray {
    aclIntArray *array;
    explicit IntArray(const std::vector<int64_t> &values) : array(aclCreateIntArray(values.data(), values.size())) {}
    ~IntArray() { aclDestroyIntArray(array); }
    IntArray(const IntArray &) = delete;
    IntArray &operator=(const IntArray &) = delete;
};

// Everything a case's poolgrad contenders share; freed when the last contender goes.
struct State {
    Case c;
    aclrtStream stream = nullptr;
    Operand input, output, indices, gradOutput, gradInput;
    std::vector<aclOpExecutor *> executors;
    std::vector<void *> workspaces;

    ~State() {
        for (aclOpExecutor *e : executors) aclDestroyAclOpExecutor(e);
        for (void *w : workspaces)
            if (w) aclrtFree(w);
        if (stream) aclrtDestroyStream(stream);
    }

    std::vector<int64_t> spatial(const int64_t *v) const {
        return c.twoD() ? std::vector<int64_t>{v[1], v[2]} : std::vector<int64_t>{v[0], v[1], v[2]};
    }
    std::vector<int64_t> v3List(int64_t h, int64_t w) const {
        return c.layout == Layout::ChannelsLast ? std::vector<int64_t>{1, h, w, 1} : std::vector<int64_t>{1, 1, h, w};
    }
    const char *v3Format() const { return c.layout == Layout::ChannelsLast ? "NHWC" : "NCHW"; }

    // Phase 1 of the forward (which makes `output` and `indices`) or of the measured operator.
    aclnnStatus forwardPhaseOne(uint64_t *ws, aclOpExecutor **ex) {
        IntArray kernel(spatial(c.k)), stride(spatial(c.s)), padding(spatial(c.p)),
            dilation(std::vector<int64_t>(c.twoD() ? 2 : 3, 1)), outSize(spatial(c.out));
        switch (c.op) {
            case Op::MaxPool3d:
                return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(input.tensor, kernel.array, stride.array, padding.array,
                                                                dilation.array, c.ceil, output.tensor, indices.tensor,
                                                                ws, ex);
            case Op::Adaptive3d:
                return aclnnAdaptiveMaxPool3dGetWorkspaceSize(input.tensor, outSize.array, output.tensor,
                                                              indices.tensor, ws, ex);
            case Op::MaxPool2d:
                return aclnnMaxPool2dWithIndicesGetWorkspaceSize(input.tensor, kernel.array, stride.array,
                                                                 padding.array, dilation.array, c.ceil, output.tensor,
                                                                 indices.tensor, ws, ex);
            case Op::V3: {
                IntArray ksize(v3List(c.k[1], c.k[2])), strides(v3List(c.s[1], c.s[2])),
                    pads(std::vector<int64_t>{c.p[1], c.p[1], c.p[2], c.p[2]});
                return aclnnMaxPoolV3WithAttrsGetWorkspaceSize(input.tensor, ksize.array, strides.array, "CALCULATED",
                                                               pads.array, v3Format(), false, c.ceil, output.tensor, ws,
                                                               ex);
            }
        }
        return -1;
    }
    PhaseTwo forwardPhaseTwo() const {
        switch (c.op) {
            case Op::MaxPool3d:
                return aclnnMaxPool3dWithArgmax;
            case Op::Adaptive3d:
                return aclnnAdaptiveMaxPool3d;
            case Op::MaxPool2d:
                return aclnnMaxPool2dWithIndices;
            case Op::V3:
                return aclnnMaxPoolV3WithAttrs;
        }
        return nullptr;
    }
    aclnnStatus backwardPhaseOne(uint64_t *ws, aclOpExecutor **ex) {
        IntArray kernel(spatial(c.k)), stride(spatial(c.s)), padding(spatial(c.p)),
            dilation(std::vector<int64_t>(c.twoD() ? 2 : 3, 1));
        switch (c.op) {
            case Op::MaxPool3d:
                return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                    gradOutput.tensor, input.tensor, indices.tensor, kernel.array, stride.array, padding.array,
                    dilation.array, c.ceil, gradInput.tensor, ws, ex);
            case Op::Adaptive3d:
                return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput.tensor, input.tensor, indices.tensor,
                                                                      gradInput.tensor, ws, ex);
            case Op::MaxPool2d:
                return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                    gradOutput.tensor, input.tensor, indices.tensor, kernel.array, stride.array, padding.array,
                    dilation.array, c.ceil, gradInput.tensor, ws, ex);
            case Op::V3: {
                IntArray ksize(v3List(c.k[1], c.k[2])), strides(v3List(c.s[1], c.s[2])),
                    pads(std::vector<int64_t>{c.p[1], c.p[1], c.p[2], c.p[2]});
                return aclnnMaxPoolV3GradGetWorkspaceSize(input.tensor, output.tensor, gradOutput.tensor, ksize.array,
                                                          strides.array, "CALCULATED", pads.array, v3Format(), false,
                                                          c.ceil, gradInput.tensor, ws, ex);
            }
        }
        return -1;
    }
    PhaseTwo backwardPhaseTwo() const {
        switch (c.op) {
            case Op::MaxPool3d:
                return aclnnMaxPool3dWithArgmaxBackward;
            case Op::Adaptive3d:
                return aclnnAdaptiveMaxPool3dBackward;
            case Op::MaxPool2d:
                return aclnnMaxPool2dWithIndicesBackward;
            case Op::V3:
                return aclnnMaxPoolV3Grad;
        }
        return nullptr;
    }
    aclnnStatus measuredPhaseOne(uint64_t *ws, aclOpExecutor **ex) {
        return c.dir == Dir::Backward ? backwardPhaseOne(ws, ex) : forwardPhaseOne(ws, ex);
    }
    PhaseTwo measuredPhaseTwo() const { return c.dir == Dir::Backward ? backwardPhaseTwo() : forwardPhaseTwo(); }
    const Operand &checked() const { return c.dir == Dir::Backward ? gradInput : output; }

    void *workspaceFor(uint64_t size) {
        void *w = nullptr;
        if (size > 0) {
            if (int st = aclrtMalloc(&w, size, ACL_MEM_MALLOC_HUGE_FIRST); st != ACL_SUCCESS)
                apiFail("aclrtMalloc", st);
        }
        workspaces.push_back(w);
        return w;
    }
};

// The reason an implementation gave for declining, from the phase-1 message, or "" when the message does
// not name it (it serves another task).
std::string declineReason(const char *message, const std::string &name) {
    if (message == nullptr) return "";
    const std::string text = message, key = name + ": ";
    const auto at = text.find(key);
    if (at == std::string::npos) return "";
    const auto start = at + key.size();
    auto end = text.find_first_of(";)", start);
    if (end == std::string::npos) end = text.size();
    const std::string reason = text.substr(start, end - start);
    return reason == "not the forced implementation" ? "" : reason;
}

// Whether implementation `index` serves the case's task (forcing one of another task would not
// restrict the call at all).
bool servesTask(int32_t index, const Case &c) {
    const std::string task = poolgradImplementationTask(index);
    if (c.dir == Dir::Forward) return task == "argmax-forward";
    if (c.op == Op::V3) return task == "recompute-argmax-backward";
    return task == "index-scatter-backward";
}

}  // namespace

void addPoolgradContenders(const Case &c, const CaseData &data, ContenderSet &set) {
    auto state = std::make_shared<State>();
    state->c = c;
    if (int st = aclrtCreateStream(&state->stream); st != ACL_SUCCESS) apiFail("aclrtCreateStream", st);
    const auto indexKind = c.idx64 ? Operand::Kind::Index64 : Operand::Kind::Index32;
    allocate(state->input, c, c.in, Operand::Kind::Value);
    allocate(state->output, c, c.out, Operand::Kind::Value);
    if (c.op != Op::V3) allocate(state->indices, c, c.out, indexKind);
    state->input.write(data.input);

    if (c.dir == Dir::Backward) {
        // The forward produces the indices (or MaxPoolV3Grad's origOutput) from the shared input.
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        if (int st = state->forwardPhaseOne(&ws, &ex); st != ACLNN_SUCCESS) apiFail("forward phase 1", st);
        void *w = state->workspaceFor(ws);
        if (int st = state->forwardPhaseTwo()(w, ws, ex, state->stream); st != ACLNN_SUCCESS)
            apiFail("forward phase 2", st);
        aclrtSynchronizeStream(state->stream);
        allocate(state->gradOutput, c, c.out, Operand::Kind::Value);
        allocate(state->gradInput, c, c.in, Operand::Kind::Value);
        state->gradOutput.write(data.gradOutput);
    }

    auto makeContender = [&](const std::string &name, const std::string &forced, bool headline) {
        poolgradForceImplementation(forced.c_str());
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        const aclnnStatus st = state->measuredPhaseOne(&ws, &ex);
        const char *message = aclGetRecentErrMsg();
        const std::string why = st == ACLNN_SUCCESS ? "" : (message ? message : "");
        poolgradForceImplementation("");
        if (st != ACLNN_SUCCESS) {
            if (headline) apiFail(c.opText() + " phase 1", st);
            const std::string reason = declineReason(why.c_str(), forced);
            if (!reason.empty()) set.skipped.push_back({name, "declines: " + reason});
            return false;
        }
        if (int r = aclSetAclOpExecutorRepeatable(ex); r != ACLNN_SUCCESS) apiFail("aclSetAclOpExecutorRepeatable", r);
        state->executors.push_back(ex);
        void *w = state->workspaceFor(ws);
        const PhaseTwo phaseTwo = state->measuredPhaseTwo();
        Contender contender;
        contender.name = name;
        contender.family = "poolgrad";
        contender.trafficBytes = c.bytes();
        contender.headline = headline;
        contender.run = [state, phaseTwo, w, ws, ex] {
            const aclnnStatus r = phaseTwo(w, ws, ex, state->stream);
            if (r != ACLNN_SUCCESS) apiFail(state->c.opText() + " phase 2", r);
            aclrtSynchronizeStream(state->stream);
        };
        contender.result = [state] { return state->checked().read(); };
        set.contenders.push_back(std::move(contender));
        return true;
    };

    // The headline: what the library dispatches (the first implementation of its list that accepts; one
    // that can run the problem but was measured slower there than a later one is passed by).
    const size_t headline = set.contenders.size();
    makeContender("poolgrad", "", true);
    set.contenders[headline].run();
    poolgradRunReport report{};
    if (poolgradGetLastRunReport(&report) != ACL_SUCCESS) apiFail("poolgradGetLastRunReport", 1);
    const std::string dispatched = report.implementation;
    set.contenders[headline].note = "dispatched: " + dispatched;
    // Where the headline's plan streams its outputs past the caches, the same dispatch with ordinary stores
    // (poolgradSetStreamingStores never): the other side of that trade, measured in the same run.
    if (std::strstr(report.plan, "streaming") != nullptr) {
        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_NEVER);
        makeContender("poolgrad:streaming-never", "", false);
        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
    }
    // Every other implementation that serves the task, forced; those listed before the dispatched one that
    // still run were passed by as measured slower on such problems.
    bool beforeDispatched = true;
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i) {
        const std::string name = poolgradImplementationName(i);
        if (name == dispatched) {
            beforeDispatched = false;
            continue;
        }
        if (!servesTask(i, c)) continue;
        if (makeContender("poolgrad:" + name, name, false) && beforeDispatched)
            set.contenders.back().note = "passed by: the plan measured it slower on such problems (forced here)";
    }
}

}  // namespace bench
