// Shared by the adaptive max-pool operators: the geometry of adaptive windows on every axis.
#pragma once

#include <array>
#include <cstdint>

#include "core/pool_geometry.h"

namespace poolgrad {

PoolGeometry adaptiveGeometry(int64_t batch, int64_t channels, const std::array<int64_t, 3> &input,
                              const std::array<int64_t, 3> &output);

}  // namespace poolgrad
