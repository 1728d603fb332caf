// Calls a kernel template instantiated for the value and index element types of a problem.
#pragma once

#include <cstdint>
#include <utility>

#include "core/data_type.h"

namespace poolgrad::cpu {

template <typename Value>
struct TypeTag {
    using type = Value;
};

template <typename Function>
decltype(auto) withValueType(ElementType type, Function &&function) {
    switch (type) {
        case ElementType::Float16:
            return function(TypeTag<Float16>{});
        case ElementType::BFloat16:
            return function(TypeTag<BFloat16>{});
        default:
            return function(TypeTag<float>{});
    }
}

// The value types of the planar forwards: the common ones, the integers of aclnnMaxPool and the double of
// aclnnAdaptiveMaxPool2d.
template <typename Function>
decltype(auto) withForwardValueType(ElementType type, Function &&function) {
    switch (type) {
        case ElementType::Int8:
            return function(TypeTag<int8_t>{});
        case ElementType::UInt8:
            return function(TypeTag<uint8_t>{});
        case ElementType::Int16:
            return function(TypeTag<int16_t>{});
        case ElementType::UInt16:
            return function(TypeTag<uint16_t>{});
        case ElementType::Int32:
            return function(TypeTag<int32_t>{});
        case ElementType::Int64:
            return function(TypeTag<int64_t>{});
        case ElementType::Float64:
            return function(TypeTag<double>{});
        default:
            return withValueType(type, std::forward<Function>(function));
    }
}

template <typename Function>
decltype(auto) withIndexType(ElementType type, Function &&function) {
    if (type == ElementType::Int64) return function(TypeTag<int64_t>{});
    return function(TypeTag<int32_t>{});
}

}  // namespace poolgrad::cpu
