// The acl* runtime functions: initialisation, devices, streams, memory and options.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "acl/acl.h"
#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/handle_registry.h"
#include "runtime/device.h"
#include "runtime/streams.h"

namespace poolgrad {
namespace {

struct Stream {
    int32_t device;
};

HandleRegistry<Stream, void> &streams() {
    static auto *registry = new HandleRegistry<Stream, void>(HandleKind::Stream);  // see handle_registry.h
    return *registry;
}

struct RuntimeState {
    std::mutex mutex;
    bool initialized = false;
    std::unordered_map<void *, int32_t> deviceAllocations;  // pointer -> device
    std::unordered_set<void *> hostAllocations;
    std::array<int64_t, 4> contextOptions{};
    std::array<int64_t, 4> processOptions{};
};

RuntimeState &state() {
    static RuntimeState runtime;
    return runtime;
}

aclError invalid(const char *function, const std::string &why) {
    setRecentError(joinText(function, ": ", why));
    return ACL_ERROR_INVALID_PARAM;
}

aclError checkDeviceId(const char *function, int32_t deviceId) {
    if (deviceId < 0) return invalid(function, joinText("deviceId must be >= 0, got ", deviceId));
    if (deviceId >= deviceCount()) {
        setRecentError(
            joinText(function, ": deviceId ", deviceId, " does not exist (device count is ", deviceCount(), ")"));
        return ACL_ERROR_INVALID_DEVICE;
    }
    return ACL_SUCCESS;
}

// CANN rounds every allocation up to a multiple of 32 bytes and adds 32 more, and CANN programs (ops-nn's
// own examples among them) read a few bytes past their buffers relying on it; poolgrad pads the same way.
// Empty when the padded size does not fit in a size_t, or exceeds the largest object (PTRDIFF_MAX).
std::optional<size_t> paddedAllocationSize(size_t requested) {
    constexpr size_t granule = 32;
    const auto granules = checkedAdd(requested, granule - 1);
    if (!granules) return std::nullopt;
    const auto padded = checkedAdd(*granules / granule * granule, granule);
    if (!padded || *padded > static_cast<size_t>(PTRDIFF_MAX)) return std::nullopt;
    return padded;
}

// Host memory, 64-byte aligned, at least paddedAllocationSize(size) bytes; nullptr with a message (the caller
// returns ACL_ERROR_RT_MEMORY_ALLOCATION) when the size is impossible or memory ran out.
void *allocatePadded(const char *function, size_t size, void *(*allocate)(size_t bytes)) {
    const std::optional<size_t> padded = paddedAllocationSize(size);
    if (!padded) {
        setRecentError(joinText(function, ": cannot allocate ", size,
                                " bytes: rounded up to a multiple of 32 bytes plus 32 bytes of padding, the size "
                                "exceeds the largest possible object (",
                                PTRDIFF_MAX, " bytes)"));
        return nullptr;
    }
    void *memory = allocate(*padded);
    if (memory == nullptr)
        setRecentError(
            joinText(function, ": out of memory allocating ", size, " bytes (", *padded, " with CANN's padding)"));
    return memory;
}

void *allocateHost(size_t bytes) {
    void *memory = nullptr;
    return posix_memalign(&memory, 64, bytes) == 0 ? memory : nullptr;
}

void *allocateOnCurrentDevice(size_t bytes) { return deviceById(currentDeviceId()).allocate(bytes); }

bool knownOption(aclSysParamOpt opt) { return opt >= ACL_OPT_DETERMINISTIC && opt <= ACL_OPT_EARLY_START; }

aclError setOption(const char *function, std::array<int64_t, 4> &store, aclSysParamOpt opt, int64_t value) {
    if (!knownOption(opt)) return invalid(function, joinText("unknown option ", static_cast<int>(opt)));
    if (opt == ACL_OPT_DETERMINISTIC && value != 0 && value != 1)
        return invalid(function, joinText("ACL_OPT_DETERMINISTIC takes 0 or 1, got ", value));
    std::lock_guard lock(state().mutex);
    store[static_cast<size_t>(opt)] = value;
    return ACL_SUCCESS;
}

aclError getOption(const char *function, const std::array<int64_t, 4> &store, aclSysParamOpt opt, int64_t *value) {
    if (value == nullptr) return invalid(function, "value is null");
    if (!knownOption(opt)) return invalid(function, joinText("unknown option ", static_cast<int>(opt)));
    std::lock_guard lock(state().mutex);
    *value = store[static_cast<size_t>(opt)];
    return ACL_SUCCESS;
}

}  // namespace

bool isLiveStream(aclrtStream stream) { return stream != nullptr && streams().find(stream) != nullptr; }

}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

const char *aclGetRecentErrMsg(void) { return recentError(); }

