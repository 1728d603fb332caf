// The live descriptors behind the aclTensor, aclScalar, array and list handles (core/handle_registry.h),
// and how phase 1 of an operator turns its handle arguments into descriptors.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <type_traits>

#include "aclnn/aclnn_base.h"
#include "core/handle_registry.h"
#include "core/pool_problem.h"
#include "runtime/descriptors.h"

namespace poolgrad {

template <typename Descriptor>
constexpr HandleKind descriptorKind{};  // specialised for each descriptor type below
template <>
inline constexpr HandleKind descriptorKind<aclTensor> = HandleKind::Tensor;
template <>
inline constexpr HandleKind descriptorKind<aclScalar> = HandleKind::Scalar;
template <>
inline constexpr HandleKind descriptorKind<aclIntArray> = HandleKind::IntArray;
template <>
inline constexpr HandleKind descriptorKind<aclFloatArray> = HandleKind::FloatArray;
template <>
inline constexpr HandleKind descriptorKind<aclBoolArray> = HandleKind::BoolArray;
template <>
inline constexpr HandleKind descriptorKind<aclTensorList> = HandleKind::TensorList;

template <typename Descriptor>
HandleRegistry<Descriptor> &descriptorHandles() {
    static_assert(descriptorKind<Descriptor> != HandleKind{}, "not a descriptor type");
    static auto *registry = new HandleRegistry<Descriptor>(descriptorKind<Descriptor>);  // see handle_registry.h
    return *registry;
}

// Where an operator's tensor argument goes: one of its inputs or outputs (aclSetInputTensorAddr and
// aclSetOutputTensorAddr count each kind in parameter order) and the problem operand it becomes.
struct TensorRole {
    bool output = false;
    OperandRole operand = OperandRole::None;
};
constexpr TensorRole inputAs(OperandRole operand) { return {false, operand}; }
constexpr TensorRole outputAs(OperandRole operand) { return {true, operand}; }

// Phase 1's descriptor arguments. resolve() replaces each handle argument, in place, by the descriptor it
// names, and keeps those descriptors alive until this object goes away (so phase 1 reads plain descriptors
// even if another thread destroys a handle meanwhile). Null stays null for the operator's own null check; a
// handle naming no live descriptor of its kind (destroyed, or not a handle) fails with 161001 and a message.
//
//     LiveDescriptors live;
//     if (auto s = live.resolve(op, {{"self", self}, {"kernelSize", kernelSize}})) return s;
class LiveDescriptors {
public:
    enum class Presence { Required, Optional };  // whether the operator accepts a null handle
    class Argument {
    public:
        template <typename Descriptor>
        Argument(const char *name, Descriptor *&handle, Presence presence = Presence::Required)
            : name_(name),
              variable_(&handle),
              resolve_(&resolveOne<Descriptor>),
              missing_(handle == nullptr && presence == Presence::Required),
              handle_(handle) {}
        // A tensor argument that is one of the operator's inputs or outputs.
        template <typename Descriptor>
        Argument(const char *name, Descriptor *&handle, TensorRole role, Presence presence = Presence::Required)
            : Argument(name, handle, presence) {
            static_assert(std::is_same_v<std::remove_const_t<Descriptor>, aclTensor>, "only tensors have roles");
            tensor_ = true;
            role_ = role;
        }

        const char *name() const { return name_; }
        // A required argument given as null (resolve() leaves it null for the operator's null check).
        bool missing() const { return missing_; }
        // Tensor arguments with a role: the role, the caller's handle, and (after resolve()) the descriptor.
        bool hasTensorRole() const { return tensor_; }
        TensorRole tensorRole() const { return role_; }
        const void *callerHandle() const { return handle_; }
        const aclTensor *resolvedTensor() const { return *static_cast<const aclTensor *const *>(variable_); }

    private:
        friend class LiveDescriptors;
        const char *name_;
        void *variable_;  // the caller's Descriptor * variable
        aclnnStatus (*resolve_)(LiveDescriptors &, const char *op, const char *name, void *variable);
        bool missing_;
        const void *handle_;  // as the caller passed it, before resolve() rewrites the variable
        bool tensor_ = false;
        TensorRole role_;
    };

    aclnnStatus resolve(const char *op, std::initializer_list<Argument> arguments);

    // The descriptor resolve() pinned at `object`, shared (descriptors never change); null if none.
    std::shared_ptr<const aclTensor> pinnedTensor(const aclTensor *object) const {
        for (size_t i = 0; i < pinnedCount_; ++i)
            if (pinned_[i].get() == object) return std::shared_ptr<const aclTensor>(pinned_[i], object);
        return nullptr;
    }

private:
    template <typename Descriptor>
    static aclnnStatus resolveOne(LiveDescriptors &live, const char *op, const char *name, void *variable) {
        using Object = std::remove_const_t<Descriptor>;
        Descriptor *&handle = *static_cast<Descriptor **>(variable);
        if (handle == nullptr) return ACLNN_SUCCESS;
        std::shared_ptr<Object> object = descriptorHandles<Object>().find(handle);
        if (object == nullptr) return deadHandle(op, name, handle, descriptorKind<Object>);
        handle = object.get();
        live.pinned_[live.pinnedCount_++] = std::move(object);
        return ACLNN_SUCCESS;
    }
    static aclnnStatus deadHandle(const char *op, const char *name, const void *handle, HandleKind kind);

    // Inline storage: phase 1 is called often and takes at most 8 descriptors; no allocation here.
    static constexpr size_t capacity = 16;
    std::array<std::shared_ptr<const void>, capacity> pinned_;
    size_t pinnedCount_ = 0;
};

}  // namespace poolgrad
