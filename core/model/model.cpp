#include "model/model.h"

#include "model/cnn.h"
#include "model/embeddingbag.h"
#include "model/mlp.h"

namespace hwl {

std::unique_ptr<Model> makeModel(const ModelSpec& spec) {
    if (spec.kind == ModelSpec::Kind::EmbeddingBag)
        return std::make_unique<EmbeddingBag>(spec);
    if (spec.kind == ModelSpec::Kind::Cnn)
        return std::make_unique<Cnn>(spec);
    return std::make_unique<Mlp>(spec);
}

} // namespace hwl
