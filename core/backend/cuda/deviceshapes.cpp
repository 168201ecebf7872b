#include "backend/cuda/deviceshapes.h"

#include "model/cnn.h"
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

cuda::CnnShape cnnShape(const Model& model) {
    const auto& cnn = dynamic_cast<const Cnn&>(model);
    const Cnn::Shape& s = cnn.shape();
    const Cnn::Offsets& o = cnn.offsets();
    cuda::CnnShape c;
    c.side = s.side;
    c.kernel = s.kernel;
    c.conv1 = s.conv1;
    c.conv2 = s.conv2;
    c.hidden = s.hidden;
    c.classes = s.classes;
    c.conv1Weight = o.conv1Weight;
    c.conv1Bias = o.conv1Bias;
    c.conv2Weight = o.conv2Weight;
    c.conv2Bias = o.conv2Bias;
    c.fc1Weight = o.fc1Weight;
    c.fc1Bias = o.fc1Bias;
    c.fc2Weight = o.fc2Weight;
    c.fc2Bias = o.fc2Bias;
    c.total = model.layout().total();
    c.dropout = model.spec().dropout;
    c.seed = model.spec().dropoutSeed;
    return c;
}

} // namespace hwl
