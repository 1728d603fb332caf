#include "support/test_tensor.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "support/float_bits.h"

namespace test_support {

size_t dataTypeBytes(aclDataType type) {
    switch (type) {
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_BOOL:
            return 1;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
            return 8;
        default:
            return 4;
    }
}

TestTensor::TestTensor(std::vector<int64_t> shape, aclDataType type, aclFormat format)
    : shape_(std::move(shape)), type_(type) {
    strides_.resize(shape_.size());
    int64_t running = 1;
    for (size_t i = shape_.size(); i-- > 0;) {
        strides_[i] = running;
        running *= std::max<int64_t>(shape_[i], 1);
    }
    storageElements_ = std::max<int64_t>(elementCount(), 1);
    create(format);
}

TestTensor::TestTensor(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset, aclDataType type,
                       aclFormat format, int64_t slack)
    : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset), type_(type) {
    int64_t last = offset_;
    for (size_t i = 0; i < shape_.size(); ++i) last += (std::max<int64_t>(shape_[i], 1) - 1) * strides_[i];
    storageElements_ = last + 1 + slack;
    create(format);
}

TestTensor TestTensor::permuted(std::vector<int64_t> shape, const std::vector<int> &order, aclDataType type,
                                aclFormat format) {
    std::vector<int64_t> strides(shape.size());
    int64_t running = 1;
    for (size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = running;
        running *= std::max<int64_t>(shape[order[k]], 1);
    }
    return TestTensor(std::move(shape), std::move(strides), 0, type, format);
}

