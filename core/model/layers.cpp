#include "model/layers.h"

#include "util/errors.h"
#include "util/limits.h"
#include "util/textutil.h"

#include <cctype>
#include <cstdio>
#include <optional>

namespace hwl {

namespace {

using Op = Layer::Op;

constexpr const char* kForms =
    "layers are convCkK[sS][pP] (e.g. conv10k5, conv32k3p1, conv16k3s2p1), maxpoolK[sS], "
    "avgpoolK[sS], relu, tanh, sigmoid, gelu, dropout[P], dropout2d[P] (e.g. dropout0.25), "
    "flatten and fcN (e.g. fc50), separated by commas";

[[noreturn]] void badLayer(std::size_t index, const std::string& text, const std::string& why) {
    const std::string shown = text.size() <= 60 ? text : text.substr(0, 40) + "...";
    throw InputError("layer " + std::to_string(index + 1) + " (" + shown + ") " + why);
}

/// Reads the digits at `at` of `text` as a size in 1..max; advances `at`.
std::optional<std::int64_t> number(const std::string& text, std::size_t& at, std::int64_t max) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
        ++end;
    const auto value = parseInteger(std::string_view(text).substr(at, end - at));
    if (!value || *value < 0 || *value > max)
        return std::nullopt;
    at = end;
    return value;
}

/// The optional "xN" parts after a layer's name: letter -> value.
bool suffix(const std::string& text, std::size_t& at, char letter, std::int64_t& value,
            std::int64_t max) {
    if (at >= text.size() || text[at] != letter)
        return true;
    ++at;
    const auto v = number(text, at, max);
    if (!v)
        return false;
    value = *v;
    return true;
}

constexpr std::int64_t kMaxKernel = 1024;

/// Why the part of a convolution or pool from `at` (its stride and
/// padding) is not one: a value past the largest, the padding before the
/// stride, or the form in general.
std::string suffixProblem(const std::string& text, std::size_t at, bool conv) {
    const std::string form =
        conv ? "is not convCkK[sS][pP] (stride s >= 1 and padding p >= 0 follow the kernel "
               "side, in that order, e.g. conv16k3s2p1)"
             : "is not " + text.substr(0, 7) + "K[sS] (e.g. maxpool2, maxpool3s2)";
    if (at >= text.size())
        return form; // a stride of 0
    if (at > 0 && std::isdigit(static_cast<unsigned char>(text[at])))
        --at; // a value that did not parse: at its letter
    const char letter = text[at];
    const std::string digits =
        text.substr(at + 1, text.find_first_not_of("0123456789", at + 1) - (at + 1));
    const char* what = letter == 's' ? "stride" : letter == 'p' && conv ? "padding" : nullptr;
    if (what && !digits.empty() && (digits.size() > 7 || std::stoll(digits) > kMaxKernel))
        return "has a " + std::string(what) + " of " + digits + ", past the largest, " +
               std::to_string(kMaxKernel);
    if (conv && letter == 's' && text.find('p') < at)
        return "has its stride after its padding: the stride (s) comes first, e.g. " +
               text.substr(0, text.find('p')) + "s" + digits +
               text.substr(text.find('p'), at - text.find('p'));
    return form;
}

Layer parseConvOrPool(const std::string& text, std::size_t index) {
    Layer layer;
    std::size_t at = 0;
    const bool conv = text.rfind("conv", 0) == 0;
    if (conv) {
        layer.op = Op::Conv;
        at = 4;
        const auto channels = number(text, at, limits::kMaxWidth);
        if (!channels || *channels < 1 || at >= text.size() || text[at] != 'k')
            badLayer(index, text,
                     "is not convCkK[sS][pP]: C output channels, then k and the "
                     "kernel side (e.g. conv10k5)");
        layer.size = *channels;
        ++at;
    } else {
        layer.op = text.rfind("max", 0) == 0 ? Op::MaxPool : Op::AvgPool;
        at = 7; // "maxpool" or "avgpool"
    }
    const auto kernel = number(text, at, kMaxKernel);
    if (!kernel || *kernel < 1)
        badLayer(index, text, "needs a kernel side in 1.." + std::to_string(kMaxKernel));
    layer.kernel = *kernel;
    layer.stride = conv ? 1 : layer.kernel;
    bool ok = suffix(text, at, 's', layer.stride, kMaxKernel);
    if (conv)
        ok = ok && suffix(text, at, 'p', layer.padding, kMaxKernel);
    if (!ok || at != text.size() || layer.stride < 1)
        badLayer(index, text, suffixProblem(text, at, conv));
    return layer;
}

Layer parseDropout(const std::string& text, std::size_t index) {
    Layer layer;
    const bool twoD = text.rfind("dropout2d", 0) == 0;
    layer.op = twoD ? Op::Dropout2d : Op::Dropout;
    const std::string rest = text.substr(twoD ? 9 : 7);
    if (rest.empty())
        return layer;
    const auto p = parseNumber(rest);
    if (!p || *p < 0 || *p >= 1)
        badLayer(index, text,
                 "has a probability outside [0, 1): write it after the name (dropout0.25), or "
                 "leave it out to use the experiment's dropout field");
    layer.p = *p;
    return layer;
}

Layer parseLayer(const std::string& text, std::size_t index) {
    static const std::pair<const char*, Op> plain[] = {
        {"relu", Op::Relu}, {"tanh", Op::Tanh},       {"sigmoid", Op::Sigmoid},
        {"gelu", Op::Gelu}, {"flatten", Op::Flatten},
    };
    for (const auto& [name, op] : plain)
        if (text == name) {
            Layer layer;
            layer.op = op;
            return layer;
        }
    if (text.rfind("conv", 0) == 0 || text.rfind("maxpool", 0) == 0 ||
        text.rfind("avgpool", 0) == 0)
        return parseConvOrPool(text, index);
    if (text.rfind("dropout", 0) == 0)
        return parseDropout(text, index);
    if (text.rfind("fc", 0) == 0) {
        std::size_t at = 2;
        const auto width = number(text, at, limits::kMaxWidth);
        if (!width || *width < 1 || at != text.size())
            badLayer(index, text,
                     "is not fcN with a width in 1.." + std::to_string(limits::kMaxWidth));
        Layer layer;
        layer.op = Op::Fc;
        layer.size = *width;
        return layer;
    }
    badLayer(index, text, std::string("is not a layer: ") + kForms);
}

std::string probabilityText(double p) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", p);
    return text;
}

