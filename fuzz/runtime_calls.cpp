// Fuzzed calls of the descriptor and runtime API: aclCreateTensor with any dims, strides, offset, dtype,
// format and storage dims (absurd ones included) and every query; the array, scalar and tensor-list
// descriptors; misuse (double destroys, stale and foreign executors, handles reused after a destroy); and
// aclrtMalloc/aclrtMallocHost with any size.
#include "runtime_calls.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "fuzz_operand.h"
#include "fuzz_report.h"
#include "known_defects.h"

namespace poolgrad_fuzz {
namespace {

constexpr aclnnStatus kNullArgument = 161001;

bool hasMessage() { return std::strlen(aclGetRecentErrMsg()) > 0; }

// A refused call names why.
void requireRefusalMessage(aclnnStatus status, const char *what) {
    FUZZ_REQUIRE(status == 0 || hasMessage(), what, " failed with ", status, " and no message");
}

std::vector<int64_t> queryArray(aclnnStatus (*query)(const aclTensor *, int64_t **, uint64_t *),
                                const aclTensor *tensor, const char *what) {
    int64_t *values = nullptr;
    uint64_t count = 0;
    FUZZ_REQUIRE(query(tensor, &values, &count) == 0, what, " failed on a live tensor");
    std::vector<int64_t> copy(values, values + count);
    delete[] values;
    int64_t *unused = nullptr;
    FUZZ_REQUIRE(query(tensor, nullptr, &count) == kNullArgument && query(tensor, &unused, nullptr) == kNullArgument &&
                     query(nullptr, &unused, &count) == kNullArgument,
                 what, " with a null argument did not return 161001");
    return copy;
}

void fuzzTensorDescriptor(FuzzInput &in) {
    const uint8_t flags = in.byte();
    const int64_t rankCode = in.fuzzy(0, 9);
    const uint64_t rank = static_cast<uint64_t>(rankCode);
    std::vector<int64_t> dims(std::min<uint64_t>(rank, 9)), strides(dims.size());
    for (auto &dim : dims) dim = in.fuzzy(0, 8);
    const bool stridesGiven = flags & 1;
    for (auto &stride : strides) stride = in.fuzzy(0, 8);
    const int64_t offset = in.fuzzy(0, 8);
    const auto type = static_cast<aclDataType>(enumValue(static_cast<int8_t>(in.byte())));
    const auto format = static_cast<aclFormat>(enumValue(static_cast<int8_t>(in.byte())));
    const uint64_t storageRank = static_cast<uint64_t>(in.fuzzy(0, 4));
    std::vector<int64_t> storage(std::min<uint64_t>(storageRank, 9));
    for (auto &dim : storage) dim = in.fuzzy(0, 8);
    const bool storageGiven = flags & 2, nullDims = flags & 4;
    static unsigned char data[64];
    if (knownDefectsAvoided() && rank <= 8 && !nullDims && rowMajorOverflows(dims)) return;

    // Arrays shorter than the count passed only when the count exceeds 8, which must be refused before
    // any element is read.
    const aclTensor *tensor =
        aclCreateTensor(nullDims ? nullptr : dims.data(), rank, type, stridesGiven ? strides.data() : nullptr, offset,
                        format, storageGiven ? storage.data() : nullptr, storageGiven ? storageRank : 0, data);
    bool mustRefuse = rank > 8 || (storageGiven && storageRank > 8) || offset < 0 || (nullDims && rank > 0);
    for (size_t i = 0; i < dims.size() && rank <= 8; ++i) mustRefuse |= dims[i] < 0 || (stridesGiven && strides[i] < 0);
    for (size_t i = 0; i < storage.size() && storageGiven && storageRank <= 8; ++i) mustRefuse |= storage[i] < 0;
    if (tensor == nullptr) {
        FUZZ_REQUIRE(hasMessage(), "aclCreateTensor returned nullptr without a message");
        return;
    }
    FUZZ_REQUIRE(!mustRefuse, "aclCreateTensor accepted rank ", rank, ", storage rank ", storageRank, ", offset ",
                 offset, " or a negative dim/stride");
    FUZZ_REQUIRE(queryArray(aclGetViewShape, tensor, "aclGetViewShape") == dims,
                 "aclGetViewShape differs from viewDims");
    const std::vector<int64_t> gotStrides = queryArray(aclGetViewStrides, tensor, "aclGetViewStrides");
    if (stridesGiven) {
        FUZZ_REQUIRE(gotStrides == strides, "aclGetViewStrides differs from the strides given");
    } else {
        std::vector<int64_t> rowMajor(dims.size());
        int64_t running = 1;
        bool overflow = false;
        for (size_t i = dims.size(); i-- > 0;) {
            rowMajor[i] = running;
            overflow |= __builtin_mul_overflow(running, std::max<int64_t>(dims[i], 1), &running);
        }
        FUZZ_REQUIRE(overflow || gotStrides == rowMajor, "aclGetViewStrides of a contiguous tensor is not row-major");
    }
    const std::vector<int64_t> gotStorage = queryArray(aclGetStorageShape, tensor, "aclGetStorageShape");
    FUZZ_REQUIRE(!storageGiven || gotStorage == storage, "aclGetStorageShape differs from storageDims");
    int64_t gotOffset = -1;
    aclFormat gotFormat{};
    aclDataType gotType{};
    FUZZ_REQUIRE(aclGetViewOffset(tensor, &gotOffset) == 0 && gotOffset == offset, "aclGetViewOffset differs");
    FUZZ_REQUIRE(aclGetFormat(tensor, &gotFormat) == 0 && gotFormat == format, "aclGetFormat differs");
    FUZZ_REQUIRE(aclGetDataType(tensor, &gotType) == 0 && gotType == type, "aclGetDataType differs");
    FUZZ_REQUIRE(aclGetViewOffset(tensor, nullptr) == kNullArgument &&
                     aclGetFormat(nullptr, &gotFormat) == kNullArgument &&
                     aclGetDataType(tensor, nullptr) == kNullArgument,
                 "a query with a null argument did not return 161001");
    FUZZ_REQUIRE(aclDestroyTensor(tensor) == 0, "aclDestroyTensor of a live tensor failed");
}

void fuzzArrays(FuzzInput &in) {
    const uint8_t flags = in.byte();
    const uint64_t size = static_cast<uint64_t>(in.fuzzy(0, 8));
    const bool nullValues = flags & 1;
    const size_t length = nullValues ? 0 : std::min<uint64_t>(size, 8);
    std::vector<int64_t> ints(length);
    for (auto &value : ints) value = in.i64();
    std::vector<float> floats(length);
    for (auto &value : floats) value = static_cast<float>(in.fuzzy(-4, 4));
    bool bools[8] = {};
    // Sizes above 8 come only with null values (a longer count than the array would be the caller's bug).
    const uint64_t count = nullValues ? size : length;
    const bool mustRefuse = nullValues && count > 0;
    uint64_t got = 0;

    const aclIntArray *intArray = aclCreateIntArray(nullValues ? nullptr : ints.data(), count);
    FUZZ_REQUIRE((intArray == nullptr) == mustRefuse, "aclCreateIntArray of ", count, " values (null: ", nullValues,
                 ") returned ", intArray);
    if (intArray) {
        FUZZ_REQUIRE(aclGetIntArraySize(intArray, &got) == 0 && got == count, "aclGetIntArraySize differs");
        FUZZ_REQUIRE(aclDestroyIntArray(intArray) == 0, "aclDestroyIntArray failed");
    } else {
        FUZZ_REQUIRE(hasMessage(), "aclCreateIntArray refused without a message");
    }
    const aclFloatArray *floatArray = aclCreateFloatArray(nullValues ? nullptr : floats.data(), count);
    FUZZ_REQUIRE((floatArray == nullptr) == mustRefuse, "aclCreateFloatArray of ", count, " values");
    if (floatArray) {
        FUZZ_REQUIRE(aclGetFloatArraySize(floatArray, &got) == 0 && got == count, "aclGetFloatArraySize differs");
        FUZZ_REQUIRE(aclDestroyFloatArray(floatArray) == 0, "aclDestroyFloatArray failed");
    }
    const aclBoolArray *boolArray = aclCreateBoolArray(nullValues ? nullptr : bools, count);
    FUZZ_REQUIRE((boolArray == nullptr) == mustRefuse, "aclCreateBoolArray of ", count, " values");
    if (boolArray) {
        FUZZ_REQUIRE(aclGetBoolArraySize(boolArray, &got) == 0 && got == count, "aclGetBoolArraySize differs");
        FUZZ_REQUIRE(aclDestroyBoolArray(boolArray) == 0, "aclDestroyBoolArray failed");
    }
    FUZZ_REQUIRE(
        aclGetIntArraySize(nullptr, &got) == kNullArgument && aclGetFloatArraySize(nullptr, &got) == kNullArgument &&
            aclGetBoolArraySize(nullptr, &got) == kNullArgument && aclGetTensorListSize(nullptr, &got) == kNullArgument,
        "an array query with a null array did not return 161001");

    alignas(16) unsigned char scalarValue[16];
    for (auto &byte : scalarValue) byte = in.byte();
    const auto scalarType = static_cast<aclDataType>(enumValue(static_cast<int8_t>(in.byte())));
    const aclScalar *scalar = aclCreateScalar(flags & 2 ? nullptr : scalarValue, scalarType);
    if (scalar)
        FUZZ_REQUIRE(aclDestroyScalar(scalar) == 0, "aclDestroyScalar failed");
    else
        FUZZ_REQUIRE(hasMessage(), "aclCreateScalar refused without a message");

    const int64_t dim = 2;
    std::vector<const aclTensor *> tensors;
    for (uint64_t i = 0; i < std::min<uint64_t>(length, 3); ++i)
        tensors.push_back(aclCreateTensor(&dim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr));
    const aclTensorList *list =
        aclCreateTensorList(nullValues ? nullptr : tensors.data(), nullValues ? count : tensors.size());
    FUZZ_REQUIRE((list == nullptr) == mustRefuse, "aclCreateTensorList");
    if (list) {
        FUZZ_REQUIRE(aclGetTensorListSize(list, &got) == 0 && got == tensors.size(), "aclGetTensorListSize differs");
        FUZZ_REQUIRE(aclDestroyTensorList(list) == 0, "aclDestroyTensorList failed");
    }
    for (const aclTensor *tensor : tensors) aclDestroyTensor(tensor);
}

// A tiny valid aclnnMaxPool3dWithArgmax call (a 1x1x1x2x2 input, kernel 1x2x2) for the executor misuse cases.
struct TinyCall {
    float input[4] = {1, 4, 2, 3}, output[1] = {0};
    int64_t indices[1] = {0};
    const int64_t selfDims[5] = {1, 1, 1, 2, 2}, outDims[5] = {1, 1, 1, 1, 1};
    aclTensor *self = aclCreateTensor(selfDims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, input);
    aclTensor *out = aclCreateTensor(outDims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, output);
    aclTensor *index = aclCreateTensor(outDims, 5, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, indices);
    const int64_t kernelValues[3] = {1, 2, 2}, zero = 0, one = 1;
    aclIntArray *kernel = aclCreateIntArray(kernelValues, 3), *stride = aclCreateIntArray(nullptr, 0),
                *padding = aclCreateIntArray(&zero, 1), *dilation = aclCreateIntArray(&one, 1);
    ~TinyCall() {
        for (aclTensor *tensor : {self, out, index}) aclDestroyTensor(tensor);
        for (aclIntArray *array : {kernel, stride, padding, dilation}) aclDestroyIntArray(array);
    }
    aclOpExecutor *plan() {
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        FUZZ_REQUIRE(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernel, stride, padding, dilation, false, out,
                                                              index, &workspaceSize, &executor) == 0 &&
                         executor != nullptr,
                     "the tiny aclnnMaxPool3dWithArgmax call was refused: ", aclGetRecentErrMsg());
        return executor;
    }
    aclnnStatus run(aclOpExecutor *executor) { return aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr); }
    void requireResult() {
        FUZZ_REQUIRE(output[0] == 4 && indices[0] == 1, "the tiny aclnnMaxPool3dWithArgmax call computed ", output[0],
                     " at ", indices[0]);
        output[0] = 0;
        indices[0] = 0;
    }
};

