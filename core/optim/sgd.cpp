#include "optim/sgd.h"

namespace hwl {

void applySgd(float* params, const Gradient<float>& grad, float* velocity, const SgdSettings& sgd,
              std::uint32_t rank, std::uint32_t workers) {
    detail::sgdSegments(params, grad, velocity, sgd, rank, workers);
}

} // namespace hwl
