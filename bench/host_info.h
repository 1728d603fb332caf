// What the host is, for the report's per-host sections: CPU model, the ISA extensions that matter to
// pooling kernels, cache sizes, processors, the SIMD target poolgrad's Highway dispatch takes here, and
// the OpenMP runtime and settings every contender shares in this process.
#pragma once

#include <string>
#include <vector>

namespace bench {

struct HostInfo {
    std::string cpuModel;                           // /proc/cpuinfo "model name"
    std::vector<std::string> isaFlags;              // those of kRelevantFlags the CPU reports, in that order
    long processors = 0;                            // online processors
    size_t l1dBytes = 0, l2Bytes = 0, l3Bytes = 0;  // one instance of each (as the VM reports it)
    std::string highwayTarget;                      // the target HWY_DYNAMIC_DISPATCH picks in poolgrad
    std::string highwayCompiled;                    // every target compiled in, best first
    std::string openmpLibrary;                      // path of the libgomp loaded into this process
    std::string openmpSettings;                     // OMP_* / GOMP_* variables set in the environment ("" when none)
};

HostInfo describeHost();

}  // namespace bench
