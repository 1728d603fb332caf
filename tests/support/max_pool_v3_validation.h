// The attributes of a MaxPoolV3Grad or MaxPoolV3WithAttrs validation case, as passed (a nullptr string or a
// missing pads list is the operator's default), and the arrays and pointers a call owns for them: the part
// of both operators' validation tables (support/validation_cases.h) that is the same.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "support/test_tensor.h"

namespace max_pool_v3_test {

struct V3AttributeSpecs {
    std::vector<int64_t> ksize{1, 1, 2, 2}, strides{1, 1, 2, 2};
    const char *paddingMode = nullptr;
    std::optional<std::vector<int64_t>> pads;
    const char *dataFormat = nullptr;
    bool globalPooling = false, ceilMode = false;
};

struct V3AttributeArguments {
    explicit V3AttributeArguments(const V3AttributeSpecs &specs)
        : ksize(specs.ksize),
          strides(specs.strides),
          pads(specs.pads.value_or(std::vector<int64_t>{})),
          padsArg(specs.pads ? static_cast<const aclIntArray *>(pads) : nullptr),
          paddingMode(specs.paddingMode),
          dataFormat(specs.dataFormat),
          globalPooling(specs.globalPooling),
          ceilMode(specs.ceilMode) {}

    test_support::IntArray ksize, strides, pads;
    const aclIntArray *ksizeArg = ksize;
    const aclIntArray *stridesArg = strides;
    const aclIntArray *padsArg;
    const char *paddingMode;
    const char *dataFormat;
    bool globalPooling, ceilMode;
};

// A row-name part for an attribute string ("" → "empty", other characters than letters and digits → '_').
inline std::string nameOf(const std::string &text) {
    if (text.empty()) return "empty";
    std::string name;
    for (char ch : text) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return name;
}

}  // namespace max_pool_v3_test
