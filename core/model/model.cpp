#include "model/model.h"

#include "model/embeddingbag.h"
#include "model/mlp.h"
#include "model/net.h"

namespace hwl {

std::unique_ptr<Model> makeModel(const ModelSpec& spec) {
    if (spec.kind == ModelSpec::Kind::EmbeddingBag)
        return std::make_unique<EmbeddingBag>(spec);
    if (spec.hasLayerList())
        return std::make_unique<Net>(spec);
    return std::make_unique<Mlp>(spec);
}

} // namespace hwl
