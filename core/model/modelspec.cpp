#include "model/modelspec.h"

#include "util/errors.h"
#include "util/limits.h"
#include "util/textutil.h"

namespace hwl {

namespace {
using limits::kMaxParameters;
using limits::kMaxWidth;

[[noreturn]] void bad(const std::string& text, const std::string& why) {
    throw InputError("model: \"" + text + "\" is not valid: " + why +
                     ". Accepted forms: mlp:IN-H1-...-OUT[:relu|tanh|sigmoid] (e.g. "
                     "mlp:100-256-10, mlp:784-128-10:tanh) or embedding-bag:V-D-C (e.g. "
                     "embedding-bag:5000-32-4) or cnn:mnist (PyTorch's mnist_hogwild network)");
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
    }
    return "relu";
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
        return spec;
    }
    bad(text, "unknown model kind \"" + parts[0] + "\"");
}

std::string toString(const ModelSpec& spec) {
    if (spec.kind == ModelSpec::Kind::Cnn)
        return "cnn:mnist";
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
