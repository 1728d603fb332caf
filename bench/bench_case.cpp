#include "bench_case.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

namespace bench {
namespace {

std::string trim(const std::string &text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

[[noreturn]] void fail(const std::string &line, const std::string &why) {
    throw std::runtime_error("case \"" + line + "\": " + why);
}

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// SPEC §3.3 with dilation 1.
int64_t pooledSize(int64_t in, int64_t k, int64_t s, int64_t p, bool ceilMode) {
    int64_t out = floorDiv(in + 2 * p - k + (ceilMode ? s - 1 : 0), s) + 1;
    if (ceilMode && (out - 1) * s >= in + p) --out;
    return out;
}

void parseProblem(const std::string &line, const std::string &problem, Case &c) {
    std::map<std::string, int64_t> terms;
    size_t i = 0;
    while (i < problem.size()) {
        if (problem[i] == '_') {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < problem.size() && std::isalpha(static_cast<unsigned char>(problem[j]))) ++j;
        size_t k = j;
        while (k < problem.size() && std::isdigit(static_cast<unsigned char>(problem[k]))) ++k;
        if (j == i || k == j) fail(line, "cannot read the problem at \"" + problem.substr(i) + "\"");
        terms[problem.substr(i, j - i)] = std::stoll(problem.substr(j, k - j));
        i = k;
    }
    static const char *known[] = {"mb", "ic", "id", "ih", "iw", "od", "oh", "ow", "kd",
                                  "kh", "kw", "sd", "sh", "sw", "pd", "ph", "pw"};
    for (const auto &[key, value] : terms) {
        bool ok = false;
        for (const char *name : known) ok = ok || key == name;
        if (!ok) fail(line, "unknown problem term \"" + key + "\"");
        if (value < 0) fail(line, "negative " + key);
    }
    auto get = [&](const char *key, int64_t fallback) {
        auto it = terms.find(key);
        return it == terms.end() ? fallback : it->second;
    };
    const char *axes = "dhw";
    c.n = get("mb", 1);
    c.c = get("ic", 0);
    if (c.c < 1) fail(line, "ic (channels) is required");
    for (int a = 0; a < 3; ++a) {
        const std::string ax(1, axes[a]);
        if (c.twoD() && a == 0) {
            for (const char *t : {"id", "od", "kd", "sd", "pd"})
                if (terms.count(t)) fail(line, std::string("a 2-D op takes no ") + t);
            continue;
        }
        c.in[a] = get(("i" + ax).c_str(), 0);
        if (c.in[a] < 1) fail(line, "i" + ax + " is required");
        if (c.op == Op::Adaptive3d) {
            c.out[a] = get(("o" + ax).c_str(), 0);
            if (c.out[a] < 1) fail(line, "adaptive pooling needs o" + ax);
            if (terms.count("k" + ax) || terms.count("s" + ax) || terms.count("p" + ax))
                fail(line, "adaptive pooling takes no kernel, stride or padding");
            continue;
        }
        c.k[a] = get(("k" + ax).c_str(), 0);
        if (c.k[a] < 1) fail(line, "k" + ax + " is required");
        c.s[a] = get(("s" + ax).c_str(), c.k[a]);
        c.p[a] = get(("p" + ax).c_str(), 0);
        if (c.s[a] < 1) fail(line, "s" + ax + " must be >= 1");
        c.out[a] = pooledSize(c.in[a], c.k[a], c.s[a], c.p[a], c.ceil);
        if (c.out[a] < 1) fail(line, "output size on axis " + ax + " would be < 1");
        if (terms.count("o" + ax) && terms["o" + ax] != c.out[a])
            fail(line, "o" + ax + " given as " + std::to_string(terms["o" + ax]) + " but the geometry gives " +
                           std::to_string(c.out[a]));
    }
}

}  // namespace

double Case::bytes() const {
    const double inE = static_cast<double>(inputElements()), outE = static_cast<double>(outputElements());
    const double eb = static_cast<double>(elementBytes()), ib = static_cast<double>(indexBytes());
    if (op == Op::V3) return dir == Dir::Backward ? (2 * inE + 2 * outE) * eb : (inE + outE) * eb;
    if (dir == Dir::Backward) return outE * (eb + ib) + inE * eb;
    return (inE + outE) * eb + outE * ib;
}

std::string Case::opText() const {
    const bool bwd = dir == Dir::Backward;
    switch (op) {
        case Op::MaxPool3d:
            return bwd ? "MaxPool3dWithArgmaxBackward" : "MaxPool3dWithArgmax";
        case Op::Adaptive3d:
            return bwd ? "AdaptiveMaxPool3dBackward" : "AdaptiveMaxPool3d";
        case Op::MaxPool2d:
            return bwd ? "MaxPool2dWithIndicesBackward" : "MaxPool2dWithIndices";
        case Op::V3:
            return bwd ? "MaxPoolV3Grad" : "MaxPoolV3WithAttrs";
    }
    return "?";
}

std::string Case::dtText() const { return dt == DType::F32 ? "f32" : dt == DType::F16 ? "f16" : "bf16"; }

std::string Case::tagText() const {
    if (twoD()) return layout == Layout::Plain ? "nchw" : "nhwc";
    return layout == Layout::Plain ? "ncdhw" : "ndhwc";
}

bool parseCaseLine(const std::string &rawLine, Case &c) {
    std::string line = rawLine;
    if (auto hash = line.find('#'); hash != std::string::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) return false;
    c = Case{};
    std::string body = line;
    if (auto colon = line.find(':'); colon != std::string::npos) {
        c.name = trim(line.substr(0, colon));
        body = trim(line.substr(colon + 1));
        if (c.name.empty() || c.name.find(' ') != std::string::npos) fail(rawLine, "bad case name");
    }
    c.line = body;
    std::istringstream words(body);
    std::string word, tag;
    while (words >> word) {
        if (word.rfind("--", 0) != 0) {
            if (!c.problem.empty()) fail(rawLine, "two problem strings: " + c.problem + " and " + word);
            c.problem = word;
            continue;
        }
        const auto eq = word.find('=');
        if (eq == std::string::npos) fail(rawLine, "option without a value: " + word);
        const std::string key = word.substr(2, eq - 2), value = word.substr(eq + 1);
        if (key == "op") {
            if (value == "max3d")
                c.op = Op::MaxPool3d;
            else if (value == "adaptive3d")
                c.op = Op::Adaptive3d;
            else if (value == "max2d")
                c.op = Op::MaxPool2d;
            else if (value == "v3")
                c.op = Op::V3;
            else
                fail(rawLine, "--op must be max3d, adaptive3d, max2d or v3");
        } else if (key == "dir") {
            if (value == "bwd")
                c.dir = Dir::Backward;
            else if (value == "fwd")
                c.dir = Dir::Forward;
            else
                fail(rawLine, "--dir must be bwd or fwd");
        } else if (key == "dt") {
            if (value == "f32")
                c.dt = DType::F32;
            else if (value == "f16")
                c.dt = DType::F16;
            else if (value == "bf16")
                c.dt = DType::BF16;
            else
                fail(rawLine, "--dt must be f32, f16 or bf16");
        } else if (key == "tag") {
            tag = value;
        } else if (key == "idx") {
            if (value == "s32")
                c.idx64 = false;
            else if (value == "s64")
                c.idx64 = true;
            else
                fail(rawLine, "--idx must be s32 or s64");
        } else if (key == "ceil") {
            c.ceil = value == "1" || value == "true";
        } else {
            fail(rawLine, "unknown option --" + key);
        }
    }
    if (c.problem.empty()) fail(rawLine, "no problem string");
    if (tag.empty() || tag == "abx" || tag == "ncdhw" || tag == "nchw")
        c.layout = Layout::Plain;
    else if (tag == "axb" || tag == "ndhwc" || tag == "nhwc")
        c.layout = Layout::ChannelsLast;
    else
        fail(rawLine, "--tag must be abx, axb, ncdhw, ndhwc, nchw or nhwc");
    if (c.op == Op::V3 && c.dt == DType::BF16 && c.dir == Dir::Backward)
        fail(rawLine, "MaxPoolV3Grad takes f32 and f16 only");
    parseProblem(rawLine, c.problem, c);
    if (c.name.empty()) c.name = c.problem;
    return true;
}

std::vector<Case> readCaseFile(const std::string &path) {
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot open case file " + path);
    std::vector<Case> cases;
    std::string line;
    while (std::getline(file, line)) {
        Case c;
        if (parseCaseLine(line, c)) cases.push_back(c);
    }
    return cases;
}

bool adaptiveAsRegular(int64_t I, int64_t O, int64_t &k, int64_t &s) {
    s = I / O;
    if (s < 1) {
        k = 0;
        return false;
    }
    k = I - (O - 1) * s;
    for (int64_t o = 0; o < O; ++o)
        if (adaptiveStart(o, I, O) != o * s || adaptiveEnd(o, I, O) != o * s + k) return false;
    return true;
}

uint16_t floatToHalfBits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7FFFFFFFu;
    if (absx >= 0x7F800000u) return static_cast<uint16_t>(sign | (absx > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (absx >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
    if (absx < 0x38800000u) {                                               // subnormal half or zero
        float f;
        std::memcpy(&f, &absx, 4);
        const float scaled = f * 16777216.0f;  // 2^24: one half subnormal ulp = 1
        return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
    }
    const uint32_t mant = absx & 0x7FFFFFu;
    uint32_t h = ((absx >> 23) - 112) << 10 | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

float halfBitsToFloat(uint16_t bits) {
    const uint32_t sign = (bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1Fu, mant = bits & 0x3FFu;
    float f;
    if (exp == 0) {
        f = std::ldexp(static_cast<float>(mant), -24);
        uint32_t x;
        std::memcpy(&x, &f, 4);
        x |= sign;
        std::memcpy(&f, &x, 4);
        return f;
    }
    uint32_t x = exp == 31 ? (sign | 0x7F800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
    std::memcpy(&f, &x, 4);
    return f;
}

uint16_t floatToBf16Bits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

float bf16BitsToFloat(uint16_t bits) {
    const uint32_t x = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

float roundToType(float value, DType dt) {
    switch (dt) {
        case DType::F32:
            return value;
        case DType::F16:
            return halfBitsToFloat(floatToHalfBits(value));
        case DType::BF16:
            return bf16BitsToFloat(floatToBf16Bits(value));
    }
    return value;
}

CaseData makeCaseData(const Case &c, uint64_t seed) {
    CaseData data;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    data.input.resize(static_cast<size_t>(c.inputElements()));
    for (float &v : data.input) v = roundToType(uniform(rng), c.dt);
    if (c.dir == Dir::Backward) {
        data.gradOutput.resize(static_cast<size_t>(c.outputElements()));
        for (float &v : data.gradOutput) v = roundToType(uniform(rng), c.dt);
    }
    return data;
}

}  // namespace bench
