// poolgrad_bench: times poolgrad's operators and their peers (libtorch, oneDNN) on the same data in one
// run, next to a STREAM-style copy that measures this machine's memory bandwidth in that same run.
//
//   poolgrad_bench [options] [--cases FILE] ["[name:] descriptor" ...]
//
// Every case runs each contender interleaved with the others (round-robin, rotating the order), warm
// (same buffers, one untimed run before each timed burst) and cold (a cache flush before each timed run),
// and reports median and min ms, GB/s of the case's bytes, % of the DRAM copy bandwidth and each peer's
// time relative to poolgrad's. See bench/README.md.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bench_case.h"
#include "host_info.h"
#include "memory_bench.h"
#include "poolgrad/poolgrad.h"

namespace bench {
namespace {

struct Options {
    std::string casesFile;
    std::vector<std::string> lines;
    std::vector<std::string> only;
    std::string outDir;
    int threads = 0;
    bool warm = true, cold = true;
    double budgetMs = 120;
    int minReps = 5, maxReps = 60, burst = 3;
    double timeLimitS = 240;  // for all cases together; repetitions shrink (to 3) to fit
    bool torch = true, onednn = true, impls = true;
    size_t flushBytes = 0;
    size_t dramCopyBytes = 0, l3CopyBytes = size_t(2) << 20;  // DRAM: 0 = max(128 MiB, 2 x last-level cache)
    bool list = false;
};

void usage() {
    std::printf(
        "usage: poolgrad_bench [options] [--cases FILE] [\"[name:] descriptor\" ...]\n"
        "  --cases FILE        case file, one descriptor per line ('#' comments)\n"
        "  --only A,B          run only the named cases\n"
        "  --out DIR           write DIR/results.csv and DIR/run.json\n"
        "  --threads N         threads for poolgrad, libtorch and oneDNN (default: poolgrad's default)\n"
        "  --modes warm,cold   which measurements (default both)\n"
        "  --budget-ms X       time per contender and mode (default 120), within --min-reps/--max-reps (5/60)\n"
        "  --time-limit-s T    all cases together (default 240; 0: none): on a slow or busy machine the\n"
        "                      repetitions shrink (not below 3) to fit, and the output says so\n"
        "  --peers torch,onednn | none   which peers (default both when built)\n"
        "  --no-impls          only poolgrad's dispatched implementation, not every one that accepts\n"
        "  --flush-mb M        cold-mode flush size (default max(4 x last-level cache, 32 MiB))\n"
        "  --quick             --budget-ms 20 --min-reps 3 --max-reps 10\n"
        "  --list              print the parsed cases and exit\n"
        "descriptor: [--op=max3d|adaptive3d|max2d|v3] [--dir=bwd|fwd] [--dt=f32|f16|bf16] [--tag=abx|axb]\n"
        "            [--idx=s32|s64] [--ceil=1] problem, e.g. mb2ic32_id16ih64iw64_kd2kh2kw2_sd2sh2sw2\n");
}

std::vector<std::string> split(const std::string &text, char sep) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, sep))
        if (!part.empty()) parts.push_back(part);
    return parts;
}

Options parseOptions(int argc, char **argv) {
    Options o;
    auto value = [&](int &i) -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(std::string(argv[i]) + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage();
            std::exit(0);
        } else if (a == "--cases")
            o.casesFile = value(i);
        else if (a == "--only")
            o.only = split(value(i), ',');
        else if (a == "--out")
            o.outDir = value(i);
        else if (a == "--threads")
            o.threads = std::stoi(value(i));
        else if (a == "--modes") {
            const auto modes = split(value(i), ',');
            o.warm = std::find(modes.begin(), modes.end(), "warm") != modes.end();
            o.cold = std::find(modes.begin(), modes.end(), "cold") != modes.end();
            if (!o.warm && !o.cold) throw std::runtime_error("--modes takes warm and/or cold");
        } else if (a == "--budget-ms")
            o.budgetMs = std::stod(value(i));
        else if (a == "--time-limit-s")
            o.timeLimitS = std::stod(value(i));
        else if (a == "--min-reps")
            o.minReps = std::max(1, std::stoi(value(i)));
        else if (a == "--max-reps")
            o.maxReps = std::max(1, std::stoi(value(i)));
        else if (a == "--peers") {
            const auto peers = split(value(i), ',');
            o.torch = std::find(peers.begin(), peers.end(), "torch") != peers.end();
            o.onednn = std::find(peers.begin(), peers.end(), "onednn") != peers.end();
        } else if (a == "--no-impls")
            o.impls = false;
        else if (a == "--flush-mb")
            o.flushBytes = static_cast<size_t>(std::stod(value(i)) * (1 << 20));
        else if (a == "--quick") {
            o.budgetMs = 20;
            o.minReps = 3;
            o.maxReps = 10;
        } else if (a == "--list")
            o.list = true;
        else if (a.rfind("--", 0) == 0 && a.find('=') == std::string::npos)
            throw std::runtime_error("unknown option " + a + " (see --help)");
        else
            o.lines.push_back(a);
    }
    o.maxReps = std::max(o.maxReps, o.minReps);
    return o;
}

