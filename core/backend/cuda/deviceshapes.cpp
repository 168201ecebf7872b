#include "backend/cuda/deviceshapes.h"

#include "backend/cpu/netkernel.h"
#include "model/embeddingbag.h"
#include "model/mlp.h"
#include "model/net.h"
#include "util/errors.h"

#include <stdexcept>

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
    // cnn:mnist's layers (mnistLayers()): conv1 0, conv2 3, fc1 8, fc2 11.
    const auto& layers = dynamic_cast<const Net&>(model).layers();
    if (model.spec().kind != ModelSpec::Kind::Cnn || layers.size() != 12)
        throw std::invalid_argument("the GPU's CNN is cnn:mnist");
    cuda::CnnShape c;
    c.side = model.spec().input.height;
    c.kernel = layers[0].info.layer.kernel;
    c.conv1 = layers[0].info.layer.size;
    c.conv2 = layers[3].info.layer.size;
    c.hidden = layers[8].info.layer.size;
    c.classes = layers[11].info.layer.size;
    c.conv1Weight = layers[0].weight;
    c.conv1Bias = layers[0].bias;
    c.conv2Weight = layers[3].weight;
    c.conv2Bias = layers[3].bias;
    c.fc1Weight = layers[8].weight;
    c.fc1Bias = layers[8].bias;
    c.fc2Weight = layers[11].weight;
    c.fc2Bias = layers[11].bias;
    c.total = model.layout().total();
    c.dropout = model.spec().dropout;
    c.seed = model.spec().dropoutSeed;
    c.dropoutGroup = NetKernel(dynamic_cast<const Net&>(model)).group();
    return c;
}

} // namespace hwl
