// The validation-case harness shared by every phase-1 (aclnnXxxGetWorkspaceSize) validation test: tensor
// specs a case is written in, PhaseOneCall (garbage values for the out-parameters, so that a library that
// forgets to clear them is caught; nullptr out-parameters on request; phase 2 with a workspace), a raw
// aclTensor owner for tensors TestTensor cannot express (null data, a storage smaller than the view), and
// assertions on the outcome of a call (status, cleared out-parameters, a message naming the argument).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "support/address_reservation.h"
#include "support/test_tensor.h"

namespace test_support {

// What phase 1 must overwrite: *workspaceSize with 0 and *executor with nullptr on failure.
constexpr uint64_t garbageWorkspaceSize = 0xFEEDFACECAFEBEEFull;
inline aclOpExecutor *garbageExecutor() { return reinterpret_cast<aclOpExecutor *>(uintptr_t{0xDEADBEF0}); }

// The outcome of one phase-1 call.
struct PhaseOneOutcome {
    aclnnStatus status = -1;
    uint64_t workspaceSize = garbageWorkspaceSize;
    aclOpExecutor *executor = nullptr;
    std::string message;  // aclGetRecentErrMsg() right after the call
};

// Phase 1 failed with `code`, cleared both out-parameters and left a message naming every word of `mentions`.
// `workspaceCleared`/`executorCleared` are false when the corresponding out-pointer itself was null.
inline ::testing::AssertionResult IsRejected(const PhaseOneOutcome &outcome, aclnnStatus code,
                                             const std::vector<std::string> &mentions, bool checkWorkspace = true,
                                             bool checkExecutor = true) {
    ::testing::AssertionResult failure = ::testing::AssertionFailure();
    bool ok = true;
    if (outcome.status != code) {
        ok = false;
        failure << "status " << outcome.status << ", expected " << code << "; ";
    }
    if (checkWorkspace && outcome.workspaceSize != 0) {
        ok = false;
        failure << "*workspaceSize not cleared (" << outcome.workspaceSize << "); ";
    }
    if (checkExecutor && outcome.executor != nullptr) {
        ok = false;
        failure << "*executor not cleared (" << static_cast<const void *>(outcome.executor) << "); ";
    }
    if (outcome.message.empty()) {
        ok = false;
        failure << "aclGetRecentErrMsg() is empty; ";
    }
    for (const std::string &word : mentions) {
        if (outcome.message.find(word) == std::string::npos) {
            ok = false;
            failure << "message does not mention \"" << word << "\"; ";
        }
    }
    if (ok) return ::testing::AssertionSuccess() << "rejected with " << code << ": " << outcome.message;
    return failure << "message: \"" << outcome.message << "\"";
}

// The message does not mention `word` (used to show which of two broken rules was reported).
inline ::testing::AssertionResult DoesNotMention(const PhaseOneOutcome &outcome, const std::string &word) {
    if (outcome.message.find(word) == std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message mentions \"" << word << "\": \"" << outcome.message << "\"";
}

// Phase 1 succeeded and produced a usable executor and a workspace size.
inline ::testing::AssertionResult IsAccepted(const PhaseOneOutcome &outcome) {
    if (outcome.status != ACLNN_SUCCESS)
        return ::testing::AssertionFailure() << "status " << outcome.status << ": \"" << outcome.message << "\"";
    if (outcome.executor == nullptr || outcome.executor == garbageExecutor())
        return ::testing::AssertionFailure() << "status 0 but *executor was not set";
    if (outcome.workspaceSize == garbageWorkspaceSize)
        return ::testing::AssertionFailure() << "status 0 but *workspaceSize was not set";
    return ::testing::AssertionSuccess();
}

// Owns an aclTensor created directly with aclCreateTensor (any data pointer and storage dims).
class RawTensor {
public:
    RawTensor(const std::vector<int64_t> &shape, aclDataType type, void *data, const std::vector<int64_t> &storageDims,
              const std::vector<int64_t> *strides = nullptr, int64_t offset = 0, aclFormat format = ACL_FORMAT_ND)
        : tensor_(aclCreateTensor(shape.data(), shape.size(), type, strides ? strides->data() : nullptr, offset, format,
                                  storageDims.data(), storageDims.size(), data)) {}
    ~RawTensor() { aclDestroyTensor(tensor_); }
    RawTensor(const RawTensor &) = delete;
    RawTensor &operator=(const RawTensor &) = delete;
    aclTensor *get() const { return tensor_; }

private:
    aclTensor *tensor_;
};

// Device memory from aclrtMalloc, freed on scope exit.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes) {
        if (aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) data_ = nullptr;
    }
    ~DeviceBuffer() {
        if (data_) aclrtFree(data_);
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    void *get() const { return data_; }

private:
    void *data_ = nullptr;
};

// A tensor of a validation case before it exists.
struct TensorSpec {
    std::vector<int64_t> shape;
    aclDataType type = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> strides = {};  // empty: contiguous
};

inline TestTensor makeTensor(const TensorSpec &spec) {
    if (spec.strides.empty()) return TestTensor(spec.shape, spec.type, spec.format);
    return TestTensor(spec.shape, spec.strides, 0, spec.type, spec.format);
}

// What every validation call does around its operator: phase 1 with garbage in the out-parameters (or
// nullptr for them where a test asks), the outcome and message kept, phase 2 with a workspace and a stream
// sync, and the executor destroyed when the test did not run it.
class PhaseOneCall {
public:
    PhaseOneCall() = default;
    PhaseOneCall(const PhaseOneCall &) = delete;
    PhaseOneCall &operator=(const PhaseOneCall &) = delete;
    ~PhaseOneCall() {
        if (outcome.status == ACLNN_SUCCESS && outcome.executor != nullptr && !ran_)
            aclDestroyAclOpExecutor(outcome.executor);
    }

