#include "model/modelspec.h"

#include "util/errors.h"
#include "util/limits.h"
#include "util/textutil.h"

#include <optional>

namespace hwl {

namespace {
using limits::kMaxParameters;
using limits::kMaxWidth;

/// The model's text as a message quotes it: a long one (a list of
/// thousands of layers) cut to its first 100 bytes and its length.
std::string quotedSpec(const std::string& text) {
    if (text.size() <= 120)
        return "\"" + text + "\"";
    return "\"" + text.substr(0, 100) + "...\" (" + std::to_string(text.size()) + " characters)";
}

[[noreturn]] void bad(const std::string& text, const std::string& why) {
    throw InputError("model: " + quotedSpec(text) + " is not valid: " + why +
                     ". Accepted forms: mlp:IN-H1-...-OUT[:relu|tanh|sigmoid] (e.g. "
                     "mlp:100-256-10, mlp:784-128-10:tanh) or embedding-bag:V-D-C (e.g. "
                     "embedding-bag:5000-32-4) or cnn:mnist (PyTorch's mnist_hogwild network) or "
                     "net:SHAPE:LAYERS (e.g. net:1x28x28:conv8k3,relu,maxpool2,flatten,fc10)");
}

std::vector<std::int64_t> parseWidths(const std::string& text, const std::string& list) {
    std::vector<std::int64_t> widths;
    for (const auto& part : split(list, '-')) {
        const auto value = parseInteger(part);
        if (!value || *value < 1 || *value > kMaxWidth)
            bad(text, "\"" + part + "\" is not a width in 1.." + std::to_string(kMaxWidth));
        widths.push_back(*value);
    }
    return widths;
}
} // namespace

const char* toString(Activation a) {
    switch (a) {
    case Activation::Relu:
        return "relu";
    case Activation::Tanh:
        return "tanh";
    case Activation::Sigmoid:
        return "sigmoid";
    case Activation::Gelu:
        return "gelu";
    }
    return "relu";
}

std::vector<Layer> mnistLayers() {
    return parseLayers("conv10k5,maxpool2,relu,conv20k5,dropout2d,maxpool2,relu,flatten,fc50,relu,"
                       "dropout,fc10");
}

namespace {
/// The layer list's spec: the layers over the shape, checked.
ModelSpec layerListSpec(const std::string& text, const std::string& shape,
                        const std::string& list) {
    ModelSpec spec;
    spec.kind = ModelSpec::Kind::Net;
    spec.layers.clear();
    try {
        spec.input = parseInputShape(shape);
        spec.net = parseLayers(list);
        spec.classes = describeLayers(spec.input, spec.net).back().out.size();
    } catch (const InputError& e) {
        throw InputError("model: " + quotedSpec(text) + " is not valid: " + e.what());
    }
    return spec;
}
} // namespace

bool ModelSpec::usesDropoutField() const {
    for (const Layer& layer : net)
        if (layer.isDropout() && layer.p < 0)
            return true;
    return false;
}

std::string ModelSpec::mlpEquivalent() const {
    if (kind == Kind::Mlp)
        return toString(*this);
    if (kind != Kind::Net || input.image())
        return {};
    std::string text = "mlp:" + std::to_string(input.size());
    std::optional<Layer::Op> activation;
    for (std::size_t i = 0; i < net.size(); ++i) {
        const bool fcHere = i % 2 == 0;
        if (fcHere != (net[i].op == Layer::Op::Fc))
            return {};
        if (fcHere) {
            text += '-';
            text += std::to_string(net[i].size);
            continue;
        }
        const Layer::Op op = net[i].op;
        if (op != Layer::Op::Relu && op != Layer::Op::Tanh && op != Layer::Op::Sigmoid)
            return {};
        if (activation && *activation != op)
            return {};
        activation = op;
    }
    if (activation == Layer::Op::Tanh)
        text += ":tanh";
    else if (activation == Layer::Op::Sigmoid)
        text += ":sigmoid";
    return text;
}

ModelSpec parseModelSpec(const std::string& text) {
    const auto parts = split(text, ':');
    ModelSpec spec;
    if (parts.empty())
        bad(text, "it is empty");
    if (parts[0] == "mlp") {
        if (parts.size() < 2 || parts.size() > 3)
            bad(text, "expected mlp:WIDTHS or mlp:WIDTHS:ACTIVATION");
        spec.kind = ModelSpec::Kind::Mlp;
        spec.layers = parseWidths(text, parts[1]);
        if (spec.layers.size() < 2)
            bad(text, "an MLP needs at least an input and an output width");
        if (spec.layers.back() < 2)
            bad(text, "the output width is the number of classes and must be at least 2");
        if (parts.size() == 3) {
            if (parts[2] == "relu")
                spec.activation = Activation::Relu;
            else if (parts[2] == "tanh")
                spec.activation = Activation::Tanh;
            else if (parts[2] == "sigmoid")
                spec.activation = Activation::Sigmoid;
            else
                bad(text, "unknown activation \"" + parts[2] + "\" (relu, tanh or sigmoid)");
        }
        std::int64_t total = 0;
        for (std::size_t i = 1; i < spec.layers.size(); ++i)
            total += spec.layers[i] * (spec.layers[i - 1] + 1);
        if (total > kMaxParameters)
            bad(text, "it has " + std::to_string(total) + " parameters, more than the limit of " +
                          std::to_string(kMaxParameters));
        return spec;
    }
    if (parts[0] == "embedding-bag") {
        if (parts.size() != 2)
            bad(text, "expected embedding-bag:V-D-C");
        const auto widths = parseWidths(text, parts[1]);
        if (widths.size() != 3)
            bad(text, "expected three sizes V-D-C (vocabulary, dimension, classes)");
        spec.kind = ModelSpec::Kind::EmbeddingBag;
        spec.layers.clear();
        spec.vocab = widths[0];
        spec.dim = widths[1];
        spec.classes = widths[2];
        if (spec.classes < 2)
            bad(text, "the number of classes must be at least 2");
        if (spec.vocab * spec.dim > kMaxParameters)
            bad(text, "the embedding table has more than " + std::to_string(kMaxParameters) +
                          " parameters");
        return spec;
    }
    if (parts[0] == "cnn") {
        if (parts.size() != 2 || parts[1] != "mnist")
            bad(text, "the one convolutional network is cnn:mnist (28x28 one-channel images, "
                      "10 classes)");
        spec.kind = ModelSpec::Kind::Cnn;
        spec.layers.clear();
        spec.classes = 10;
        spec.input = {1, 28, 28};
        spec.net = mnistLayers();
        return spec;
    }
    if (parts[0] == "net") {
        if (parts.size() != 3)
            bad(text, "expected net:SHAPE:LAYER,LAYER,... (e.g. net:1x28x28:conv8k3,relu,"
                      "maxpool2,flatten,fc10 or net:784:fc128,relu,fc10)");
        return layerListSpec(text, parts[1], parts[2]);
    }
    bad(text, "unknown model kind \"" + parts[0] + "\"");
}

std::string toString(const ModelSpec& spec) {
    if (spec.kind == ModelSpec::Kind::Cnn)
        return "cnn:mnist";
    if (spec.kind == ModelSpec::Kind::Net) {
        std::string text = "net:" + toString(spec.input) + ":";
        for (std::size_t i = 0; i < spec.net.size(); ++i) {
            if (i)
                text += ',';
            text += toString(spec.net[i]);
        }
        return text;
    }
    if (spec.kind == ModelSpec::Kind::EmbeddingBag)
        return "embedding-bag:" + std::to_string(spec.vocab) + "-" + std::to_string(spec.dim) +
               "-" + std::to_string(spec.classes);
    std::string text = "mlp:";
    for (std::size_t i = 0; i < spec.layers.size(); ++i) {
        if (i)
            text += '-';
        text += std::to_string(spec.layers[i]);
    }
    if (spec.activation != Activation::Relu)
        text += std::string(":") + toString(spec.activation);
    return text;
}

} // namespace hwl
