// The SIMD core of the plane-chunk index gather backward (Highway, run-time dispatch) for windows that do
// not overlap on dense planes: a whole plane is one flat array cut into chunks of `lanes` consecutive
// plane positions, whatever the rows. Each position lies in at most one window, and which one is the same
// for every plane, so the plan tables per chunk the lowest output its lanes read and each lane's offset
// from it (within one or two vectors). A chunk then costs one or two vector loads of indices and of
// gradients, a lane permutation of each, a compare against the lanes' own plane positions and a select:
// no per-row work, which is what narrow rows (a few vectors or less) pay for in the row gather. Where
// positions 2j and 2j+1 always share a window, pair units make two chunks from one permute
// (every target with two lanes or more).
#pragma once

#include <cstdint>
#include <vector>

namespace poolgrad::cpu {

// Lanes of the instruction set the dispatch chose for this CPU (at most 16): the chunk the plan builds
// its tables for.
int64_t planeChunkLaneCount();

struct PlaneChunkTables {
    enum Reach : uint8_t { kNoWindow = 0, kOneVector = 1, kTwoVectors = 2 };
    // A chunk's outputs lie within `lanes` of its lowest one (one vector), or in two such groups: where a
    // window spans two depths (or rows), a chunk crossing from the last row of one into the first of the
    // next reads the end and the start of the window's output plane (two vectors, far apart).
    struct Chunk {
        int32_t firstOutput = 0;     // lowest output a lane of the chunk reads
        int32_t secondOutput = 0;    // kTwoVectors: lowest output of the second group
        int32_t readable = 0;        // outputs that exist from firstOutput on, at most lanes
        int32_t secondReadable = 0;  // the same from secondOutput
        uint8_t reach = kNoWindow;   // vectors of outputs the chunk reads (kNoWindow: it is all +0)
    };
    int64_t lanes = 1;
    int64_t planeElements = 0;  // positions of a plane
    int64_t planeOutputs = 0;   // outputs of a plane
    int64_t chunks = 0;         // ceil(planeElements / lanes)
    std::vector<Chunk> chunk;
    // Chunks come in units of two (chunks 2u, 2u+1). Pair units: where every even position 2j and 2j+1 lie
    // in one window (or both in none), as 2x2 windows at stride 2 on rows of even width give, and the
    // unit's `lanes` pairs read one vector of outputs, the unit's two chunks are made together: each pair's
    // output permuted once, compared with the even and the odd position, the two sums interleaved. pairUnit
    // lists them in order with their first outputs and how many outputs exist from there (at most lanes);
    // per pair (unit k's pair i at
    // k * lanes + i) its output - first (pairOffset) and its even position (pairPosition; planeElements for
    // a pair in no window). Of the other chunks, the plain ones (whole, inside the plane, outputs in one
    // vector that exists whole) take a loop of their own (plainChunk, with their first outputs), the rest
    // the general one (otherChunk). The *Before arrays count, per chunk boundary c (chunks + 1 entries), the
    // pair units, plain and other chunks before chunk c.
    std::vector<int32_t> pairUnit, pairFirstOutput, pairReadable, pairOffset, pairPosition;
    std::vector<int32_t> plainChunk, plainFirstOutput, otherChunk;
    std::vector<int32_t> pairBefore, plainBefore, otherBefore;
    // Per lane (chunk * lanes + i):
    std::vector<int32_t> laneOffset;    // its window's output - firstOutput, or lanes + output - secondOutput
    std::vector<int32_t> lanePosition;  // its plane position; planeElements for a lane in no window
};

// Whether the dispatched instruction set makes pair units (all but the scalar target).
bool planeChunkPairsSupported();

// Chunks [firstChunk, endChunk) of one plane (firstChunk even; endChunk even or the plane's last). Output q's int32
// index and float32 gradient are indices[q] and gradients[q]; chunk c's lane i goes to destination[(c - firstChunk) *
// lanes + i] (the last chunk of a plane only as far as the plane goes): +0 + the gradient of its window's output when
// that output's index is the lane's plane position, else +0. Streaming: aligned vectors bypass the caches. Returns how
// many lanes matched.
int64_t gatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk, const int32_t *indices,
                          const float *gradients, float *destination, bool streaming);

struct IndexCounts {
    int64_t present = 0;       // not -1
    int64_t outsidePlane = 0;  // < -1 or >= planeElements
};

// The operands of planes (n, c), flat plane number n * channels + c: each operand's plane (n, c) starts at
// its base + n * stride[0] + c * stride[1] elements.
struct PlaneChunkOperands {
    const int32_t *indices = nullptr;
    const float *gradients = nullptr;
    float *destination = nullptr;
    int64_t channels = 1;
    int64_t indexStride[2] = {0, 0}, gradientStride[2] = {0, 0}, destinationStride[2] = {0, 0};
};

struct WholePlaneCounts {
    IndexCounts indices;  // over every output of the planes
    int64_t matched = 0;  // lanes that matched
};

// gatherPlaneChunks over all chunks of planes [firstPlane, endPlane), and countIndices over all their outputs,
// in one call: no per-plane call, table set-up or sum across lanes (small planes, case E's 784 positions, spent
// a good part of their time there).
WholePlaneCounts gatherWholePlanes(const PlaneChunkTables &tables, const PlaneChunkOperands &operands,
                                   int64_t firstPlane, int64_t endPlane, bool streaming);
// The counts of count int32 indices of a plane of planeElements positions.
IndexCounts countIndices(const int32_t *indices, int64_t count, int64_t planeElements);

}  // namespace poolgrad::cpu
