// Opaque handles that a stale or double use always detects. The value a caller receives for a tensor,
// array, list, executor or stream is never an address: it encodes the kind of object and a serial number
// that is issued once per process, so a destroyed handle stays unknown forever, even when the next object
// is allocated at the very address the destroyed one had. One registry per kind maps the live serials to
// their objects; every C entry point resolves a handle once, through it, and works on the object after.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace poolgrad {

enum class HandleKind : uint8_t {
    Tensor = 1,
    Scalar,
    IntArray,
    FloatArray,
    BoolArray,
    TensorList,
    Executor,
    Stream,
};

const char *handleKindName(HandleKind kind);  // the C type, e.g. "aclTensor"

// A new serial on every call (thread-safe, never repeated); 0 once the 53 bits a handle holds are used up.
uint64_t nextHandleSerial();

// Handle layout: 0xA in bits 60-63 makes the value a non-canonical address on x86-64 and AArch64, so code
// that forgets to resolve a handle and dereferences it faults at once instead of reading someone's memory;
// the kind is in bits 56-59, the serial in bits 3-55, and bits 0-2 are zero (aligned like any pointer).
uintptr_t encodeHandle(HandleKind kind, uint64_t serial);
// The serial a handle of `kind` carries, or 0 when the value is not a handle of that kind.
uint64_t handleSerial(const void *handle, HandleKind kind);
// Why `handle` names no live object of `kind`, for a message that follows the argument's name:
// "is not an aclTensor handle: ...", "was destroyed (...)".
std::string explainDeadHandle(const void *handle, HandleKind kind);

// The live objects of one kind. Handle is the public type callers hold (aclTensor, or void for aclrtStream).
// Lookups take a shared lock on one of 16 shards, so concurrent operator calls hardly contend; a lookup
// returns a shared_ptr, which keeps the object alive while the caller uses it even if another thread
// destroys the handle meanwhile. Registries are created on first use and never destroyed, so that a client's
// static object may still destroy its handles while the process exits.
template <typename Object, typename Handle = Object>
class HandleRegistry {
public:
    explicit HandleRegistry(HandleKind kind) : kind_(kind) {}
    HandleRegistry(const HandleRegistry &) = delete;
    HandleRegistry &operator=(const HandleRegistry &) = delete;

    // Registers object and returns its new handle; nullptr when memory or serials ran out.
    Handle *add(std::shared_ptr<Object> object) {
        const uint64_t serial = nextHandleSerial();
        if (serial == 0 || object == nullptr) return nullptr;
        Shard &shard = shardOf(serial);
        try {
            std::unique_lock lock(shard.mutex);
            shard.objects.emplace(serial, std::move(object));
        } catch (const std::bad_alloc &) {
            return nullptr;
        }
        return reinterpret_cast<Handle *>(encodeHandle(kind_, serial));
    }

    // The object a handle names; null when it names no live object of this kind.
    std::shared_ptr<Object> find(const Handle *handle) const {
        const uint64_t serial = handleSerial(handle, kind_);
        if (serial == 0) return nullptr;
        const Shard &shard = shardOf(serial);
        std::shared_lock lock(shard.mutex);
        const auto found = shard.objects.find(serial);
        return found == shard.objects.end() ? nullptr : found->second;
    }

    // Unregisters a handle and returns its object (freed when the last user lets go of it); null when the
    // handle names no live object. Of two threads removing the same handle, exactly one gets the object.
    std::shared_ptr<Object> remove(const Handle *handle) {
        return findAndRelease(handle, [](const Object &) { return true; });
    }

    // The object a handle names, unregistered when `release(object)` says so, under one lock: of two
    // threads taking a single-use object, exactly one gets it. Null when the handle names no live object.
    template <typename Release>
    std::shared_ptr<Object> findAndRelease(const Handle *handle, Release &&release) {
        const uint64_t serial = handleSerial(handle, kind_);
        if (serial == 0) return nullptr;
        Shard &shard = shardOf(serial);
        std::unique_lock lock(shard.mutex);
        const auto found = shard.objects.find(serial);
        if (found == shard.objects.end()) return nullptr;
        std::shared_ptr<Object> object = found->second;
        if (release(*object)) shard.objects.erase(found);
        return object;
    }

    // Puts `object` behind a live handle in place of its object (which stays valid for whoever holds it: an
    // object never changes, it is replaced); false when the handle names no live object.
    bool replace(const Handle *handle, std::shared_ptr<Object> object) {
        const uint64_t serial = handleSerial(handle, kind_);
        if (serial == 0 || object == nullptr) return false;
        Shard &shard = shardOf(serial);
        std::unique_lock lock(shard.mutex);
        const auto found = shard.objects.find(serial);
        if (found == shard.objects.end()) return false;
        found->second = std::move(object);
        return true;
    }

    HandleKind kind() const { return kind_; }

private:
    static constexpr size_t shardCount = 16;
    struct alignas(64) Shard {
        mutable std::shared_mutex mutex;
        std::unordered_map<uint64_t, std::shared_ptr<Object>> objects;
    };

    Shard &shardOf(uint64_t serial) { return shards_[serial % shardCount]; }
    const Shard &shardOf(uint64_t serial) const { return shards_[serial % shardCount]; }

    HandleKind kind_;
    std::array<Shard, shardCount> shards_;
};

}  // namespace poolgrad