void TestTensor::create(aclFormat format) {
    const size_t bytes = static_cast<size_t>(storageElements_) * dataTypeBytes(type_);
    if (aclrtMalloc(&device_, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        throw std::runtime_error("aclrtMalloc failed in a test");
    const int64_t storageDims[1] = {storageElements_};
    tensor_ =
        aclCreateTensor(shape_.data(), shape_.size(), type_, strides_.data(), offset_, format, storageDims, 1, device_);
    if (tensor_ == nullptr) throw std::runtime_error("aclCreateTensor failed in a test");
    poison();
}

TestTensor::TestTensor(TestTensor &&other) noexcept
    : shape_(std::move(other.shape_)),
      strides_(std::move(other.strides_)),
      offset_(other.offset_),
      type_(other.type_),
      storageElements_(other.storageElements_),
      device_(std::exchange(other.device_, nullptr)),
      tensor_(std::exchange(other.tensor_, nullptr)) {}

TestTensor &TestTensor::operator=(TestTensor &&other) noexcept {
    if (this != &other) {
        this->~TestTensor();
        new (this) TestTensor(std::move(other));
    }
    return *this;
}

TestTensor::~TestTensor() {
    if (tensor_) aclDestroyTensor(tensor_);
    if (device_) aclrtFree(device_);
}

int64_t TestTensor::elementCount() const {
    return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>());
}

void TestTensor::poison() {
    std::memset(device_, poisonByte, static_cast<size_t>(storageElements_) * dataTypeBytes(type_));
}

int64_t TestTensor::storageOffsetOf(int64_t flatIndex) const {
    int64_t offset = offset_;
    for (size_t i = shape_.size(); i-- > 0;) {
        offset += (flatIndex % shape_[i]) * strides_[i];
        flatIndex /= shape_[i];
    }
    return offset;
}

uint64_t TestTensor::bitsAt(int64_t flatIndex) const {
    const size_t bytes = dataTypeBytes(type_);
    uint64_t bits = 0;
    std::memcpy(&bits, static_cast<unsigned char *>(device_) + storageOffsetOf(flatIndex) * bytes, bytes);
    return bits;
}

void TestTensor::setBits(int64_t flatIndex, uint64_t bits) {
    const size_t bytes = dataTypeBytes(type_);
    std::memcpy(static_cast<unsigned char *>(device_) + storageOffsetOf(flatIndex) * bytes, &bits, bytes);
}

double TestTensor::at(int64_t flatIndex) const {
    const uint64_t bits = bitsAt(flatIndex);
    switch (type_) {
        case ACL_FLOAT:
            return floatFromBits(static_cast<uint32_t>(bits));
        case ACL_FLOAT16:
            return floatFromHalf(static_cast<uint16_t>(bits));
        case ACL_BF16:
            return floatFromBfloat16(static_cast<uint16_t>(bits));
        case ACL_INT32:
            return static_cast<int32_t>(static_cast<uint32_t>(bits));
        case ACL_INT64:
            return static_cast<double>(static_cast<int64_t>(bits));
        case ACL_INT8:
            return static_cast<int8_t>(static_cast<uint8_t>(bits));
        case ACL_UINT8:
            return static_cast<uint8_t>(bits);
        case ACL_INT16:
            return static_cast<int16_t>(static_cast<uint16_t>(bits));
        case ACL_UINT16:
            return static_cast<uint16_t>(bits);
        default:
            throw std::runtime_error("TestTensor::at: unsupported dtype");
    }
}

void TestTensor::set(int64_t flatIndex, double value) {
    switch (type_) {
        case ACL_FLOAT:
            setBits(flatIndex, bitsFromFloat(static_cast<float>(value)));
            break;
        case ACL_FLOAT16:
            setBits(flatIndex, halfFromFloat(static_cast<float>(value)));
            break;
        case ACL_BF16:
            setBits(flatIndex, bfloat16FromFloat(static_cast<float>(value)));
            break;
        case ACL_INT32:
            setBits(flatIndex, static_cast<uint32_t>(static_cast<int32_t>(value)));
            break;
        case ACL_INT64:
            setBits(flatIndex, static_cast<uint64_t>(static_cast<int64_t>(value)));
            break;
        case ACL_INT8:
            setBits(flatIndex, static_cast<uint8_t>(static_cast<int8_t>(value)));
            break;
        case ACL_UINT8:
            setBits(flatIndex, static_cast<uint8_t>(value));
            break;
        case ACL_INT16:
            setBits(flatIndex, static_cast<uint16_t>(static_cast<int16_t>(value)));
            break;
        case ACL_UINT16:
            setBits(flatIndex, static_cast<uint16_t>(value));
            break;
        default:
            throw std::runtime_error("TestTensor::set: unsupported dtype");
    }
}

std::vector<double> TestTensor::values() const {
    std::vector<double> result(static_cast<size_t>(elementCount()));
    for (int64_t i = 0; i < elementCount(); ++i) result[static_cast<size_t>(i)] = at(i);
    return result;
}

void TestTensor::setValues(const std::vector<double> &values) {
    if (static_cast<int64_t>(values.size()) != elementCount())
        throw std::runtime_error("TestTensor::setValues: wrong number of values");
    for (int64_t i = 0; i < elementCount(); ++i) set(i, values[static_cast<size_t>(i)]);
}

int64_t TestTensor::bytesOutsideViewChanged() const {
    const size_t bytes = dataTypeBytes(type_);
    std::vector<bool> inView(static_cast<size_t>(storageElements_), false);
    for (int64_t i = 0; i < elementCount(); ++i) inView[static_cast<size_t>(storageOffsetOf(i))] = true;
    int64_t changed = 0;
    const auto *data = static_cast<const unsigned char *>(device_);
    for (int64_t e = 0; e < storageElements_; ++e) {
        if (inView[static_cast<size_t>(e)]) continue;
        for (size_t b = 0; b < bytes; ++b) changed += data[e * bytes + b] != poisonByte;
    }
    return changed;
}

IntArray::IntArray(std::vector<int64_t> values) : array_(aclCreateIntArray(values.data(), values.size())) {}
IntArray::~IntArray() { aclDestroyIntArray(array_); }

}  // namespace test_support
