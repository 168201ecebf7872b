#include "model/model.h"

#include "model/embeddingbag.h"
#include "model/mlp.h"

namespace hwl {

std::unique_ptr<Model> makeModel(const ModelSpec& spec) {
    if (spec.kind == ModelSpec::Kind::EmbeddingBag)
        return std::make_unique<EmbeddingBag>(spec);
    return std::make_unique<Mlp>(spec);
}

} // namespace hwl
