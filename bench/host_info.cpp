#include "host_info.h"

#include <hwy/targets.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

extern char **environ;

namespace bench {
namespace {

// The extensions that decide which kernels the libraries can run: vector width, 16-bit conversions,
// bf16 arithmetic.
const char *const kRelevantFlags[] = {"avx2",     "fma",      "f16c",        "avx512f",     "avx512bw",
                                      "avx512vl", "avx512dq", "avx512_bf16", "avx512_fp16", "amx_bf16"};

std::string cpuinfoField(const std::string &key) {
    std::ifstream file("/proc/cpuinfo");
    std::string line;
    while (std::getline(file, line))
        if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 2);
    return "";
}

size_t parseSize(const std::string &text) {
    size_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (!text.empty() && text.back() == 'K') value <<= 10;
    if (!text.empty() && text.back() == 'M') value <<= 20;
    return value;
}

// sysfs cache descriptions of processor 0: level and type per index.
void readCaches(HostInfo &host) {
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream levelFile(dir + "level"), typeFile(dir + "type"), sizeFile(dir + "size");
        int level = 0;
        std::string type, size;
        if (!(levelFile >> level) || !(typeFile >> type) || !(sizeFile >> size)) continue;
        if (type == "Instruction") continue;
        (level == 1 ? host.l1dBytes : level == 2 ? host.l2Bytes : host.l3Bytes) = parseSize(size);
    }
}

std::string targetNames(int64_t targets) {
    std::string names;
    // Highway numbers better targets with lower bits: the lowest set bit is the best.
    for (int64_t rest = targets; rest != 0; rest &= rest - 1) {
        if (!names.empty()) names += ", ";
        names += hwy::TargetName(rest & -rest);
    }
    return names;
}

int findOpenmp(dl_phdr_info *info, size_t, void *out) {
    if (info->dlpi_name && std::strstr(info->dlpi_name, "libgomp")) {
        char resolved[4096];
        *static_cast<std::string *>(out) = realpath(info->dlpi_name, resolved) ? resolved : info->dlpi_name;
        return 1;
    }
    return 0;
}

}  // namespace

HostInfo describeHost() {
    HostInfo host;
    host.cpuModel = cpuinfoField("model name");
    if (host.cpuModel.empty()) host.cpuModel = "unknown";
    const std::string all = " " + cpuinfoField("flags") + " ";
    for (const char *flag : kRelevantFlags)
        if (all.find(" " + std::string(flag) + " ") != std::string::npos) host.isaFlags.push_back(flag);
    host.processors = sysconf(_SC_NPROCESSORS_ONLN);
    readCaches(host);
    // poolgrad is compiled with the same Highway headers and flags as this driver, so HWY_TARGETS here is
    // its list; HWY_DYNAMIC_DISPATCH runs the best of those the CPU supports.
    const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
    host.highwayTarget = usable ? hwy::TargetName(usable & -usable) : "none";
    host.highwayCompiled = targetNames(HWY_TARGETS);
    dl_iterate_phdr(findOpenmp, &host.openmpLibrary);
    for (char **variable = environ; *variable; ++variable)
        if (std::strncmp(*variable, "OMP_", 4) == 0 || std::strncmp(*variable, "GOMP_", 5) == 0 ||
            std::strncmp(*variable, "KMP_", 4) == 0)
            host.openmpSettings += (host.openmpSettings.empty() ? "" : " ") + std::string(*variable);
    return host;
}

}  // namespace bench
