// Zero-fill of a strided 5-D view; dense planes become one memset each. Split over (n,c) planes.
#include <cstring>
#include <string>

#include "core/threading.h"
#include "cpu/cpu_kernels.h"

namespace poolgrad::cpu {

void zeroFill(const StridedTensor &tensor) {
    if (tensor.empty()) return;
    const size_t bytes = elementSize(tensor.type);
    auto *base = static_cast<unsigned char *>(tensor.base);
    const int64_t channels = tensor.size[1];
    const bool dense = tensor.planesDense();
    parallelForBlocks(tensor.size[0] * channels, tensor.planeElements(), [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
            unsigned char *planeBase =
                base + (plane / channels * tensor.stride[0] + plane % channels * tensor.stride[1]) * bytes;
            if (dense) {
                std::memset(planeBase, 0, static_cast<size_t>(tensor.planeElements()) * bytes);
                continue;
            }
            for (int64_t d = 0; d < tensor.size[2]; ++d)
                for (int64_t h = 0; h < tensor.size[3]; ++h)
                    for (int64_t w = 0; w < tensor.size[4]; ++w)
                        std::memset(
                            planeBase + (d * tensor.stride[2] + h * tensor.stride[3] + w * tensor.stride[4]) * bytes, 0,
                            bytes);
        }
    });
}

namespace {

struct ZeroFillPlan final : ImplementationPlan {
    bool densePlanes = false;
    int64_t planes = 0;
    std::string describe() const override {
        return std::to_string(planes) +
               (densePlanes ? " dense planes, one memset each" : " strided planes, by element");
    }
};

}  // namespace

PlanOutcome planZeroFill(const PoolProblem &problem) {
    ZeroFillPlan plan;
    plan.densePlanes = problem.gradInput.planesDense();
    plan.planes = problem.gradInput.size[0] * problem.gradInput.size[1];
    return PlanOutcome::accept(plan);
}

RunResult runZeroFill(const PoolProblem &problem, const ImplementationPlan &) {
    zeroFill(problem.gradInput);
    return {};
}

}  // namespace poolgrad::cpu