void fuzzMisuse(FuzzInput &in) {
    const uint8_t kind = in.byte() % 8;
    const int64_t dim = 1 + in.byte() % 4;
    if (knownDefectsAvoided() && (kind == 0 || kind == 1 || kind == 3)) return;
    switch (kind) {
        case 0: {  // a tensor destroyed twice
            const aclTensor *tensor =
                aclCreateTensor(&dim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
            FUZZ_REQUIRE(aclDestroyTensor(tensor) == 0, "aclDestroyTensor failed");
            requireRefusalMessage(aclDestroyTensor(tensor), "a second aclDestroyTensor");
            break;
        }
        case 1: {  // an int array destroyed twice
            const aclIntArray *array = aclCreateIntArray(&dim, 1);
            FUZZ_REQUIRE(aclDestroyIntArray(array) == 0, "aclDestroyIntArray failed");
            requireRefusalMessage(aclDestroyIntArray(array), "a second aclDestroyIntArray");
            break;
        }
        case 2: {  // a released executor's handle must not come back for a new executor, nor run
            TinyCall call;
            aclOpExecutor *first = call.plan();
            FUZZ_REQUIRE(call.run(first) == 0, "the tiny call failed: ", aclGetRecentErrMsg());
            call.requireResult();
            aclOpExecutor *second = call.plan();
            FUZZ_REQUIRE(second != first, "a new executor has the handle of a released one (", first,
                         "): the stale handle would run the new executor's problem");
            const aclnnStatus stale = call.run(first);
            FUZZ_REQUIRE(stale != 0 && hasMessage(), "phase 2 ran a released executor (status ", stale, ")");
            FUZZ_REQUIRE(call.run(second) == 0, "the second tiny call failed");
            call.requireResult();
            break;
        }
        case 3: {  // a destroyed tensor's handle must not come back for a new tensor
            const aclTensor *first =
                aclCreateTensor(&dim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
            FUZZ_REQUIRE(aclDestroyTensor(first) == 0, "aclDestroyTensor failed");
            const aclTensor *second =
                aclCreateTensor(&dim, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
            FUZZ_REQUIRE(second != first, "a new tensor has the handle of a destroyed one (", first,
                         "): destroying the stale handle would destroy the new tensor");
            requireRefusalMessage(aclDestroyTensor(first), "aclDestroyTensor of a destroyed tensor");
            FUZZ_REQUIRE(aclDestroyTensor(second) == 0, "aclDestroyTensor of a live tensor failed");
            break;
        }
        case 4: {  // run twice, destroy after the run
            TinyCall call;
            aclOpExecutor *executor = call.plan();
            FUZZ_REQUIRE(call.run(executor) == 0, "the tiny call failed");
            call.requireResult();
            const aclnnStatus again = call.run(executor);
            FUZZ_REQUIRE(again != 0 && hasMessage(), "phase 2 ran a released executor twice (status ", again, ")");
            requireRefusalMessage(aclDestroyAclOpExecutor(executor), "aclDestroyAclOpExecutor of a released executor");
            break;
        }
        case 5: {  // a repeatable executor runs as often as asked, then is destroyed once
            TinyCall call;
            aclOpExecutor *executor = call.plan();
            FUZZ_REQUIRE(aclSetAclOpExecutorRepeatable(executor) == 0, "aclSetAclOpExecutorRepeatable failed");
            for (int64_t i = 0; i < dim; ++i) {
                FUZZ_REQUIRE(call.run(executor) == 0, "run ", i, " of a repeatable executor failed");
                call.requireResult();
            }
            FUZZ_REQUIRE(aclDestroyAclOpExecutor(executor) == 0,
                         "aclDestroyAclOpExecutor of a repeatable executor failed");
            requireRefusalMessage(aclDestroyAclOpExecutor(executor), "a second aclDestroyAclOpExecutor");
            break;
        }
        case 6: {  // an executor handed to another operator's phase 2
            TinyCall call;
            aclOpExecutor *executor = call.plan();
            const aclnnStatus foreign = aclnnMaxPoolV3WithAttrs(nullptr, 0, executor, nullptr);
            FUZZ_REQUIRE(foreign != 0 && hasMessage(),
                         "aclnnMaxPoolV3WithAttrs ran an aclnnMaxPool3dWithArgmax executor");
            FUZZ_REQUIRE(call.output[0] == 0, "a refused foreign executor wrote its output");
            requireRefusalMessage(aclDestroyAclOpExecutor(executor), "aclDestroyAclOpExecutor after a foreign run");
            break;
        }
        default: {  // executors that were never made
            int notAnExecutor = 0;
            const aclnnStatus status =
                aclnnMaxPool3dWithArgmax(nullptr, 0, reinterpret_cast<aclOpExecutor *>(&notAnExecutor), nullptr);
            FUZZ_REQUIRE(status != 0 && hasMessage(), "phase 2 ran a pointer phase 1 never returned");
            FUZZ_REQUIRE(aclnnMaxPool3dWithArgmax(nullptr, 0, nullptr, nullptr) != 0, "phase 2 ran a null executor");
            FUZZ_REQUIRE(aclDestroyAclOpExecutor(nullptr) != 0, "aclDestroyAclOpExecutor(nullptr) succeeded");
            break;
        }
    }
}

void fuzzDeviceMemory(FuzzInput &in) {
    const uint8_t code = in.byte();
    uint64_t size = 0;
    switch (code % 4) {
        case 0:
            size = static_cast<uint64_t>(in.fuzzy(1, 4096));
            break;
        case 1:
            size = UINT64_MAX - static_cast<uint64_t>(in.fuzzy(0, 200));
            break;
        case 2:
            size = uint64_t(1) << std::clamp<int64_t>(in.fuzzy(41, 63), 41, 63);
            break;
        default:
            size = static_cast<uint64_t>(in.i64());
            break;
    }
    if (knownDefectsAvoided() && size > (uint64_t(1) << 62)) return;
    // Sizes between these bounds are real allocations too large for the fuzzer's memory limit.
    if (size > (uint64_t(1) << 16) && size < (uint64_t(1) << 41)) size = 1 + size % 4096;
    const bool host = code & 4;
    void *memory = nullptr;
    const aclError status =
        host ? aclrtMallocHost(&memory, size) : aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status != ACL_SUCCESS) {
        FUZZ_REQUIRE(hasMessage(), host ? "aclrtMallocHost" : "aclrtMalloc", " of ", size,
                     " bytes failed without a message");
        return;
    }
    FUZZ_REQUIRE(memory != nullptr, "aclrtMalloc succeeded with a null pointer");
    // The first and last bytes are usable (a size that wrapped around gives a tiny block: ASan reports it).
    const size_t touched = static_cast<size_t>(std::min<uint64_t>(size, 4096));
    std::memset(memory, 0x5A, touched);
    static_cast<volatile unsigned char *>(memory)[size - 1] = 1;
    if (host) {
        FUZZ_REQUIRE(aclrtFreeHost(memory) == ACL_SUCCESS, "aclrtFreeHost failed");
        requireRefusalMessage(aclrtFreeHost(memory), "a second aclrtFreeHost");
    } else {
        FUZZ_REQUIRE(aclrtMemset(memory, size, 0, touched) == ACL_SUCCESS, "aclrtMemset inside the block failed");
        requireRefusalMessage(aclrtMemset(memory, touched, 0, touched + 1), "aclrtMemset past maxCount");
        FUZZ_REQUIRE(aclrtMemset(memory, touched, 0, touched + 1) != ACL_SUCCESS,
                     "aclrtMemset past maxCount succeeded");
        FUZZ_REQUIRE(aclrtFree(memory) == ACL_SUCCESS, "aclrtFree failed");
        requireRefusalMessage(aclrtFree(memory), "a second aclrtFree");
    }
}

}  // namespace

void fuzzRuntimeCall(FuzzInput &in, int command) {
    switch (command % 4) {
        case 0:
            fuzzTensorDescriptor(in);
            break;
        case 1:
            fuzzArrays(in);
            break;
        case 2:
            fuzzMisuse(in);
            break;
        default:
            fuzzDeviceMemory(in);
            break;
    }
}

}  // namespace poolgrad_fuzz
