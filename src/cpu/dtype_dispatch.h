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

template <typename Function>
decltype(auto) withIndexType(ElementType type, Function &&function) {
    if (type == ElementType::Int64) return function(TypeTag<int64_t>{});
    return function(TypeTag<int32_t>{});
}

}  // namespace poolgrad::cpu