std::string cpuModel() {
    std::ifstream file("/proc/cpuinfo");
    std::string line;
    while (std::getline(file, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string jsonString(const std::string &text) {
    std::string out = "\"";
    for (char ch : text) {
        if (ch == '"' || ch == '\\')
            out += '\\', out += ch;
        else if (ch == '\n')
            out += "\\n";
        else if (static_cast<unsigned char>(ch) < 0x20)
            out += ' ';
        else
            out += ch;
    }
    return out + "\"";
}

std::string csvField(const std::string &text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Stats {
    int reps = 0;
    double medianMs = 0, minMs = 0;
};

struct Row {
    Contender *contender;
    std::string check;
    Stats warm, cold;
};

// Compares a contender's output with poolgrad's headline output.
std::string compareOutputs(const std::vector<float> &got, const std::vector<float> &want, DType dt) {
    if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
    const double tol = dt == DType::F32 ? 1e-5 : dt == DType::F16 ? 2e-3 : 1.6e-2;
    size_t differ = 0;
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double a = got[i], b = want[i];
        const double d = std::fabs(a - b);
        if (std::isnan(a) != std::isnan(b) || d > tol * std::max(1.0, std::fabs(b))) ++differ;
        if (!std::isnan(d)) worst = std::max(worst, d);
    }
    if (differ == 0) return "ok";
    return std::to_string(differ) + "/" + std::to_string(got.size()) + " differ (max " + fixed(worst, 4) + ")";
}

// Times all contenders in one mode, interleaved round-robin with a rotating order.
// Warm mode re-runs a contender untimed before each burst when the case could stay in the caches
// (`rewarm`); cases far larger than the last-level cache skip it (it would only cost time). When the
// planned repetitions would take longer than `allowedS`, they shrink (not below 3); returns whether.
bool measure(std::vector<Row> &rows, bool cold, bool rewarm, double allowedS, double flushMs, const Options &o,
             CacheFlusher &flusher) {
    const size_t count = rows.size();
    std::vector<int> target(count);
    std::vector<double> estimateMs(count);
    std::vector<std::vector<double>> samples(count);
    double plannedMs = 0;
    for (size_t i = 0; i < count; ++i) {
        if (cold) flusher.flush();
        const double start = now();
        rows[i].contender->run();
        const double ms = (now() - start) * 1e3;
        target[i] = std::clamp(static_cast<int>(std::ceil(o.budgetMs / std::max(ms, 1e-3))), o.minReps, o.maxReps);
        // Cost per timed repetition: the run, plus the flush (cold) or the untimed re-warm per burst.
        estimateMs[i] = cold ? ms + flushMs : ms * (rewarm ? 1.0 + 1.0 / o.burst : 1.0);
        plannedMs += target[i] * estimateMs[i];
    }
    bool shrunk = false;
    if (allowedS > 0 && plannedMs > allowedS * 1e3) {
        const double scale = allowedS * 1e3 / plannedMs;
        for (size_t i = 0; i < count; ++i) {
            const int fitted = std::max(3, static_cast<int>(target[i] * scale));
            if (fitted < target[i]) {
                target[i] = fitted;
                shrunk = true;
            }
        }
    }
    for (int round = 0;; ++round) {
        bool any = false;
        for (size_t j = 0; j < count; ++j) {
            const size_t i = (j + static_cast<size_t>(round)) % count;
            auto &mine = samples[i];
            if (static_cast<int>(mine.size()) >= target[i]) continue;
            any = true;
            if (cold) {
                flusher.flush();
                const double start = now();
                rows[i].contender->run();
                mine.push_back((now() - start) * 1e3);
            } else {
                if (rewarm) rows[i].contender->run();  // re-warm after the other contenders ran
                const int burst = std::min(o.burst, target[i] - static_cast<int>(mine.size()));
                for (int b = 0; b < burst; ++b) {
                    const double start = now();
                    rows[i].contender->run();
                    mine.push_back((now() - start) * 1e3);
                }
            }
        }
        if (!any) break;
    }
    for (size_t i = 0; i < count; ++i) {
        Stats &s = cold ? rows[i].cold : rows[i].warm;
        s.reps = static_cast<int>(samples[i].size());
        s.medianMs = median(samples[i]);
        s.minMs = *std::min_element(samples[i].begin(), samples[i].end());
    }
    return shrunk;
}

int run(int argc, char **argv) {
    const double started = now();
    Options o = parseOptions(argc, argv);
    std::vector<Case> cases;
    if (!o.casesFile.empty()) cases = readCaseFile(o.casesFile);
    for (const std::string &line : o.lines) {
        Case c;
        if (parseCaseLine(line, c)) cases.push_back(c);
    }
    if (!o.only.empty()) {
        std::vector<Case> kept;
        for (const std::string &name : o.only) {
            auto it = std::find_if(cases.begin(), cases.end(), [&](const Case &c) { return c.name == name; });
            if (it == cases.end()) throw std::runtime_error("--only: no case named " + name);
            kept.push_back(*it);
        }
        cases = kept;
    }
    if (cases.empty()) {
        usage();
        return 2;
    }
    if (o.list) {
        for (const Case &c : cases)
            std::printf("%-12s %-30s %-5s %-6s %s  (bytes %.1f MB)\n", c.name.c_str(), c.opText().c_str(),
                        c.dtText().c_str(), c.tagText().c_str(), c.problem.c_str(), c.bytes() / 1e6);
        return 0;
    }

    if (int st = aclInit(nullptr); st != ACL_SUCCESS) throw std::runtime_error("aclInit failed");
    aclrtSetDevice(0);
    if (o.threads > 0) poolgradSetNumThreads(o.threads);
    const int threads = poolgradGetNumThreads();
    omp_set_num_threads(threads);  // oneDNN's (and the copy's) OpenMP threads, in this process only
    setTorchThreads(threads);

    const size_t llc = lastLevelCacheBytes();
    if (o.flushBytes == 0) o.flushBytes = std::max<size_t>(4 * llc, size_t(32) << 20);
    // Each copy buffer twice the last-level cache: source and destination together four times it, so the
    // copy streams from DRAM. (Fixed 128 MiB buffers stayed in the 260 and 300 MiB L3s of the big Xeon
    // hosts and read 232 GB/s on 16 threads where the copies between the cases, after a flush, read 73.)
    if (o.dramCopyBytes == 0) o.dramCopyBytes = std::max<size_t>(2 * llc, size_t(128) << 20);
    CacheFlusher flusher(o.flushBytes, threads);
    std::vector<double> flushSamples;
    for (int r = 0; r < 5; ++r) {
        const double start = now();
        flusher.flush();
        flushSamples.push_back((now() - start) * 1e3);
    }
    const double flushMs = median(flushSamples);

    const std::string torchV = torchVersion(), dnnlV = dnnlVersion();
    std::printf("poolgrad_bench: poolgrad %s; peers: torch %s, oneDNN %s\n", poolgradVersion(),
                torchV.empty() ? "NOT BUILT (not found or disabled at configure time)" : torchV.c_str(),
                dnnlV.empty() ? "NOT BUILT (not found or disabled at configure time)" : dnnlV.c_str());
    std::printf("machine: %s, %ld processors, last-level cache %.0f MiB; threads %d; flush %.0f MiB\n",
                cpuModel().c_str(), sysconf(_SC_NPROCESSORS_ONLN), llc / 1048576.0, threads, o.flushBytes / 1048576.0);
    const HostInfo hostInfo = describeHost();
    std::string isaFlags;
    for (const std::string &flag : hostInfo.isaFlags) isaFlags += (isaFlags.empty() ? "" : " ") + flag;
    const std::string torchD = torchDetails();
    std::printf(
        "host: ISA %s; L1d %zu KiB, L2 %zu KiB, L3 %zu MiB; poolgrad's Highway target %s (compiled: %s)\n"
        "OpenMP: %s; environment: %s\n%s%s",
        isaFlags.c_str(), hostInfo.l1dBytes >> 10, hostInfo.l2Bytes >> 10, hostInfo.l3Bytes >> 20,
        hostInfo.highwayTarget.c_str(), hostInfo.highwayCompiled.c_str(), hostInfo.openmpLibrary.c_str(),
        hostInfo.openmpSettings.empty() ? "no OMP_/GOMP_ variables" : hostInfo.openmpSettings.c_str(),
        torchD.empty() ? "" : ("torch: " + torchD).c_str(), torchD.empty() ? "" : "\n");

    // Copy bandwidth: L3-resident and DRAM-sized, before and after the cases.
    CopyBench l3Copy(o.l3CopyBytes, threads), dramCopy(o.dramCopyBytes, threads);
    const auto l3Samples = l3Copy.gbps(60);
    auto dramSamples = dramCopy.gbps(15);
    const double l3Gbps = median(l3Samples), dramGbps = median(dramSamples);
    const double l3Best = *std::max_element(l3Samples.begin(), l3Samples.end());
    const double dramBest = *std::max_element(dramSamples.begin(), dramSamples.end());
    std::printf(
        "copy bandwidth (read+write), median (best): L3-warm %.1f (%.1f) GB/s (%zu KiB buffers), DRAM %.1f "
        "(%.1f) GB/s (%zu MiB buffers) -- the DRAM median is the reference for %%copy\n\n",
        l3Gbps, l3Best, o.l3CopyBytes >> 10, dramGbps, dramBest, o.dramCopyBytes >> 20);
    std::vector<double> caseDram;

    std::ofstream csv;
    if (!o.outDir.empty()) {
        if (std::system(("mkdir -p '" + o.outDir + "'").c_str()) != 0)
            throw std::runtime_error("cannot create " + o.outDir);
        csv.open(o.outDir + "/results.csv");
        csv << "case,op,dir,dt,tag,problem,bytes,contender,family,headline,mode,reps,median_ms,min_ms,gbps,pct_copy,"
               "peer_over_poolgrad,check,note,traffic_bytes\n";
    }

    const double deadline = o.timeLimitS > 0 ? started + o.timeLimitS : 0;
    int shrunkCases = 0;
    for (size_t caseIndex = 0; caseIndex < cases.size(); ++caseIndex) {
        const Case &c = cases[caseIndex];
        const CaseData data = makeCaseData(c, std::hash<std::string>{}(c.name) ^ 0x5eed);
        ContenderSet set;
        addPoolgradContenders(c, data, set);
        if (!o.impls) {
            set.contenders.resize(1);
            set.skipped.clear();
        }
        if (o.torch) addTorchContenders(c, data, threads, set);
        if (o.onednn) addDnnlContenders(c, data, set);

        std::vector<Row> rows;
        for (Contender &contender : set.contenders) rows.push_back({&contender, "", {}, {}});
        // One run each (also warms up), then compare everyone with poolgrad's headline.
        std::vector<float> reference;
        for (Row &row : rows) {
            row.contender->run();
            std::vector<float> result = row.contender->result();
            if (row.contender->headline) {
                reference = std::move(result);
                row.check = "ref";
            } else {
                row.check = compareOutputs(result, reference, c.dt);
            }
        }
        const auto local = dramCopy.gbps(3);
        caseDram.insert(caseDram.end(), local.begin(), local.end());
        const bool rewarm = llc == 0 || c.bytes() <= 4.0 * static_cast<double>(llc);
        // This case's share of the time left (0: no limit), split between the modes.
        const int modes = (o.warm ? 1 : 0) + (o.cold ? 1 : 0);
        const double share =
            deadline > 0 ? std::max(0.0, deadline - now()) / static_cast<double>(cases.size() - caseIndex) / modes : 0;
        const double allowed = deadline > 0 ? std::max(share, 1e-3) : 0;
        bool shrunk = false;
        if (o.warm) shrunk = measure(rows, false, rewarm, allowed, flushMs, o, flusher) || shrunk;
        if (o.cold) shrunk = measure(rows, true, rewarm, allowed, flushMs, o, flusher) || shrunk;
        shrunkCases += shrunk ? 1 : 0;

        const double floorMs = c.bytes() / (dramGbps * 1e9) * 1e3;
        std::printf("[%s] %s %s %s %s  bytes %.2f MB, DRAM floor %.3f ms (copy now %.1f GB/s)%s\n", c.name.c_str(),
                    c.opText().c_str(), c.dtText().c_str(), c.tagText().c_str(), c.problem.c_str(), c.bytes() / 1e6,
                    floorMs, median(local), shrunk ? " [repetitions cut to fit --time-limit-s]" : "");
        std::printf("  %-46s %27s | %27s | %s\n", "", "warm: median  min ms  GB/s %copy",
                    "cold: median  min ms  GB/s %copy", "check, notes");
        const Row &head = rows.front();
        for (const Row &row : rows) {
            std::string line = "  " + row.contender->name;
            line.resize(std::max<size_t>(line.size() + 1, 49), ' ');
            char buffer[256];
            for (const Stats *s : {&row.warm, &row.cold}) {
                if (s->reps == 0) {
                    std::snprintf(buffer, sizeof buffer, "%27s | ", "-");
                } else {
                    const double gbps = c.bytes() / (s->medianMs * 1e-3) / 1e9;
                    std::snprintf(buffer, sizeof buffer, "%10.3f %7.3f %5.1f %4.0f%% | ", s->medianMs, s->minMs, gbps,
                                  100 * gbps / dramGbps);
                }
                line += buffer;
            }
            line += row.check;
            if (!row.contender->note.empty()) line += "; " + row.contender->note;
            std::printf("%s\n", line.c_str());
        }
        for (const Skipped &s : set.skipped) std::printf("  %-46s skipped: %s\n", s.name.c_str(), s.reason.c_str());
        std::string ratios;
        for (const Row &row : rows) {
            if (row.contender->family == "poolgrad") continue;
            ratios += "  " + row.contender->name + " ";
            ratios += o.warm ? fixed(row.warm.medianMs / head.warm.medianMs, 2) : "-";
            ratios += "/";
            ratios += o.cold ? fixed(row.cold.medianMs / head.cold.medianMs, 2) : "-";
        }
        if (!ratios.empty())
            std::printf("  peer time / poolgrad time (warm/cold; > 1: poolgrad faster):%s\n", ratios.c_str());
        std::printf("\n");
        std::fflush(stdout);

        if (csv.is_open()) {
            const std::string prefix = csvField(c.name) + "," + c.opText() + "," +
                                       (c.dir == Dir::Backward ? "bwd" : "fwd") + "," + c.dtText() + "," + c.tagText() +
                                       "," + c.problem + "," + fixed(c.bytes(), 0) + ",";
            for (const Row &row : rows) {
                for (int mode = 0; mode < 2; ++mode) {
                    const Stats &s = mode == 0 ? row.warm : row.cold;
                    const Stats &h = mode == 0 ? head.warm : head.cold;
                    if (s.reps == 0) continue;
                    const double gbps = c.bytes() / (s.medianMs * 1e-3) / 1e9;
                    csv << prefix << csvField(row.contender->name) << "," << row.contender->family << ","
                        << (row.contender->headline ? 1 : 0) << "," << (mode == 0 ? "warm" : "cold") << "," << s.reps
                        << "," << fixed(s.medianMs, 5) << "," << fixed(s.minMs, 5) << "," << fixed(gbps, 3) << ","
                        << fixed(100 * gbps / dramGbps, 2) << "," << fixed(s.medianMs / h.medianMs, 4) << ","
                        << csvField(row.check) << "," << csvField(row.contender->note) << ","
                        << fixed(row.contender->trafficBytes, 0) << "\n";
                }
            }
            for (const Skipped &s : set.skipped)
                csv << prefix << csvField(s.name) << "," << split(s.name, ':')[0] << ",0,skipped,0,,,,,,,"
                    << csvField(s.reason) << ",\n";
            csv.flush();
        }
    }

    const auto endSamples = dramCopy.gbps(10);
    const double endGbps = median(endSamples);
    const double elapsed = now() - started;
    std::printf(
        "copy bandwidth at the end: DRAM %.1f GB/s (start %.1f, during the cases %.1f)%s\n", endGbps, dramGbps,
        median(caseDram),
        std::fabs(endGbps - dramGbps) > 0.1 * dramGbps ? " -- drifted more than 10%: the machine is noisy" : "");
    std::printf("elapsed %.1f s\n", elapsed);
    if (shrunkCases > 0)
        std::printf(
            "%d of %zu cases ran fewer repetitions than planned to fit --time-limit-s %.0f: a slow or busy "
            "machine\n",
            shrunkCases, cases.size(), o.timeLimitS);

    if (!o.outDir.empty()) {
        std::ofstream json(o.outDir + "/run.json");
        char date[64];
        const std::time_t t = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        std::string args;
        for (int i = 1; i < argc; ++i) args += (i > 1 ? " " : "") + std::string(argv[i]);
        json << "{\n"
             << "  \"date\": " << jsonString(date) << ",\n"
             << "  \"host\": " << jsonString(host) << ",\n"
             << "  \"cpu\": " << jsonString(cpuModel()) << ",\n"
             << "  \"processors\": " << sysconf(_SC_NPROCESSORS_ONLN) << ",\n"
             << "  \"isa_flags\": " << jsonString(isaFlags) << ",\n"
             << "  \"l1d_bytes\": " << hostInfo.l1dBytes << ",\n"
             << "  \"l2_bytes\": " << hostInfo.l2Bytes << ",\n"
             << "  \"l3_bytes\": " << hostInfo.l3Bytes << ",\n"
             << "  \"highway_target\": " << jsonString(hostInfo.highwayTarget) << ",\n"
             << "  \"highway_compiled\": " << jsonString(hostInfo.highwayCompiled) << ",\n"
             << "  \"openmp_library\": " << jsonString(hostInfo.openmpLibrary) << ",\n"
             << "  \"openmp_environment\": " << jsonString(hostInfo.openmpSettings) << ",\n"
             << "  \"torch_details\": " << jsonString(torchD) << ",\n"
             << "  \"threads\": " << threads << ",\n"
             << "  \"last_level_cache_bytes\": " << llc << ",\n"
             << "  \"flush_bytes\": " << o.flushBytes << ",\n"
             << "  \"copy_l3_bytes\": " << o.l3CopyBytes << ",\n"
             << "  \"copy_l3_gbps\": " << fixed(l3Gbps, 3) << ",\n"
             << "  \"copy_l3_gbps_best\": " << fixed(l3Best, 3) << ",\n"
             << "  \"copy_dram_gbps_best\": " << fixed(dramBest, 3) << ",\n"
             << "  \"copy_dram_bytes\": " << o.dramCopyBytes << ",\n"
             << "  \"copy_dram_gbps\": " << fixed(dramGbps, 3) << ",\n"
             << "  \"copy_dram_gbps_during_cases\": " << fixed(median(caseDram), 3) << ",\n"
             << "  \"copy_dram_gbps_end\": " << fixed(endGbps, 3) << ",\n"
             << "  \"poolgrad_version\": " << jsonString(poolgradVersion()) << ",\n"
             << "  \"torch_version\": " << jsonString(torchV) << ",\n"
             << "  \"onednn_version\": " << jsonString(dnnlV) << ",\n"
             << "  \"budget_ms\": " << o.budgetMs << ",\n"
             << "  \"min_reps\": " << o.minReps << ",\n"
             << "  \"max_reps\": " << o.maxReps << ",\n"
             << "  \"time_limit_s\": " << o.timeLimitS << ",\n"
             << "  \"cases_with_fewer_reps\": " << shrunkCases << ",\n"
             << "  \"flush_ms\": " << fixed(flushMs, 3) << ",\n"
             << "  \"arguments\": " << jsonString(args) << ",\n"
             << "  \"elapsed_s\": " << fixed(elapsed, 1) << "\n"
             << "}\n";
        std::printf("wrote %s/results.csv and %s/run.json\n", o.outDir.c_str(), o.outDir.c_str());
    }
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char **argv) {
    try {
        return bench::run(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "poolgrad_bench: %s\n", e.what());
        return 1;
    }
}
