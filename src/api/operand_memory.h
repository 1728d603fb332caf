// Phase-1 rules about the memory an operand's view reaches (library additions, docs/decisions.md):
// every element of a non-empty view lies inside its storage and inside the address space, an output
// never reaches one element through two index tuples, and an output shares no byte with any other
// operand. All arithmetic is exact (checked int64 / uintptr), so an absurd view is refused rather than
// wrapped into an acceptable one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>

#include "api/argument_checks.h"
#include "core/executor.h"

namespace poolgrad {

// Element offset from the data pointer of the last element a non-empty view reaches,
// offset + sum of (dim-1)*stride; nullopt when it does not fit in int64.
std::optional<int64_t> lastElementOffset(const aclTensor *tensor);

// The bytes [first, last] a non-empty view reaches; nullopt when they wrap around the address space.
struct ByteRange {
    uintptr_t first = 0, last = 0;
};
std::optional<ByteRange> viewByteRange(const aclTensor *tensor);

// Whether a non-empty tensor's null data pointer is refused now (a run) or left for the run (phase 1: CANN
// lets a program create its tensors with null data and set the addresses with aclSetInputTensorAddr /
// aclSetOutputTensorAddr before the run, which then checks them).
enum class NullData { Refused, CheckedAtTheRun };

// A non-empty tensor has non-null data (or, CheckedAtTheRun, null data) aligned to its element size, an
// element count that fits in int64, and a view whose every element lies inside the address space and, when
// storage dims were given, inside its storage.
aclnnStatus requireAddressable(const char *op, std::span<const NamedTensor> tensors, NullData nullData);

// An output reaches each of its elements through exactly one index tuple. Checked by a cheap sufficient
// rule: with the axes longer than 1 sorted by stride, each stride exceeds the offset span of all
// smaller-stride axes (stride[k] >= sum of (dim-1)*stride over them, plus 1). Every dense, permuted or
// sliced layout passes; stride 0 and colliding strides fail; so do some exotic interleavings that do
// not actually overlap. Call after requireAddressable.
aclnnStatus requireNoSelfOverlap(const char *op, std::span<const NamedTensor> outputs);

// No byte range of an output intersects that of another output or of an input (identical views
// included). Call after requireAddressable; empty operands take no memory.
aclnnStatus requireNoSharedMemory(const char *op, std::span<const NamedTensor> outputs,
                                  std::span<const NamedTensor> inputs);

// The three rules above as every operator applies them: its inputs and then its outputs addressable, no
// output reaching an element twice, no output sharing memory with another operand.
aclnnStatus requireOperandMemory(const char *op, std::span<const NamedTensor> inputs,
                                 std::span<const NamedTensor> outputs, NullData nullData);
// Phase 1's form: null data is left for the run.
inline aclnnStatus requireOperandMemory(const char *op, std::initializer_list<NamedTensor> inputs,
                                        std::initializer_list<NamedTensor> outputs) {
    return requireOperandMemory(op, std::span<const NamedTensor>(inputs.begin(), inputs.size()),
                                std::span<const NamedTensor>(outputs.begin(), outputs.size()),
                                NullData::CheckedAtTheRun);
}

// The same rules for the tensors an executor keeps (core/executor.h), as the first run after
// aclSetInputTensorAddr / aclSetOutputTensorAddr applies them: the inputs phase 1 read (not those it took
// only the shape of) and every output.
aclnnStatus requireBoundOperandMemory(const char *op, const BoundTensors &tensors);

}  // namespace poolgrad
