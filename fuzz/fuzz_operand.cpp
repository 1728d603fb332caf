#include "fuzz_operand.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "known_defects.h"

namespace poolgrad_fuzz {
namespace {

constexpr Int128 kSaturation = Int128(1) << 100;

Int128 saturatingMul(Int128 a, Int128 b) {
    if (a == 0 || b == 0) return 0;
    if (a > kSaturation / b) return kSaturation;
    return std::min(a * b, kSaturation);
}

int64_t saturate64(Int128 value) {
    constexpr int64_t max = INT64_MAX;
    return value > max ? max : static_cast<int64_t>(value);
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &dims, const std::vector<int> &order) {
    // order: axes from outermost to innermost
    std::vector<int64_t> strides(dims.size(), 0);
    Int128 running = 1;
    for (size_t k = order.size(); k-- > 0;) {
        const int axis = order[static_cast<size_t>(k)];
        strides[static_cast<size_t>(axis)] = saturate64(running);
        running = saturatingMul(running, std::max<int64_t>(dims[static_cast<size_t>(axis)], 1));
    }
    return strides;
}

}  // namespace

bool rowMajorOverflows(const std::vector<int64_t> &dims) {
    int64_t running = 1;
    for (int64_t dim : dims)
        if (__builtin_mul_overflow(running, std::max<int64_t>(dim, 1), &running)) return true;
    return false;
}

size_t elementBytes(aclDataType type) {
    switch (type) {
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
        case ACL_COMPLEX32:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
        case ACL_COMPLEX64:
            return 8;
        case ACL_COMPLEX128:
            return 16;
        default:
            return 1;
    }
}

Buffer::Buffer(size_t byteCount) : size(byteCount) {
    // Exactly byteCount bytes (malloc(0) included): ASan reports the first byte past them.
    bytes = static_cast<unsigned char *>(std::malloc(byteCount));
    if (bytes == nullptr) std::abort();
}

Buffer::~Buffer() { std::free(bytes); }

Operand::~Operand() {
    if (tensor != nullptr) aclDestroyTensor(tensor);
}

size_t Operand::byteOffset(const std::vector<int64_t> &index) const {
    Int128 element = offset;
    for (size_t i = 0; i < index.size(); ++i) element += Int128(index[i]) * strides[i];
    return static_cast<size_t>(element) * bytesPerElement();
}

uint64_t Operand::bitsAt(const std::vector<int64_t> &index) const {
    const size_t at = byteOffset(index), bytes = bytesPerElement();
    uint64_t bits = 0;
    std::memcpy(&bits, buffer->bytes + at, std::min<size_t>(bytes, sizeof bits));
    return bits;
}

void Operand::setBits(const std::vector<int64_t> &index, uint64_t bits) {
    const size_t at = byteOffset(index), bytes = bytesPerElement();
    std::memcpy(buffer->bytes + at, &bits, std::min<size_t>(bytes, sizeof bits));
}

bool Operand::definitelySelfOverlapping() const {
    if (empty()) return false;
    for (size_t i = 0; i < dims.size(); ++i)
        if (dims[i] > 1 && strides[i] == 0) return true;
    if (elements > 4096) return false;
    std::set<Int128> seen;
    bool overlap = false;
    forEachIndex(dims, [&](const std::vector<int64_t> &index) {
        Int128 element = offset;
        for (size_t i = 0; i < index.size(); ++i) element += Int128(index[i]) * strides[i];
        if (!seen.insert(element).second) overlap = true;
    });
    return overlap;
}

void buildOperand(Operand &operand, const std::string &role, bool output, std::vector<int64_t> dims, aclDataType type,
                  aclFormat format, int channelAxis, const OperandLayout &layout, const OperandEdits &edits,
                  SplitMix &rng) {
    operand.role = role;
    operand.output = output;
    for (const auto &[axis, value] : edits.dims)
        if (!dims.empty()) dims[static_cast<size_t>(axis) % dims.size()] = value;
    if (edits.dropLastDim && !dims.empty()) dims.pop_back();
    for (int64_t value : edits.appendDims) dims.push_back(value);
    operand.dims = dims;
    operand.type = edits.typeSet ? static_cast<aclDataType>(enumValue(edits.type)) : type;
    operand.format = edits.formatSet ? static_cast<aclFormat>(enumValue(edits.format)) : format;
    const int rank = static_cast<int>(dims.size());
    if (channelAxis >= rank) channelAxis = -1;

    std::vector<int> order(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) order[static_cast<size_t>(i)] = i;
    operand.stridesGiven = true;
    switch (layout.layout % 8) {
        case 0:  // contiguous, strides left to the library (nullptr)
            operand.stridesGiven = false;
            operand.strides = contiguousStrides(dims, order);
            break;
        case 1:
            operand.strides = contiguousStrides(dims, order);
            break;
        case 2:  // channels-last: the channel axis innermost
            if (channelAxis >= 0) {
                order.erase(order.begin() + channelAxis);
                order.push_back(channelAxis);
            }
            operand.strides = contiguousStrides(dims, order);
            break;
        case 3: {  // gapped: every axis a little longer in storage than in the view
            operand.strides.assign(static_cast<size_t>(rank), 0);
            Int128 running = rng.uniform(1, 2);
            for (int k = rank; k-- > 0;) {
                operand.strides[static_cast<size_t>(k)] = saturate64(running);
                running = std::min(
                    saturatingMul(running, std::max<int64_t>(dims[static_cast<size_t>(k)], 1)) + rng.uniform(0, 2),
                    kSaturation);
            }
            break;
        }
        case 4:  // axis order reversed (the first axis innermost)
            std::reverse(order.begin(), order.end());
            operand.strides = contiguousStrides(dims, order);
            break;
        case 5:  // one axis broadcast with stride 0
            operand.strides = contiguousStrides(dims, order);
            if (rank > 0) operand.strides[static_cast<size_t>(rng.uniform(0, rank - 1))] = 0;
            break;
        case 6:  // colliding strides: every axis stride 1
            operand.strides.assign(static_cast<size_t>(rank), 1);
            break;
        default:  // raw small strides
            operand.strides.assign(static_cast<size_t>(rank), 0);
            for (auto &stride : operand.strides) stride = rng.uniform(0, 16);
            break;
    }
    for (const auto &[axis, value] : edits.strides)
        if (rank > 0) {
            operand.strides[static_cast<size_t>(axis) % static_cast<size_t>(rank)] = value;
            operand.stridesGiven = true;
        }
    operand.offset = edits.offsetSet ? edits.offset : layout.offset;
    // (Phase 1 forms data + offset * elementSize as a pointer: an offset near INT64_MAX overflows it.)
    if (knownDefectsAvoided() && operand.offset > (int64_t(1) << 32)) operand.offset = 0;

    // Exact element count and reach (saturated far above anything allocatable).
    operand.elements = 1;
    bool empty = false, negative = operand.offset < 0;
    Int128 last = operand.offset;
    for (int i = 0; i < rank; ++i) {
        const int64_t dim = dims[static_cast<size_t>(i)], stride = operand.strides[static_cast<size_t>(i)];
        if (dim <= 0) empty = true;
        if (dim < 0 || stride < 0) negative = true;
        operand.elements = saturatingMul(operand.elements, std::max<int64_t>(dim, 0));
        if (dim > 0) last = std::min(last + saturatingMul(dim - 1, std::max<int64_t>(stride, 0)), kSaturation);
    }
    operand.reach = empty || negative ? 0 : last + 1;
    if (empty) operand.elements = 0;

    // Storage claim.
    const int64_t reach64 = saturate64(operand.reach);
    operand.storageGiven = true;
    switch (layout.storage % 6) {
        case 0:
            operand.storageDims = {reach64};
            break;
        case 1:
            operand.storageGiven = false;
            break;
        case 2:
            operand.storageDims = {std::max<int64_t>(reach64 - 1, 0)};
            break;
        case 3:
            operand.storageDims = {int64_t(1) << 40};
            break;
        case 4: {  // raw dims
            const int count = static_cast<int>(rng.uniform(1, 3));
            for (int i = 0; i < count; ++i) operand.storageDims.push_back(rng.uniform(0, 9));
            break;
        }
        default:  // the view's own dims, as a caller that believes the view is contiguous claims
            operand.storageDims = dims;
            break;
    }
    if (!edits.storage.empty()) {
        operand.storageGiven = true;
        operand.storageDims = edits.storage;
    }
    auto claimOf = [](const std::vector<int64_t> &storageDims) {
        Int128 product = 1;
        for (int64_t dim : storageDims) product = saturatingMul(product, std::max<int64_t>(dim, 0));
        return product;
    };
    operand.claimed = claimOf(operand.storageDims);

    // The buffer covers the claim or the view, whichever is smaller, and at most kMaxBufferElements; a view
    // reaching further than the buffer always gets a claim that says so, which the library must refuse.
    Int128 need = operand.reach;
    if (operand.storageGiven) need = std::min(need, operand.claimed);
    operand.bufferElements = static_cast<int64_t>(std::min<Int128>(need, kMaxBufferElements));
    if (operand.bufferElements < operand.reach && (!operand.storageGiven || operand.claimed >= operand.reach)) {
        operand.storageGiven = true;
        operand.storageDims = {operand.bufferElements};
        operand.claimed = operand.bufferElements;
    }
    operand.nullData = edits.nullData;
}

void allocateBuffer(Operand &operand, Operand *aliasOf) {
    const size_t bytes = static_cast<size_t>(operand.bufferElements) * operand.bytesPerElement();
    if (aliasOf == nullptr) {
        operand.buffer = std::make_shared<Buffer>(bytes);
        return;
    }
    if (aliasOf->buffer->size < bytes) {  // grow the shared buffer so that it covers both views
        auto grown = std::make_shared<Buffer>(bytes);
        aliasOf->buffer = grown;
    }
    operand.buffer = aliasOf->buffer;
}

void createTensor(Operand &operand, const OperandEdits &edits) {
    if (edits.nullTensor) return;
    // (aclCreateTensor multiplies the dims even when strides are given.)
    if (knownDefectsAvoided() && rowMajorOverflows(operand.dims)) return;
    operand.tensor = aclCreateTensor(
        operand.dims.data(), operand.dims.size(), operand.type, operand.stridesGiven ? operand.strides.data() : nullptr,
        operand.offset, operand.format, operand.storageGiven ? operand.storageDims.data() : nullptr,
        operand.storageGiven ? operand.storageDims.size() : 0, operand.nullData ? nullptr : operand.buffer->bytes);
}

}  // namespace poolgrad_fuzz
