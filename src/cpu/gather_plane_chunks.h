// The SIMD core of the plane-chunk index gather backward (Highway, run-time dispatch) for windows that do
// not overlap on dense planes: a whole plane is one flat array cut into chunks of `lanes` consecutive
// plane positions, whatever the rows. Each position lies in at most one window, and which one is the same
// for every plane, so the plan tables per chunk the lowest output its lanes read and each lane's offset
// from it (within one or two vectors). A chunk then costs one or two vector loads of indices and of
// gradients, a lane permutation of each, a compare against the lanes' own plane positions and a select:
// no per-row work, which is what narrow rows (a few vectors or less) pay for in the row gather.
#pragma once

#include <cstdint>
#include <vector>

namespace poolgrad::cpu {

// Lanes of the instruction set the dispatch chose for this CPU (at most 16): the chunk the plan builds
// its tables for.
int64_t planeChunkLaneCount();

struct PlaneChunkTables {
    enum Reach : uint8_t { kNoWindow = 0, kOneVector = 1, kTwoVectors = 2 };
    int64_t lanes = 1;
    int64_t planeElements = 0;  // positions of a plane
    int64_t planeOutputs = 0;   // outputs of a plane
    int64_t chunks = 0;         // ceil(planeElements / lanes)
    // Per chunk:
    // A chunk's outputs lie within `lanes` of its lowest one (one vector), or in two such groups: where a
    // window spans two depths (or rows), a chunk crossing from the last row of one into the first of the
    // next reads the end and the start of the window's output plane (two vectors, far apart).
    std::vector<uint8_t> reach;         // vectors of outputs the chunk reads (kNoWindow: it is all +0)
    std::vector<int32_t> firstOutput;   // lowest output a lane of the chunk reads
    std::vector<int32_t> readable;      // outputs that exist from firstOutput on, at most lanes
    std::vector<int32_t> secondOutput;  // kTwoVectors: lowest output of the second group
    std::vector<int32_t> secondReadable;
    std::vector<uint64_t> laneMask;    // bit i: lane i lies in a window
    std::vector<int32_t> laneOffset;   // per lane (chunk * lanes + i): its window's output - firstOutput, or
                                       // lanes + its output - secondOutput
    std::vector<int32_t> laneNumbers;  // 0, 1, ..., lanes - 1
};

// Chunks [firstChunk, endChunk) of one plane. Output q's int32 index and float32 gradient are
// indices[q - outputOffset] and gradients[q - outputOffset]; chunk c's lane i goes to
// destination[(c - firstChunk) * lanes + i] (the last chunk of a plane only as far as the plane goes):
// +0 + the gradient of its window's output when that output's index is the lane's plane position, else
// +0. Streaming: aligned vectors bypass the caches. Returns how many lanes matched.
int64_t gatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk, const int32_t *indices,
                          const float *gradients, int64_t outputOffset, float *destination, bool streaming);

// How many of count int32 indices are not -1.
int64_t countPresentIndices(const int32_t *indices, int64_t count);

}  // namespace poolgrad::cpu