aclError aclInit(const char * /*configPath: no configuration is read*/) {
    std::lock_guard lock(state().mutex);
    if (state().initialized) {
        setRecentError("aclInit: already initialised (call aclFinalize first)");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    state().initialized = true;
    return ACL_SUCCESS;
}

aclError aclFinalize(void) {
    std::lock_guard lock(state().mutex);
    if (!state().initialized) {
        setRecentError("aclFinalize: the runtime is not initialised");
        return ACL_ERROR_REPEAT_FINALIZE;
    }
    state().initialized = false;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
    if (aclError error = checkDeviceId("aclrtSetDevice", deviceId)) return error;
    setCurrentDeviceId(deviceId);
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
    if (aclError error = checkDeviceId("aclrtResetDevice", deviceId)) return error;
    deviceById(deviceId).synchronize();
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
    if (deviceId == nullptr) return invalid("aclrtGetDevice", "deviceId is null");
    *deviceId = currentDeviceId();
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == nullptr) return invalid("aclrtGetDeviceCount", "count is null");
    *count = static_cast<uint32_t>(deviceCount());
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
    deviceById(currentDeviceId()).synchronize();
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
    if (stream == nullptr) return invalid("aclrtCreateStream", "stream is null");
    void *handle = nullptr;
    try {
        handle = streams().add(std::make_shared<Stream>(Stream{currentDeviceId()}));
    } catch (const std::bad_alloc &) {
    }
    if (handle == nullptr) {
        setRecentError("aclrtCreateStream: out of memory");
        return ACL_ERROR_BAD_ALLOC;
    }
    *stream = handle;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
    if (stream == nullptr) return invalid("aclrtDestroyStream", "stream is null");
    if (streams().remove(stream) == nullptr)
        return invalid("aclrtDestroyStream", joinText("stream ", explainDeadHandle(stream, HandleKind::Stream)));
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    int32_t device = currentDeviceId();
    if (stream != nullptr) {
        const std::shared_ptr<Stream> live = streams().find(stream);
        if (live == nullptr)
            return invalid("aclrtSynchronizeStream",
                           joinText("stream ", explainDeadHandle(stream, HandleKind::Stream)));
        device = live->device;
    }
    deviceById(device).synchronize();
    return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy /*policy: no huge pages on the host*/) {
    if (devPtr == nullptr) return invalid("aclrtMalloc", "devPtr is null");
    if (size == 0) return invalid("aclrtMalloc", "size must be > 0");
    const int32_t device = currentDeviceId();
    void *memory = allocatePadded("aclrtMalloc", size, allocateOnCurrentDevice);
    if (memory == nullptr) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    std::lock_guard lock(state().mutex);
    state().deviceAllocations.emplace(memory, device);
    *devPtr = memory;
    return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr) {
    if (devPtr == nullptr) return invalid("aclrtFree", "devPtr is null");
    int32_t device = 0;
    {
        std::lock_guard lock(state().mutex);
        auto found = state().deviceAllocations.find(devPtr);
        if (found == state().deviceAllocations.end())
            return invalid("aclrtFree", "pointer was not returned by aclrtMalloc, or was already freed");
        device = found->second;
        state().deviceAllocations.erase(found);
    }
    deviceById(device).release(devPtr);
    return ACL_SUCCESS;
}

aclError aclrtMallocHost(void **hostPtr, size_t size) {
    if (hostPtr == nullptr) return invalid("aclrtMallocHost", "hostPtr is null");
    if (size == 0) return invalid("aclrtMallocHost", "size must be > 0");
    void *memory = allocatePadded("aclrtMallocHost", size, allocateHost);
    if (memory == nullptr) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    std::lock_guard lock(state().mutex);
    state().hostAllocations.insert(memory);
    *hostPtr = memory;
    return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr) {
    {
        std::lock_guard lock(state().mutex);
        if (hostPtr == nullptr || state().hostAllocations.erase(hostPtr) == 0)
            return invalid("aclrtFreeHost", "pointer was not returned by aclrtMallocHost, or was already freed");
    }
    std::free(hostPtr);
    return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    if (dst == nullptr || src == nullptr) return invalid("aclrtMemcpy", dst == nullptr ? "dst is null" : "src is null");
    if (count > destMax) return invalid("aclrtMemcpy", joinText("count ", count, " exceeds destMax ", destMax));
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return invalid("aclrtMemcpy", joinText("unknown kind ", static_cast<int>(kind)));
    deviceById(currentDeviceId()).copy(dst, src, count, kind);
    return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    if (devPtr == nullptr) return invalid("aclrtMemset", "devPtr is null");
    if (count > maxCount) return invalid("aclrtMemset", joinText("count ", count, " exceeds maxCount ", maxCount));
    deviceById(currentDeviceId()).fill(devPtr, value & 0xff, count);
    return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    return setOption("aclrtCtxSetSysParamOpt", state().contextOptions, opt, value);
}
aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    return getOption("aclrtCtxGetSysParamOpt", state().contextOptions, opt, value);
}
aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    return setOption("aclrtSetSysParamOpt", state().processOptions, opt, value);
}
aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    return getOption("aclrtGetSysParamOpt", state().processOptions, opt, value);
}

}  // extern "C"
