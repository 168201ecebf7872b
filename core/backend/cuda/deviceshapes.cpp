#include "backend/cuda/deviceshapes.h"

#include "model/embeddingbag.h"
#include "model/mlp.h"
#include "util/errors.h"

namespace hwl {

cuda::HostData hostData(const DatasetView& v) {
    return {v.rows, v.dim, v.numClasses, v.dense, v.offsets, v.indices, v.values, v.labels};
}

cuda::Sgd deviceSgd(const SgdSettings& s) {
    return {s.lr, s.momentum, s.weightDecay};
}

cuda::MlpShape mlpShape(const Model& model, const char* who) {
    const auto* mlp = dynamic_cast<const Mlp*>(&model);
    if (!mlp)
        throw InputError(std::string("model: ") + who);
    cuda::MlpShape s;
    for (const auto& l : mlp->layers())
        s.layers.push_back({l.in, l.out, l.weight, l.bias});
    s.activation = int(model.spec().activation);
    s.total = model.layout().total();
    return s;
}

cuda::BagShape bagShape(const Model& model) {
    const auto& bag = dynamic_cast<const EmbeddingBag&>(model);
    return {bag.vocab(),        bag.dim(),        bag.classes(),         bag.tableOffset(),
            bag.weightOffset(), bag.biasOffset(), model.layout().total()};
}

} // namespace hwl
