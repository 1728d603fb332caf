// oneDNN as a peer: pooling_max forward (training, so it keeps its workspace) and pooling_backward with
// that workspace, in plain (nc[d]hw), channels-last (n[d]hwc) and blocked (nC[d]hw16c) layouts, on the
// case's data. Adaptive cases run the regular pooling with the same windows (exact when one exists;
// otherwise the nearest one, flagged). Compiled only when CMake found dnnl (POOLGRAD_BENCH_WITH_DNNL).
#include "bench_case.h"

#ifdef POOLGRAD_BENCH_WITH_DNNL

#include <cstring>
#include <memory>
#include <unordered_map>

#include "oneapi/dnnl/dnnl.hpp"

namespace bench {
namespace {

using tag = dnnl::memory::format_tag;

dnnl::engine &engine() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

dnnl::memory::data_type dataType(DType dt) {
    return dt == DType::F32   ? dnnl::memory::data_type::f32
           : dt == DType::F16 ? dnnl::memory::data_type::f16
                              : dnnl::memory::data_type::bf16;
}

struct DnnlState {
    dnnl::stream stream{engine()};
    dnnl::primitive primitive;
    std::unordered_map<int, dnnl::memory> args;
    dnnl::memory checked;  // diff_src or dst
    dnnl::memory::dims checkedDims;
};

dnnl::memory::dims dims(const Case &c, const int64_t *spatial) {
    dnnl::memory::dims d = {c.n, c.c};
    for (int a = c.twoD() ? 1 : 0; a < 3; ++a) d.push_back(spatial[a]);
    return d;
}

tag plainTag(const Case &c) { return c.twoD() ? tag::nchw : tag::ncdhw; }

// A memory of `md` holding `values` (logical plain f32), converted by a reorder.
dnnl::memory filled(const dnnl::memory::desc &md, const dnnl::memory::dims &d, const Case &c,
                    const std::vector<float> &values, dnnl::stream &stream) {
    dnnl::memory user({d, dnnl::memory::data_type::f32, plainTag(c)}, engine(), const_cast<float *>(values.data()));
    dnnl::memory target(md, engine());
    dnnl::reorder(user, target).execute(stream, user, target);
    stream.wait();
    return target;
}

std::vector<float> readBack(const dnnl::memory &m, const dnnl::memory::dims &d, const Case &c) {
    dnnl::stream stream(engine());
    dnnl::memory user({d, dnnl::memory::data_type::f32, plainTag(c)}, engine());
    dnnl::reorder(m, user).execute(stream, const_cast<dnnl::memory &>(m), user);
    stream.wait();
    size_t count = 1;
    for (auto x : d) count *= static_cast<size_t>(x);
    std::vector<float> values(count);
    std::memcpy(values.data(), user.get_data_handle(), count * sizeof(float));
    return values;
}

}  // namespace

std::string dnnlVersion() {
    const dnnl_version_t *v = dnnl_version();
    // The ISAs oneDNN reports, by the names its verbose output uses.
    static const std::pair<dnnl::cpu_isa, const char *> kIsaNames[] = {
        {dnnl::cpu_isa::sse41, "sse41"},
        {dnnl::cpu_isa::avx, "avx"},
        {dnnl::cpu_isa::avx2, "avx2"},
        {dnnl::cpu_isa::avx2_vnni, "avx2_vnni"},
        {dnnl::cpu_isa::avx512_core, "avx512_core"},
        {dnnl::cpu_isa::avx512_core_vnni, "avx512_core_vnni"},
        {dnnl::cpu_isa::avx512_core_bf16, "avx512_core_bf16"},
        {dnnl::cpu_isa::avx512_core_amx, "avx512_core_amx"},
#if DNNL_VERSION_MAJOR >= 3
        {dnnl::cpu_isa::avx2_vnni_2, "avx2_vnni_2"},
        {dnnl::cpu_isa::avx512_core_fp16, "avx512_core_fp16"},
        {dnnl::cpu_isa::avx512_core_amx_fp16, "avx512_core_amx_fp16"},
#endif
    };
    std::string isa = "other";
    for (const auto &[value, name] : kIsaNames)
        if (value == dnnl::get_effective_cpu_isa()) isa = name;
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
           (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "non-OpenMP") + ", ISA " + isa + ")";
}

void addDnnlContenders(const Case &c, const CaseData &data, ContenderSet &set) {
    // Geometry as oneDNN sees it.
    dnnl::memory::dims kernel, strides, padL, padR;
    bool exact = true;
    for (int a = c.twoD() ? 1 : 0; a < 3; ++a) {
        int64_t k = c.k[a], s = c.s[a], p = c.p[a];
        if (c.op == Op::Adaptive3d) {
            exact = adaptiveAsRegular(c.in[a], c.out[a], k, s) && exact;
            p = 0;
            if (s < 1 || k < 1) {
                set.skipped.push_back({"onednn", "no regular pooling matches this adaptive output size"});
                return;
            }
        }
        kernel.push_back(k);
        strides.push_back(s);
        padL.push_back(p);
        padR.push_back((c.out[a] - 1) * s + k - c.in[a] - p);
    }
    const bool twoD = c.twoD();
    const std::vector<std::pair<std::string, tag>> layouts = {
        {twoD ? "nchw" : "ncdhw", twoD ? tag::nchw : tag::ncdhw},
        {twoD ? "nhwc" : "ndhwc", twoD ? tag::nhwc : tag::ndhwc},
        {twoD ? "nChw16c" : "nCdhw16c", twoD ? tag::nChw16c : tag::nCdhw16c},
    };
    const auto srcDims = dims(c, c.in), dstDims = dims(c, c.out);
    const auto dt = dataType(c.dt);
    // MaxPoolV3WithAttrs makes no indices: compare with inference (no workspace).
    const bool inference = c.dir == Dir::Forward && c.op == Op::V3;
    for (const auto &[layoutName, layoutTag] : layouts) {
        const std::string name = "onednn:" + layoutName;
        try {
            auto st = std::make_shared<DnnlState>();
            const dnnl::memory::desc srcMd(srcDims, dt, layoutTag), dstMd(dstDims, dt, layoutTag);
            const auto propKind = inference ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
#if DNNL_VERSION_MAJOR >= 3
            // oneDNN 3 builds primitive descriptors directly and always takes a dilation (none here).
            const dnnl::memory::dims noDilation(kernel.size(), 0);
            dnnl::pooling_forward::primitive_desc fwdPd(engine(), propKind, dnnl::algorithm::pooling_max, srcMd, dstMd,
                                                        strides, kernel, noDilation, padL, padR);
#else
            dnnl::pooling_forward::desc fwdDesc(propKind, dnnl::algorithm::pooling_max, srcMd, dstMd, strides, kernel,
                                                padL, padR);
            dnnl::pooling_forward::primitive_desc fwdPd(fwdDesc, engine());
#endif
            dnnl::memory src = filled(srcMd, srcDims, c, data.input, st->stream);
            dnnl::memory dst(dstMd, engine());
            std::unordered_map<int, dnnl::memory> fwdArgs = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
            dnnl::memory workspace;
            if (!inference) {
                workspace = dnnl::memory(fwdPd.workspace_desc(), engine());
                fwdArgs[DNNL_ARG_WORKSPACE] = workspace;
            }
            dnnl::pooling_forward forward(fwdPd);
            forward.execute(st->stream, fwdArgs);
            st->stream.wait();
            std::string note = std::string(fwdPd.impl_info_str());
            if (c.dir == Dir::Backward) {
#if DNNL_VERSION_MAJOR >= 3
                dnnl::pooling_backward::primitive_desc bwdPd(engine(), dnnl::algorithm::pooling_max, srcMd, dstMd,
                                                             strides, kernel, noDilation, padL, padR, fwdPd);
#else
                dnnl::pooling_backward::desc bwdDesc(dnnl::algorithm::pooling_max, srcMd, dstMd, strides, kernel, padL,
                                                     padR);
                dnnl::pooling_backward::primitive_desc bwdPd(bwdDesc, engine(), fwdPd);
#endif
                dnnl::memory diffDst = filled(dstMd, dstDims, c, data.gradOutput, st->stream);
                dnnl::memory diffSrc(srcMd, engine());
                st->primitive = dnnl::pooling_backward(bwdPd);
                st->args = {
                    {DNNL_ARG_DIFF_DST, diffDst}, {DNNL_ARG_DIFF_SRC, diffSrc}, {DNNL_ARG_WORKSPACE, workspace}};
                st->checked = diffSrc;
                st->checkedDims = srcDims;
                note = std::string(bwdPd.impl_info_str()) + ", workspace " +
                       std::to_string(fwdPd.workspace_desc().get_size() / static_cast<size_t>(c.outputElements())) +
                       " B/elem";
            } else {
                st->primitive = forward;
                st->args = fwdArgs;
                st->checked = dst;
                st->checkedDims = dstDims;
                note += inference ? ", inference (no workspace)" : ", training (writes its workspace)";
            }
            // Channels-last and blocked layouts are there to show oneDNN at its best: where only its
            // reference code takes them, they are left out (the plain layout is always timed).
            if (layoutTag != layouts.front().second && note.rfind("ref", 0) == 0) {
                set.skipped.push_back(
                    {name, "only oneDNN's reference code takes this layout (" + note + "); not timed"});
                continue;
            }
            if (c.op == Op::Adaptive3d)
                note += exact ? ", adaptive as exact regular pooling" : ", NEAREST regular pooling (not exact)";
            Contender contender;
            contender.name = name;
            contender.family = "onednn";
            contender.note = note;
            contender.trafficBytes =
                static_cast<double>(c.inputElements() + c.outputElements()) * static_cast<double>(c.elementBytes()) +
                (inference ? 0.0 : static_cast<double>(fwdPd.workspace_desc().get_size()));
            contender.run = [st] {
                st->primitive.execute(st->stream, st->args);
                st->stream.wait();
            };
            const Case cc = c;
            contender.result = [st, cc] { return readBack(st->checked, st->checkedDims, cc); };
            set.contenders.push_back(std::move(contender));
        } catch (const dnnl::error &e) {
            set.skipped.push_back({name, std::string("unsupported: ") + e.what()});
        }
    }
}

}  // namespace bench

#else  // !POOLGRAD_BENCH_WITH_DNNL

namespace bench {
std::string dnnlVersion() { return ""; }
void addDnnlContenders(const Case &, const CaseData &, ContenderSet &set) {
    set.skipped.push_back({"onednn", "not built (oneDNN not found, or POOLGRAD_BENCH_ONEDNN=OFF, when configuring)"});
}
}  // namespace bench

#endif
