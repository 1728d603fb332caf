// PyTorch (libtorch, ATen on CPU tensors) as a peer: the same operators through at::…_out calls into
// preallocated outputs, on the case's data, in the case's memory format (contiguous or channels-last).
// Compiled only when CMake found libtorch (POOLGRAD_BENCH_WITH_TORCH).
#include "bench_case.h"

#ifdef POOLGRAD_BENCH_WITH_TORCH

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>

#include <cstring>
#include <memory>

namespace bench {
namespace {

std::string firstLine(const std::string &text) {
    const auto eol = text.find('\n');
    return eol == std::string::npos ? text : text.substr(0, eol);
}

at::ScalarType scalarType(DType dt) {
    return dt == DType::F32 ? at::kFloat : dt == DType::F16 ? at::kHalf : at::kBFloat16;
}

struct TorchState {
    Case c;
    at::Tensor self, out, indices, gradOutput, gradInput;
    std::vector<int64_t> k, s, p, d, osize;
};

at::Tensor fromValues(const std::vector<float> &values, const Case &c, const int64_t *spatial) {
    std::vector<int64_t> sizes = {c.n, c.c};
    for (int a = c.twoD() ? 1 : 0; a < 3; ++a) sizes.push_back(spatial[a]);
    at::Tensor t = at::from_blob(const_cast<float *>(values.data()), sizes, at::kFloat).to(scalarType(c.dt));
    if (c.layout == Layout::ChannelsLast)
        t = t.contiguous(c.twoD() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d);
    else
        t = t.contiguous();
    return t;
}

std::vector<float> toValues(const at::Tensor &t) {
    at::Tensor f = t.to(at::kFloat).contiguous();
    std::vector<float> values(static_cast<size_t>(f.numel()));
    std::memcpy(values.data(), f.data_ptr<float>(), values.size() * sizeof(float));
    return values;
}

void runForward(TorchState &st) {
    const Case &c = st.c;
    switch (c.op) {
        case Op::MaxPool3d:
            at::max_pool3d_with_indices_out(st.out, st.indices, st.self, st.k, st.s, st.p, st.d, c.ceil);
            break;
        case Op::Adaptive3d:
            at::adaptive_max_pool3d_out(st.out, st.indices, st.self, st.osize);
            break;
        case Op::MaxPool2d:
            at::max_pool2d_with_indices_out(st.out, st.indices, st.self, st.k, st.s, st.p, st.d, c.ceil);
            break;
        case Op::V3:
            st.out = at::max_pool2d(st.self, st.k, st.s, st.p, st.d, c.ceil);
            break;
    }
}

void runBackward(TorchState &st) {
    const Case &c = st.c;
    switch (c.op) {
        case Op::MaxPool3d:
            at::max_pool3d_with_indices_backward_out(st.gradInput, st.gradOutput, st.self, st.k, st.s, st.p, st.d,
                                                     c.ceil, st.indices);
            break;
        case Op::Adaptive3d:
            at::adaptive_max_pool3d_backward_out(st.gradInput, st.gradOutput, st.self, st.indices);
            break;
        case Op::MaxPool2d:
        case Op::V3:
            at::max_pool2d_with_indices_backward_out(st.gradInput, st.gradOutput, st.self, st.k, st.s, st.p, st.d,
                                                     c.ceil, st.indices);
            break;
    }
}

}  // namespace

std::string torchVersion() {
#ifdef POOLGRAD_BENCH_TORCH_VERSION
    return POOLGRAD_BENCH_TORCH_VERSION;
#else
    return "libtorch";
#endif
}

void setTorchThreads(int threads) { at::set_num_threads(threads); }

std::string torchDetails() {
    std::string details;
#ifdef POOLGRAD_BENCH_TORCH_HAS_CPU_CAPABILITY
    details = "CPU capability " + at::get_cpu_capability() + "; ";
#endif
    // get_parallel_info: the intra-op backend and its thread counts, one "key : value" a line.
    std::string info = at::get_parallel_info();
    for (char &ch : info)
        if (ch == '\n' || ch == '\t') ch = ' ';
    return details + "intra-op threads " + std::to_string(at::get_num_threads()) + "; " + info;
}

void addTorchContenders(const Case &c, const CaseData &data, int, ContenderSet &set) {
    try {
        auto st = std::make_shared<TorchState>();
        st->c = c;
        for (int a = c.twoD() ? 1 : 0; a < 3; ++a) {
            st->k.push_back(c.k[a]);
            st->s.push_back(c.s[a]);
            st->p.push_back(c.p[a]);
            st->d.push_back(1);
            st->osize.push_back(c.out[a]);
        }
        st->self = fromValues(data.input, c, c.in);
        // The forward makes the indices (and shapes the outputs) once, outside the timing.
        switch (c.op) {
            case Op::MaxPool3d:
                std::tie(st->out, st->indices) =
                    at::max_pool3d_with_indices(st->self, st->k, st->s, st->p, st->d, c.ceil);
                break;
            case Op::Adaptive3d:
                std::tie(st->out, st->indices) = at::adaptive_max_pool3d(st->self, st->osize);
                break;
            case Op::MaxPool2d:
            case Op::V3:
                std::tie(st->out, st->indices) =
                    at::max_pool2d_with_indices(st->self, st->k, st->s, st->p, st->d, c.ceil);
                break;
        }
        std::string note = "at::" + std::string(c.op == Op::MaxPool3d    ? "max_pool3d_with_indices"
                                                : c.op == Op::Adaptive3d ? "adaptive_max_pool3d"
                                                : c.op == Op::MaxPool2d  ? "max_pool2d_with_indices"
                                                : c.dir == Dir::Forward  ? "max_pool2d"
                                                                         : "max_pool2d_with_indices");
        bool contiguousOutput =
            !st->out.is_contiguous(c.twoD() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d);
        Contender contender;
        contender.name = "torch";
        contender.family = "torch";
        if (c.dir == Dir::Backward) {
            // gradOutput in the memory format of the forward's output, as autograd would hand it over.
            st->gradOutput = fromValues(data.gradOutput, c, c.out).contiguous(st->out.suggest_memory_format());
            // gradInput in the memory format the functional op returns: 1.13's 3-D kernels compute
            // contiguous tensors whatever the input's format, and their _out variants write a
            // channels-last output as if it were contiguous (2.x computes channels-last 3-D natively).
            at::Tensor probe;
            switch (c.op) {
                case Op::MaxPool3d:
                    probe = at::max_pool3d_with_indices_backward(st->gradOutput, st->self, st->k, st->s, st->p, st->d,
                                                                 c.ceil, st->indices);
                    break;
                case Op::Adaptive3d:
                    probe = at::adaptive_max_pool3d_backward(st->gradOutput, st->self, st->indices);
                    break;
                case Op::MaxPool2d:
                case Op::V3:
                    probe = at::max_pool2d_with_indices_backward(st->gradOutput, st->self, st->k, st->s, st->p, st->d,
                                                                 c.ceil, st->indices);
                    break;
            }
            st->gradInput = at::empty_like(probe);
            note += "_backward_out, int64 indices";
            contiguousOutput =
                !probe.is_contiguous(c.twoD() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d);
            contender.run = [st] { runBackward(*st); };
            contender.result = [st] { return toValues(st->gradInput); };
        } else {
            note += c.op == Op::V3 ? " (values only; allocates its output)" : "_out, int64 indices";
            contender.run = [st] { runForward(*st); };
            contender.result = [st] { return toValues(st->out); };
        }
        if (c.layout == Layout::ChannelsLast)
            note += contiguousOutput ? ", channels-last input, contiguous output (torch's kernel)" : ", channels-last";
        contender.note = note;
        const double elementBytes = static_cast<double>(c.elementBytes());
        const double indexBytes =
            c.dir == Dir::Backward || c.op != Op::V3 ? static_cast<double>(st->indices.nbytes()) : 0;
        contender.trafficBytes =
            static_cast<double>(c.inputElements() + c.outputElements()) * elementBytes + indexBytes;
        contender.run();  // surfaces "not implemented for 'Half'" here rather than in the timing
        set.contenders.push_back(std::move(contender));
    } catch (const std::exception &e) {
        set.skipped.push_back({"torch", "unsupported: " + firstLine(e.what())});
    }
}

}  // namespace bench

#else  // !POOLGRAD_BENCH_WITH_TORCH

namespace bench {
std::string torchVersion() { return ""; }
void setTorchThreads(int) {}
std::string torchDetails() { return ""; }
void addTorchContenders(const Case &, const CaseData &, int, ContenderSet &set) {
    set.skipped.push_back({"torch", "not built (libtorch not found, or POOLGRAD_BENCH_TORCH=OFF, when configuring)"});
}
}  // namespace bench

#endif
