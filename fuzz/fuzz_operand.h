// One operand of a fuzzed call: an aclTensor over a host buffer allocated to exactly the number of
// bytes its storage claim (or, without a claim, its view) covers, so that AddressSanitizer reports any
// access outside; the layout (contiguous, channels-last, gapped, zero or colliding strides, raw strides),
// the offset and the storage claim come from the input. Sizes are computed in 128 bits here, independently
// of src/, because descriptors may claim absurd dims.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "fuzz_input.h"

namespace poolgrad_fuzz {

using Int128 = __int128;

// Buffers are at most this many elements; a view that reaches further gets a storage claim that the
// library must refuse.
constexpr int64_t kMaxBufferElements = int64_t(1) << 16;

size_t elementBytes(aclDataType type);

// Whether the row-major strides of `dims` (what aclCreateTensor computes for null strides) overflow int64.
bool rowMajorOverflows(const std::vector<int64_t> &dims);

// How the bytes of an input lay the operand out (see fuzz/README.md for the codes).
struct OperandLayout {
    uint8_t layout = 0;
    int64_t offset = 0;
    uint8_t storage = 0;
};

// Input edits applied to one operand before or after its layout is decided.
struct OperandEdits {
    std::vector<std::pair<int, int64_t>> dims;     // (axis, value)
    std::vector<std::pair<int, int64_t>> strides;  // (axis, value)
    bool dropLastDim = false;
    std::vector<int64_t> appendDims;
    bool typeSet = false, formatSet = false, offsetSet = false;
    int64_t type = 0, format = 0, offset = 0;
    std::vector<int64_t> storage;  // replaces the storage claim when non-empty (one edit per dim)
    bool nullTensor = false, nullData = false;
};

struct Buffer {
    unsigned char *bytes = nullptr;
    size_t size = 0;
    explicit Buffer(size_t byteCount);
    ~Buffer();
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
};

struct Operand {
    std::string role;
    bool output = false;
    std::vector<int64_t> dims, strides;
    bool stridesGiven = false;
    int64_t offset = 0;
    aclDataType type = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> storageDims;
    bool storageGiven = false;
    Int128 reach = 0;     // 1 + the largest element offset the view reaches; 0 for an empty view
    Int128 elements = 0;  // exact element count, saturated at 2^100
    Int128 claimed = 0;   // storage claim in elements, saturated at 2^100 (when storageGiven)
    int64_t bufferElements = 0;
    std::shared_ptr<Buffer> buffer;
    aclTensor *tensor = nullptr;
    bool nullData = false;
    std::vector<unsigned char> snapshot;

    Operand() = default;
    Operand(const Operand &) = delete;
    Operand &operator=(const Operand &) = delete;
    ~Operand();

    bool empty() const { return elements == 0; }
    size_t bytesPerElement() const { return elementBytes(type); }
    // Byte offset of the element at a multi-index of the view (the caller keeps it inside the view).
    size_t byteOffset(const std::vector<int64_t> &index) const;
    uint64_t bitsAt(const std::vector<int64_t> &index) const;
    void setBits(const std::vector<int64_t> &index, uint64_t bits);
    // Whether two view elements share an address: exactly for small views, "true" for a zero stride on
    // an axis longer than 1, "false" when unknown.
    bool definitelySelfOverlapping() const;
};

// Builds the operand: dims and dtype (after `edits`), strides from `layout`, storage claim, buffer (or
// `shared`, for an operand that aliases another) and the aclTensor. `channelAxis` is the axis stored
// innermost by the channels-last layout (-1: none).
void buildOperand(Operand &operand, const std::string &role, bool output, std::vector<int64_t> dims, aclDataType type,
                  aclFormat format, int channelAxis, const OperandLayout &layout, const OperandEdits &edits,
                  SplitMix &rng);

// Allocates the buffer of `operand` (or shares `aliasOf`'s, grown to cover both views).
void allocateBuffer(Operand &operand, Operand *aliasOf);

// Creates the aclTensor over the buffer (nullptr when creation is refused or the input asks for null).
void createTensor(Operand &operand, const OperandEdits &edits);

// Visits every multi-index of the view in row-major order (the caller bounds the element count).
template <typename Visit>
void forEachIndex(const std::vector<int64_t> &dims, Visit &&visit) {
    for (int64_t d : dims)
        if (d <= 0) return;
    std::vector<int64_t> index(dims.size(), 0);
    while (true) {
        visit(index);
        size_t axis = dims.size();
        while (axis > 0) {
            --axis;
            if (++index[axis] < dims[axis]) break;
            index[axis] = 0;
            if (axis == 0) return;
        }
        if (dims.empty()) return;
    }
}

}  // namespace poolgrad_fuzz
