// A plain description of one operand as the kernels see it: a 5-D (N,C,D,H,W) strided view.
// 4-D (C,D,H,W) tensors get N = 1; the element offset is folded into the base pointer.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "core/checked_arithmetic.h"
#include "core/data_type.h"

namespace poolgrad {

struct StridedTensor {
    ElementType type = ElementType::Float32;
    int rank = 0;                     // the caller's rank, kept for messages and index formatting
    std::array<int64_t, 5> size{};    // N, C, D, H, W
    std::array<int64_t, 5> stride{};  // in elements
    void *base = nullptr;             // address of element (0,0,0,0,0)

    // Phase 1 admits only operands whose element counts fit in int64 (api/operand_memory.h), so these
    // products are exact for every problem; they saturate instead of wrapping for any other view.
    int64_t elementCount() const {
        return saturated(checkedProduct<int64_t>({size[0], size[1], size[2], size[3], size[4]}));
    }
    int64_t planeElements() const { return saturated(checkedProduct<int64_t>({size[2], size[3], size[4]})); }
    bool empty() const { return elementCount() == 0; }
    bool present() const { return rank != 0; }

    // True when every (n,c) plane is dense row-major, so a plane is one run of planeElements().
    // The stride of a size-1 axis never matters. A run whose length overflows is not dense.
    bool planesDense() const {
        return (size[4] <= 1 || stride[4] == 1) && (size[3] <= 1 || stride[3] == size[4]) &&
               (size[2] <= 1 || equalsProduct(stride[2], {size[3], size[4]}));
    }

    // True when the storage is channels-last (N, D, H, W, C) with C, W, H, D dense, as NDHWC/NHWC
    // tensors and channels-last views of NCDHW tensors are.
    bool channelsLastDense() const {
        const int64_t c = size[1];
        return (c <= 1 || stride[1] == 1) && (size[4] <= 1 || stride[4] == c) &&
               (size[3] <= 1 || equalsProduct(stride[3], {size[4], c})) &&
               (size[2] <= 1 || equalsProduct(stride[2], {size[3], size[4], c}));
    }

    template <typename T>
    T *at(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
        return static_cast<T *>(base) + n * stride[0] + c * stride[1] + d * stride[2] + h * stride[3] + w * stride[4];
    }
    template <typename T>
    T *plane(int64_t n, int64_t c) const {
        return static_cast<T *>(base) + n * stride[0] + c * stride[1];
    }

private:
    static int64_t saturated(std::optional<int64_t> value) {
        return value.value_or(std::numeric_limits<int64_t>::max());
    }
    static bool equalsProduct(int64_t value, std::initializer_list<int64_t> factors) {
        const std::optional<int64_t> product = checkedProduct<int64_t>(factors);
        return product.has_value() && *product == value;
    }
};

}  // namespace poolgrad