/// The output side of a convolution or pool over `side`, or 0 when the
/// kernel does not fit.
std::int64_t outputSide(std::int64_t side, const Layer& layer) {
    const std::int64_t span = side + 2 * layer.padding - layer.kernel;
    return span < 0 ? 0 : span / layer.stride + 1;
}

/// The shape after `layer` over `in`, and its parameters in `info`.
void apply(const TensorShape& in, std::size_t index, LayerInfo& info) {
    const Layer& layer = info.layer;
    TensorShape out = in;
    const bool spatial = layer.op == Op::Conv || layer.op == Op::MaxPool ||
                         layer.op == Op::AvgPool || layer.op == Op::Dropout2d;
    if (spatial && !in.image())
        badLayer(index, info.text,
                 "needs an image, but its input is a vector of " + std::to_string(in.size()) +
                     ": give the network an image shape (net:CxHxW:...) and put this layer "
                     "before flatten");
    if (layer.op == Op::Conv || layer.op == Op::MaxPool || layer.op == Op::AvgPool) {
        out.height = outputSide(in.height, layer);
        out.width = outputSide(in.width, layer);
        if (out.height < 1 || out.width < 1)
            badLayer(index, info.text,
                     "has a kernel of " + std::to_string(layer.kernel) + " but its input is " +
                         toString(in) +
                         ": use a smaller kernel, padding, or fewer pools before it");
    }
    if (layer.op == Op::Conv) {
        out.channels = layer.size;
        info.weights = layer.size * in.channels * layer.kernel * layer.kernel;
        info.biases = layer.size;
        info.macsPerSample = double(info.weights) * double(out.height * out.width);
        // The engine lays each output position's input patch out in a row (im2col).
        constexpr std::int64_t kMaxPatchValues = std::int64_t(1) << 26;
        if (double(out.height * out.width) * double(in.channels * layer.kernel * layer.kernel) >
            double(kMaxPatchValues))
            badLayer(index, info.text,
                     "would unfold into more than " + std::to_string(kMaxPatchValues) +
                         " values a sample (its input patches): use fewer channels, a smaller "
                         "kernel or a larger stride");
    } else if (layer.op == Op::Flatten) {
        out = TensorShape{in.size(), 0, 0};
    } else if (layer.op == Op::Fc) {
        if (in.image())
            badLayer(index, info.text,
                     "takes a vector, but its input is the image " + toString(in) +
                         ": put flatten before it");
        out = TensorShape{layer.size, 0, 0};
        info.weights = layer.size * in.size();
        info.biases = layer.size;
        info.macsPerSample = double(info.weights);
    }
    if (out.size() > limits::kMaxWidth)
        badLayer(index, info.text,
                 "outputs " + std::to_string(out.size()) +
                     " values a sample, more than the limit of " +
                     std::to_string(limits::kMaxWidth));
    info.in = in;
    info.out = out;
}

} // namespace

