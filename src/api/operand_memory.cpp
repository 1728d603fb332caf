#include "api/operand_memory.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"

namespace poolgrad {
namespace {

std::string viewText(const aclTensor *tensor) {
    return joinText("shape ", shapeText(tensor->viewShape), ", strides ", shapeText(tensor->strides), ", offset ",
                    tensor->offset);
}

std::string hexText(uintptr_t value) { return joinText("0x", std::hex, value); }

}  // namespace

std::optional<int64_t> lastElementOffset(const aclTensor *tensor) {
    int64_t last = tensor->offset;
    for (size_t i = 0; i < tensor->viewShape.size(); ++i) {
        const std::optional<int64_t> span = checkedMul<int64_t>(tensor->viewShape[i] - 1, tensor->strides[i]);
        if (!span) return std::nullopt;
        const std::optional<int64_t> sum = checkedAdd(last, *span);
        if (!sum) return std::nullopt;
        last = *sum;
    }
    return last;
}

std::optional<ByteRange> viewByteRange(const aclTensor *tensor) {
    const std::optional<int64_t> last = lastElementOffset(tensor);
    if (!last) return std::nullopt;
    const uint64_t elementBytes = aclDataTypeSize(tensor->dataType);
    // Bytes from data to one past the last element's last byte, then the address of its last byte.
    const std::optional<uint64_t> first =
        checkedMul<uint64_t>(static_cast<uint64_t>(tensor->offset), std::max<uint64_t>(elementBytes, 1));
    const std::optional<uint64_t> endOffset =
        checkedMul<uint64_t>(static_cast<uint64_t>(*last) + 1, std::max<uint64_t>(elementBytes, 1));
    if (!first || !endOffset) return std::nullopt;
    const auto data = reinterpret_cast<uintptr_t>(tensor->data);
    const std::optional<uintptr_t> firstByte = checkedAdd<uintptr_t>(data, *first);
    const std::optional<uintptr_t> endByte = checkedAdd<uintptr_t>(data, *endOffset);
    if (!firstByte || !endByte) return std::nullopt;
    return ByteRange{*firstByte, *endByte - 1};
}

aclnnStatus requireAddressable(const char *op, std::span<const NamedTensor> tensors, NullData nullData) {
    for (const NamedTensor &named : tensors) {
        const aclTensor *tensor = named.tensor;
        if (isEmpty(tensor)) continue;
        const std::optional<int64_t> count = checkedProduct<int64_t>(tensor->viewShape);
        if (!count)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " shape ", shapeText(tensor->viewShape),
                        " has more elements than int64 can count (more than 9223372036854775807)");
        if (tensor->data == nullptr && nullData == NullData::Refused)
            return fail(ACLNN_ERR_PARAM_NULLPTR, op, ": ", named.name, " has ", *count,
                        " elements but its data pointer is null (give it one with aclSetInputTensorAddr / "
                        "aclSetOutputTensorAddr before the run)");
        const size_t bytes = aclDataTypeSize(tensor->dataType);
        const auto address = reinterpret_cast<uintptr_t>(tensor->data);
        if (bytes > 1 && address % bytes != 0)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " data address ", tensor->data,
                        " is not aligned to its element size (", bytes, " bytes)");
        const std::optional<int64_t> last = lastElementOffset(tensor);
        if (!last)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " view (", viewText(tensor),
                        ") reaches beyond element 9223372036854775807: offset + sum of (dim-1)*stride overflows int64");
        // A null address (set before the run) is checked against the address space then.
        if (tensor->data != nullptr && !viewByteRange(tensor))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " view (", viewText(tensor),
                        ") reaches element ", *last, " of ", bytes, " bytes from data address ", tensor->data,
                        ", beyond the end of the address space");
        if (!tensor->storageGiven) continue;
        // A storage whose element count overflows holds every element a representable view can reach.
        const std::optional<int64_t> storage = checkedProduct<int64_t>(tensor->storageShape);
        if (storage && *last >= *storage)
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " view (", viewText(tensor),
                        ") reaches element ", *last, " but its storage ", shapeText(tensor->storageShape),
                        " holds only ", *storage, " elements");
    }
    return ACLNN_SUCCESS;
}

