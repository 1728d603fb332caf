// poolgrad benchmark: a case (one line of a case file, benchdnn-style) and the data every contender
// of that case shares.
//
// Line grammar (comments start with '#'):
//     [name:] [--op=max3d|adaptive3d|max2d|v3] [--dir=bwd|fwd] [--dt=f32|f16|bf16]
//             [--tag=abx|axb|ncdhw|ndhwc|nchw|nhwc] [--idx=s32|s64] [--ceil=0|1] problem
// problem: benchdnn's pooling descriptor, e.g. mb2ic32_id16ih64iw64_kd2kh2kw2_sd2sh2sw2_pd0ph0pw0
// (mb N, ic C, id/ih/iw input, od/oh/ow output (adaptive: required; else checked), kd/kh/kw kernel,
// sd/sh/sw stride (default: the kernel), pd/ph/pw padding (default 0)). 2-D ops take no d-terms.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

enum class Op { MaxPool3d, Adaptive3d, MaxPool2d, V3 };
enum class Dir { Backward, Forward };
enum class DType { F32, F16, BF16 };
enum class Layout { Plain, ChannelsLast };

struct Case {
    std::string name;
    std::string line;     // the descriptor as written (without the name)
    std::string problem;  // benchdnn problem string
    Op op = Op::MaxPool3d;
    Dir dir = Dir::Backward;
    DType dt = DType::F32;
    Layout layout = Layout::Plain;
    bool idx64 = false;
    bool ceil = false;
    int64_t n = 1, c = 1;
    int64_t in[3] = {1, 1, 1};   // D, H, W
    int64_t out[3] = {1, 1, 1};  // Do, Ho, Wo
    int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0};

    bool twoD() const { return op == Op::MaxPool2d || op == Op::V3; }
    int64_t inputElements() const { return n * c * in[0] * in[1] * in[2]; }
    int64_t outputElements() const { return n * c * out[0] * out[1] * out[2]; }
    size_t elementBytes() const { return dt == DType::F32 ? 4 : 2; }
    size_t indexBytes() const { return idx64 ? 8 : 4; }
    // Bytes the operator must move at least: backward gradOutput + indices + gradInput (MaxPoolV3Grad:
    // origInput + origOutput + grad + outGrad); forward input + output (+ indices).
    double bytes() const;
    std::string opText() const;   // "MaxPool3dWithArgmaxBackward", ...
    std::string dtText() const;   // "f32"
    std::string tagText() const;  // "ncdhw", "ndhwc", "nchw", "nhwc"
};

// Parses one line; throws std::runtime_error naming the problem. Empty/comment lines: returns false.
bool parseCaseLine(const std::string &line, Case &out);
std::vector<Case> readCaseFile(const std::string &path);

// Adaptive window [start, end) of output o on an axis of input size I and output size O.
inline int64_t adaptiveStart(int64_t o, int64_t I, int64_t O) { return (o * I) / O; }
inline int64_t adaptiveEnd(int64_t o, int64_t I, int64_t O) { return ((o + 1) * I + O - 1) / O; }
// A regular pooling (kernel k, stride s, no padding) with the same windows as the adaptive axis, if one
// exists (true), else the nearest one (s = floor(I/O), k = I - (O-1)s) and false.
bool adaptiveAsRegular(int64_t I, int64_t O, int64_t &k, int64_t &s);

// Values shared by every contender of a case, in logical (N, C, D, H, W) row-major order, each exactly
// representable in the case's data type.
struct CaseData {
    std::vector<float> input;       // forward input / self / origInput
    std::vector<float> gradOutput;  // backward only
};
CaseData makeCaseData(const Case &c, uint64_t seed);

float roundToType(float value, DType dt);
uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBf16Bits(float value);
float bf16BitsToFloat(uint16_t bits);

// One thing the driver times. `run` executes the operation once (synchronously); `result` returns the
// checked output (gradInput, or the forward's values) as float in logical (N, C, D, H, W) order.
struct Contender {
    std::string name;    // shown in tables: "poolgrad", "poolgrad:<impl>", "torch", "onednn:nhwc"
    std::string family;  // "poolgrad", "torch", "onednn"
    bool headline = false;
    std::string note;  // implementation details (dnnl impl string, torch variant, ...)
    // Bytes this contender's own interface makes it move at least: its operands at their own sizes
    // (PyTorch's INT64 indices, oneDNN's workspace). Their ratio to poolgrad's bounds the speed ratio a
    // DRAM-bound case can reach when both run at the same bandwidth.
    double trafficBytes = 0;
    std::function<void()> run;
    std::function<std::vector<float>()> result;
};

// A contender that could not be made for a case, and why.
struct Skipped {
    std::string name;
    std::string reason;
};

struct ContenderSet {
    std::vector<Contender> contenders;
    std::vector<Skipped> skipped;
};

// Factories (poolgrad always; the peers return a "not built" skip when compiled without them).
void addPoolgradContenders(const Case &c, const CaseData &data, ContenderSet &set);
void addTorchContenders(const Case &c, const CaseData &data, int threads, ContenderSet &set);
void addDnnlContenders(const Case &c, const CaseData &data, ContenderSet &set);
std::string torchVersion();  // "" when not built
std::string dnnlVersion();   // "" when not built
void setTorchThreads(int threads);
std::string torchDetails();  // libtorch's CPU capability and intra-op pool as it reports them ("" when not built)

}  // namespace bench