TensorShape parseInputShape(const std::string& text) {
    const auto parts = split(text, 'x');
    std::vector<std::int64_t> sizes;
    for (const auto& part : parts) {
        const auto value = parseInteger(part);
        if (!value || *value < 1 || *value > limits::kMaxWidth)
            sizes.clear();
        else
            sizes.push_back(*value);
        if (sizes.empty())
            break;
    }
    if (sizes.size() == 1)
        return {sizes[0], 0, 0};
    if (sizes.size() == 3 && sizes[0] * sizes[1] * sizes[2] <= limits::kMaxWidth)
        return {sizes[0], sizes[1], sizes[2]};
    throw InputError("the input shape \"" + text +
                     "\" is not CxHxW (channels, height, width: 1x28x28 for a Fashion-MNIST "
                     "image) or N (a vector of N features), each in 1.." +
                     std::to_string(limits::kMaxWidth) + " and at most " +
                     std::to_string(limits::kMaxWidth) + " values in all");
}

std::vector<Layer> parseLayers(const std::string& list) {
    constexpr std::size_t kMaxLayers = 256;
    std::vector<Layer> layers;
    const auto parts = split(list, ',');
    if (list.empty())
        throw InputError(std::string("the network has no layers: ") + kForms);
    if (parts.size() > kMaxLayers)
        throw InputError("the network has " + std::to_string(parts.size()) +
                         " layers, more than the limit of " + std::to_string(kMaxLayers));
    for (std::size_t i = 0; i < parts.size(); ++i)
        layers.push_back(parseLayer(parts[i], i));
    return layers;
}

std::string toString(const TensorShape& shape) {
    if (!shape.image())
        return std::to_string(shape.channels);
    return std::to_string(shape.channels) + "x" + std::to_string(shape.height) + "x" +
           std::to_string(shape.width);
}

std::string toString(const Layer& layer) {
    std::string text;
    const auto sized = [&](const char* name, std::int64_t size) {
        text = name;
        text += std::to_string(size);
    };
    const auto option = [&](char letter, std::int64_t value) {
        text += letter;
        text += std::to_string(value);
    };
    switch (layer.op) {
    case Op::Conv:
        sized("conv", layer.size);
        option('k', layer.kernel);
        if (layer.stride != 1)
            option('s', layer.stride);
        if (layer.padding)
            option('p', layer.padding);
        return text;
    case Op::MaxPool:
    case Op::AvgPool:
        sized(layer.op == Op::MaxPool ? "maxpool" : "avgpool", layer.kernel);
        if (layer.stride != layer.kernel)
            option('s', layer.stride);
        return text;
    case Op::Relu:
        return "relu";
    case Op::Tanh:
        return "tanh";
    case Op::Sigmoid:
        return "sigmoid";
    case Op::Gelu:
        return "gelu";
    case Op::Dropout:
    case Op::Dropout2d:
        text = layer.op == Op::Dropout ? "dropout" : "dropout2d";
        if (layer.p >= 0)
            text += probabilityText(layer.p);
        return text;
    case Op::Flatten:
        return "flatten";
    case Op::Fc:
        sized("fc", layer.size);
        return text;
    }
    return "?";
}

std::vector<LayerInfo> describeLayers(const TensorShape& input, const std::vector<Layer>& layers) {
    std::vector<LayerInfo> infos;
    TensorShape shape = input;
    std::int64_t parameters = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        LayerInfo info;
        info.layer = layers[i];
        info.text = toString(layers[i]);
        apply(shape, i, info);
        parameters += info.weights + info.biases;
        if (parameters > limits::kMaxParameters)
            badLayer(i, info.text,
                     "brings the network to " + std::to_string(parameters) +
                         " parameters, more than the limit of " +
                         std::to_string(limits::kMaxParameters));
        shape = info.out;
        infos.push_back(std::move(info));
    }
    if (layers.empty() || layers.back().op != Op::Fc)
        throw InputError("the network must end with fcN, N the number of classes (e.g. fc10): "
                         "its output is the logits of a softmax cross-entropy");
    if (layers.back().size < 2)
        throw InputError("the last layer's width is the number of classes and must be at least 2");
    return infos;
}

std::int64_t parameterCount(const std::vector<LayerInfo>& layers) {
    std::int64_t total = 0;
    for (const LayerInfo& info : layers)
        total += info.weights + info.biases;
    return total;
}

} // namespace hwl