aclnnStatus requireNoSelfOverlap(const char *op, std::span<const NamedTensor> outputs) {
    for (const NamedTensor &named : outputs) {
        const aclTensor *tensor = named.tensor;
        if (isEmpty(tensor)) continue;
        std::vector<std::pair<int64_t, int64_t>> axes;  // (stride, dim) of the axes longer than 1
        for (size_t i = 0; i < tensor->viewShape.size(); ++i)
            if (tensor->viewShape[i] > 1) axes.emplace_back(tensor->strides[i], tensor->viewShape[i]);
        std::sort(axes.begin(), axes.end());
        int64_t span = 0;  // largest offset the axes of smaller stride reach together
        for (const auto &[stride, dim] : axes) {
            if (stride <= span)
                return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", named.name, " overlaps itself: its view (",
                            viewText(tensor), ") has an axis of size ", dim, " and stride ", stride,
                            " that does not step past the ", span,
                            " elements spanned by its axes of smaller stride, so two index tuples can reach one "
                            "element; an output must reach each element once (no stride 0, no colliding strides)");
            // Exact: requireAddressable checked that the whole sum fits in int64.
            span += (dim - 1) * stride;
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus requireNoSharedMemory(const char *op, std::span<const NamedTensor> outputs,
                                  std::span<const NamedTensor> inputs) {
    const auto rangeOf = [](const NamedTensor &named) -> std::optional<ByteRange> {
        if (isEmpty(named.tensor) || named.tensor->data == nullptr) return std::nullopt;
        return viewByteRange(named.tensor);
    };
    const auto check = [&](const NamedTensor &output, const NamedTensor &other) -> aclnnStatus {
        const std::optional<ByteRange> a = rangeOf(output), b = rangeOf(other);
        if (!a || !b || a->last < b->first || b->last < a->first) return ACLNN_SUCCESS;
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", output.name, " and ", other.name, " share memory (", output.name,
                    " reaches bytes [", hexText(a->first), ", ", hexText(a->last), "], ", other.name, " bytes [",
                    hexText(b->first), ", ", hexText(b->last),
                    "]); an output must not overlap any other operand, in place included");
    };
    for (auto output = outputs.begin(); output != outputs.end(); ++output) {
        for (auto later = output + 1; later != outputs.end(); ++later)
            if (auto s = check(*output, *later)) return s;
        for (const NamedTensor &input : inputs)
            if (auto s = check(*output, input)) return s;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus requireOperandMemory(const char *op, std::span<const NamedTensor> inputs,
                                 std::span<const NamedTensor> outputs, NullData nullData) {
    if (auto s = requireAddressable(op, inputs, nullData)) return s;
    if (auto s = requireAddressable(op, outputs, nullData)) return s;
    if (auto s = requireNoSelfOverlap(op, outputs)) return s;
    return requireNoSharedMemory(op, outputs, inputs);
}

aclnnStatus requireBoundOperandMemory(const char *op, const BoundTensors &tensors) {
    // At most 4 tensors an operator; phase 1 checked the same lists with the addresses it was given.
    std::array<NamedTensor, 8> inputs{}, outputs{};
    size_t inputCount = 0, outputCount = 0;
    for (const BoundTensor &bound : tensors) {
        if (bound.descriptor == nullptr || !memoryRulesCover(bound)) continue;
        const NamedTensor named{bound.name, bound.descriptor.get()};
        if (bound.role.output) {
            if (outputCount < outputs.size()) outputs[outputCount++] = named;
        } else if (inputCount < inputs.size()) {
            inputs[inputCount++] = named;
        }
    }
    return requireOperandMemory(op, std::span<const NamedTensor>(inputs.data(), inputCount),
                                std::span<const NamedTensor>(outputs.data(), outputCount), NullData::Refused);
}

}  // namespace poolgrad
