// The runtime on absurd sizes: aclrtMalloc/aclrtMallocHost pad like CANN and refuse impossible sizes with
// CANN's allocation error, and aclCreateTensor refuses every view whose sizes or addresses overflow,
// instead of computing them with undefined behaviour.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace {

std::string recentMessage() { return aclGetRecentErrMsg(); }

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

constexpr size_t sizeMax = std::numeric_limits<size_t>::max();
constexpr int64_t int64Max = std::numeric_limits<int64_t>::max();

size_t cannPaddedSize(size_t size) { return (size + 31) / 32 * 32 + 32; }

// Writes and reads back every byte CANN's padding promises. In the AddressSanitizer build, one byte too
// few in the block is a heap-buffer-overflow report.
void expectPaddingUsable(unsigned char *block, size_t size) {
    const size_t usable = cannPaddedSize(size);
    for (size_t i = 0; i < usable; ++i) block[i] = static_cast<unsigned char>(i * 7 + 1);
    for (size_t i = 0; i < usable; ++i) ASSERT_EQ(block[i], static_cast<unsigned char>(i * 7 + 1)) << i;
}

}  // namespace

TEST(RuntimeHardening, MallocPadsLikeCann) {
    for (size_t size : {size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{63}, size_t{64}, size_t{100},
                        size_t{4095}, size_t{4096}}) {
        void *device = nullptr;
        ASSERT_EQ(aclrtMalloc(&device, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << size;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(device) % 64, 0u) << size;
        expectPaddingUsable(static_cast<unsigned char *>(device), size);
        EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);

        void *host = nullptr;
        ASSERT_EQ(aclrtMallocHost(&host, size), ACL_SUCCESS) << size;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u) << size;
        expectPaddingUsable(static_cast<unsigned char *>(host), size);
        EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
    }
}

TEST(RuntimeHardening, ImpossibleMallocSizesAre207001) {
    // Sizes whose padding overflows size_t (the old rounding wrapped to a tiny block and returned 0), and
    // sizes beyond the largest object the address space can hold.
    const size_t impossible[] = {sizeMax,      sizeMax - 1,  sizeMax - 31,    sizeMax - 32,
                                 sizeMax - 63, sizeMax - 64, sizeMax / 2 + 1, static_cast<size_t>(PTRDIFF_MAX) - 31};
    for (size_t size : impossible) {
        void *sentinel = reinterpret_cast<void *>(uintptr_t{0x40});
        void *device = sentinel;
        EXPECT_EQ(aclrtMalloc(&device, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION) << size;
        EXPECT_EQ(device, sentinel) << size;
        EXPECT_TRUE(contains(recentMessage(), "aclrtMalloc: cannot allocate " + std::to_string(size) + " bytes"))
            << recentMessage();
        void *host = sentinel;
        EXPECT_EQ(aclrtMallocHost(&host, size), ACL_ERROR_RT_MEMORY_ALLOCATION) << size;
        EXPECT_EQ(host, sentinel) << size;
        EXPECT_TRUE(contains(recentMessage(), "aclrtMallocHost: cannot allocate " + std::to_string(size)))
            << recentMessage();
    }
    EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001);
}

// ---- aclCreateTensor on sizes that overflow ---------------------------------------------------------------

TEST(RuntimeHardening, ElementCountOverflowIsRefused) {
    const int64_t dims[2] = {int64_t{1} << 62, int64_t{1} << 62};
    const int64_t strides[2] = {0, 0};
    EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
    EXPECT_TRUE(contains(recentMessage(),
                         "aclCreateTensor: the element count of viewDims [4611686018427387904, "
                         "4611686018427387904] overflows int64"))
        << recentMessage();
}

TEST(RuntimeHardening, EmptyViewWithHugeDimsIsAcceptedWithExplicitStrides) {
    const int64_t dims[3] = {0, int64_t{1} << 62, int64_t{1} << 62};
    const int64_t strides[3] = {int64Max, int64Max, int64Max};
    aclTensor *tensor = aclCreateTensor(dims, 3, ACL_FLOAT, strides, 5, ACL_FORMAT_ND, nullptr, 0, nullptr);
    ASSERT_NE(tensor, nullptr) << recentMessage();
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(RuntimeHardening, RowMajorStrideOverflowIsRefused) {
    // {0, 2^62, 2^62} holds no element, but its row-major stride of dim 0 would be 2^124.
    const int64_t dims[3] = {0, int64_t{1} << 62, int64_t{1} << 62};
    EXPECT_EQ(aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
    EXPECT_TRUE(contains(recentMessage(), "stride is null and the row-major stride of dim 0")) << recentMessage();
    EXPECT_TRUE(contains(recentMessage(), "overflows int64")) << recentMessage();
    // The largest representable row-major strides are fine.
    const int64_t fits[2] = {1, int64Max / 8};
    aclTensor *tensor = aclCreateTensor(fits, 2, ACL_INT8, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
    ASSERT_NE(tensor, nullptr) << recentMessage();
    aclDestroyTensor(tensor);
}

TEST(RuntimeHardening, FurthestElementOverflowIsRefused) {
    const int64_t dims[2] = {2, 2};
    const int64_t strides[2] = {int64Max, 1};
    EXPECT_EQ(aclCreateTensor(dims, 2, ACL_INT8, strides, 1, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
    EXPECT_TRUE(contains(recentMessage(),
                         "offset + sum((viewDims[i] - 1) * stride[i]) overflows int64 (viewDims "
                         "[2, 2], strides [9223372036854775807, 1], offset 1)"))
        << recentMessage();
    const int64_t hugeStrides[2] = {int64_t{1} << 62, int64_t{1} << 62};
    const int64_t threes[2] = {3, 3};
    EXPECT_EQ(aclCreateTensor(threes, 2, ACL_INT8, hugeStrides, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
}

TEST(RuntimeHardening, ByteOffsetOverflowIsRefused) {
    // 2^61 float elements are 2^63 bytes: the base address data + offset * 4 cannot be formed.
    const int64_t dims[1] = {1};
    float storage[4] = {};
    EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, int64_t{1} << 61, ACL_FORMAT_ND, nullptr, 0, storage),
              nullptr);
    EXPECT_TRUE(contains(recentMessage(), "byte offset")) << recentMessage();
    EXPECT_TRUE(contains(recentMessage(), "2305843009213693952 elements of 4 bytes")) << recentMessage();
    // The same offset as INT8 is 2^61 bytes: representable.
    aclTensor *tensor =
        aclCreateTensor(dims, 1, ACL_INT8, nullptr, int64_t{1} << 61, ACL_FORMAT_ND, nullptr, 0, nullptr);
    EXPECT_NE(tensor, nullptr) << recentMessage();
    aclDestroyTensor(tensor);
}

TEST(RuntimeHardening, ViewEndingPastTheAddressSpaceIsRefused) {
    const int64_t dims[1] = {8};
    auto *nearTheTop = reinterpret_cast<void *>(std::numeric_limits<uintptr_t>::max() - 15);
    EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nearTheTop), nullptr);
    EXPECT_TRUE(contains(recentMessage(), "the view ends past the end of the address space")) << recentMessage();
}

TEST(RuntimeHardening, StorageSizeOverflowIsRefused) {
    const int64_t dims[1] = {1};
    const int64_t storage[2] = {int64_t{1} << 31, int64_t{1} << 31};  // 2^62 elements of 4 bytes
    EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 2, nullptr), nullptr);
    EXPECT_TRUE(contains(recentMessage(), "the byte size of storageDims [2147483648, 2147483648] overflows int64"))
        << recentMessage();
}
