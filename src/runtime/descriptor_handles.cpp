#include "runtime/descriptor_handles.h"

#include "core/error_message.h"

namespace poolgrad {

aclnnStatus LiveDescriptors::resolve(const char *op, std::initializer_list<Argument> arguments) {
    if (pinnedCount_ + arguments.size() > capacity)
        return fail(ACLNN_ERR_INNER, op, ": more than ", capacity, " descriptor arguments");
    for (const Argument &argument : arguments)
        if (auto s = argument.resolve_(*this, op, argument.name_, argument.variable_)) return s;
    return ACLNN_SUCCESS;
}

aclnnStatus LiveDescriptors::deadHandle(const char *op, const char *name, const void *handle, HandleKind kind) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, ": ", name, " ", explainDeadHandle(handle, kind));
}

}  // namespace poolgrad