    bool workspaceSizeArg = true;  // false: pass nullptr for workspaceSize
    bool executorArg = true;       // false: pass nullptr for executor
    PhaseOneOutcome outcome;

    // A tensor TestTensor cannot express (null data, storage smaller than the view), alive as long as the
    // call, for a validation row to pass in place of one of the call's operands.
    aclTensor *keepRawTensor(const std::vector<int64_t> &shape, aclDataType type, void *data,
                             const std::vector<int64_t> &storageDims, const std::vector<int64_t> *strides = nullptr,
                             int64_t offset = 0) {
        kept_.push_back(std::make_unique<RawTensor>(shape, type, data, storageDims, strides, offset));
        return kept_.back()->get();
    }
    void *keepDeviceBuffer(size_t bytes) {
        buffers_.push_back(std::make_unique<DeviceBuffer>(bytes));
        return buffers_.back()->get();
    }
    // Address space without memory, for a huge view phase 1 must accept without touching it.
    void *keepReservedAddresses(size_t bytes) {
        reservations_.push_back(std::make_unique<AddressReservation>(bytes));
        return reservations_.back()->get();
    }

protected:
    // `phaseOne(uint64_t *workspaceSize, aclOpExecutor **executor)` calls the operator's phase 1.
    template <typename PhaseOne>
    PhaseOneOutcome callPhaseOne(PhaseOne phaseOne) {
        outcome = PhaseOneOutcome{};
        outcome.executor = garbageExecutor();
        outcome.status =
            phaseOne(workspaceSizeArg ? &outcome.workspaceSize : nullptr, executorArg ? &outcome.executor : nullptr);
        outcome.message = aclGetRecentErrMsg();
        return outcome;
    }

    // Phase 2 with the executor of a successful phase 1.
    aclnnStatus callPhaseTwo(aclnnStatus (*phaseTwo)(void *, uint64_t, aclOpExecutor *, aclrtStream)) {
        ran_ = true;
        DeviceBuffer workspace(outcome.workspaceSize > 0 ? outcome.workspaceSize : 1);
        const aclnnStatus status = phaseTwo(outcome.workspaceSize > 0 ? workspace.get() : nullptr,
                                            outcome.workspaceSize, outcome.executor, nullptr);
        aclrtSynchronizeStream(nullptr);
        return status;
    }

private:
    bool ran_ = false;
    // Declared before the tensors: they outlive the tensors over them.
    std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
    std::vector<std::unique_ptr<AddressReservation>> reservations_;
    std::vector<std::unique_ptr<RawTensor>> kept_;
};

}  // namespace test_support
