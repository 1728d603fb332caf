#include "core/handle_registry.h"

#include <atomic>

#include "core/error_message.h"

namespace poolgrad {
namespace {

static_assert(sizeof(uintptr_t) == 8, "handles are 64-bit values");

constexpr uintptr_t markerShift = 60, kindShift = 56, serialShift = 3;
constexpr uintptr_t marker = 0xA;
constexpr uint64_t serialLimit = uint64_t{1} << (kindShift - serialShift);  // serials are 1 .. 2^53 - 1

std::atomic<uint64_t> lastSerial{0};

// The kind bits of a value carrying the marker; 0 otherwise (no kind is 0).
unsigned kindBits(uintptr_t value) {
    if (value >> markerShift != marker || value % 8 != 0) return 0;
    return static_cast<unsigned>((value >> kindShift) & 0xF);
}

}  // namespace

const char *handleKindName(HandleKind kind) {
    switch (kind) {
        case HandleKind::Tensor:
            return "aclTensor";
        case HandleKind::Scalar:
            return "aclScalar";
        case HandleKind::IntArray:
            return "aclIntArray";
        case HandleKind::FloatArray:
            return "aclFloatArray";
        case HandleKind::BoolArray:
            return "aclBoolArray";
        case HandleKind::TensorList:
            return "aclTensorList";
        case HandleKind::Executor:
            return "aclOpExecutor";
        case HandleKind::Stream:
            return "aclrtStream";
    }
    return "unknown handle kind";
}

uint64_t nextHandleSerial() {
    uint64_t serial = lastSerial.load(std::memory_order_relaxed);
    do {
        if (serial + 1 >= serialLimit) return 0;
    } while (!lastSerial.compare_exchange_weak(serial, serial + 1, std::memory_order_relaxed));
    return serial + 1;
}

uintptr_t encodeHandle(HandleKind kind, uint64_t serial) {
    return marker << markerShift | static_cast<uintptr_t>(kind) << kindShift |
           static_cast<uintptr_t>(serial) << serialShift;
}

uint64_t handleSerial(const void *handle, HandleKind kind) {
    const auto value = reinterpret_cast<uintptr_t>(handle);
    if (kindBits(value) != static_cast<unsigned>(kind)) return 0;
    return (value & ((uintptr_t{1} << kindShift) - 1)) >> serialShift;
}

std::string explainDeadHandle(const void *handle, HandleKind kind) {
    const unsigned bits = kindBits(reinterpret_cast<uintptr_t>(handle));
    if (bits == 0)
        return joinText("is not an ", handleKindName(kind), " handle (", handle, " was not returned by poolgrad)");
    if (bits != static_cast<unsigned>(kind))
        return joinText("is an ", handleKindName(static_cast<HandleKind>(bits)), " handle, not an ",
                        handleKindName(kind));
    if (kind == HandleKind::Executor)
        return joinText("is not live (", handle,
                        " was already run, destroyed, or released by a failed run; only a repeatable executor runs "
                        "twice)");
    return joinText("was already destroyed (", handleKindName(kind), " ", handle, ")");
}

}  // namespace poolgrad
