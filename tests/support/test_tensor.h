// Test operands: device memory from aclrtMalloc with an aclTensor view over it, any shape, strides
// and offset, and logical (row-major over the view) element access as double. Storage is poisoned
// on creation so that an element an operator forgets to write is visible.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace test_support {

// Byte written over every storage byte by poison(): as float 0xA5A5A5A5 is about -2.9e-16, as a
// 16-bit float it is a small negative number, as an index a large negative one: never a valid result.
constexpr unsigned char poisonByte = 0xA5;

size_t dataTypeBytes(aclDataType type);

class TestTensor {
public:
    // Contiguous row-major.
    TestTensor(std::vector<int64_t> shape, aclDataType type, aclFormat format = ACL_FORMAT_ND);
    // Explicit strides and offset; the storage holds exactly the elements the view can reach plus `slack`.
    TestTensor(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset, aclDataType type,
               aclFormat format = ACL_FORMAT_ND, int64_t slack = 0);
    // Same logical shape, storage ordered by `order` (outermost first), e.g. {0,2,3,4,1} = channels-last 5-D.
    static TestTensor permuted(std::vector<int64_t> shape, const std::vector<int> &order, aclDataType type,
                               aclFormat format = ACL_FORMAT_ND);
    TestTensor(TestTensor &&other) noexcept;
    TestTensor &operator=(TestTensor &&other) noexcept;
    TestTensor(const TestTensor &) = delete;
    TestTensor &operator=(const TestTensor &) = delete;
    ~TestTensor();

    aclTensor *get() const { return tensor_; }
    // Start of the storage (element 0 of a view without offset), for tests that alias operands.
    void *data() const { return device_; }
    operator aclTensor *() const { return tensor_; }
    const std::vector<int64_t> &shape() const { return shape_; }
    const std::vector<int64_t> &strides() const { return strides_; }
    aclDataType type() const { return type_; }
    int64_t elementCount() const;
    int64_t storageElements() const { return storageElements_; }

    void poison();
    // Logical element i (row-major over the view shape).
    double at(int64_t flatIndex) const;
    void set(int64_t flatIndex, double value);
    std::vector<double> values() const;
    void setValues(const std::vector<double> &values);
    // Raw bits of a 16-bit or 32-bit element, for bit-exact comparisons.
    uint64_t bitsAt(int64_t flatIndex) const;
    void setBits(int64_t flatIndex, uint64_t bits);
    // Storage bytes outside the view (poisoned at creation) that changed since poison().
    int64_t bytesOutsideViewChanged() const;

private:
    int64_t storageOffsetOf(int64_t flatIndex) const;
    void create(aclFormat format);

    std::vector<int64_t> shape_, strides_;
    int64_t offset_ = 0;
    aclDataType type_ = ACL_FLOAT;
    int64_t storageElements_ = 0;
    void *device_ = nullptr;
    aclTensor *tensor_ = nullptr;
};

// RAII aclIntArray.
class IntArray {
public:
    IntArray(std::vector<int64_t> values);
    ~IntArray();
    IntArray(const IntArray &) = delete;
    IntArray &operator=(const IntArray &) = delete;
    operator aclIntArray *() const { return array_; }

private:
    aclIntArray *array_;
};

}  // namespace test_support
