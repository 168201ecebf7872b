#include "io/onnxexport.h"

#include "io/atomicfile.h"
#include "io/onnxgraph.h"
#include "io/weightsio.h"
#include "model/net.h"
#include "util/errors.h"
#include "util/limits.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace hwl {

namespace {

constexpr const char* kBatch = "batch";
constexpr detail::WriteTarget kOnnxFile{"ONNX file", " (choose a writable --out directory)"};

std::vector<TensorRef> initializers(OnnxGraph& g, const Model& model, const float* params) {
    const std::vector<TensorRef> tensors = tensorRefs(model.layout(), params);
    for (const TensorRef& t : tensors)
        g.initializer(t);
    return tensors;
}

/// A Linear layer: y = x W^T + b (Gemm with transB, as torch.onnx writes nn.Linear).
void linear(OnnxGraph& g, const std::string& name, const std::string& x, const TensorRef& weight,
            const TensorRef& bias, const std::string& y) {
    g.node("Gemm", name, {x, weight.name, bias.name}, {y}, {OnnxAttribute::integer("transB", 1)});
}

const char* activationOp(Activation a) {
    switch (a) {
    case Activation::Relu:
        return "Relu";
    case Activation::Tanh:
        return "Tanh";
    case Activation::Sigmoid:
        return "Sigmoid";
    case Activation::Gelu:
        break;
    }
    throw std::invalid_argument("unknown activation");
}

/// --normalize's x' = (x - mean) / std on the graph's input "input" of
/// `features` (its shape less the batch), as the engine applies it before
/// training: a Sub and a Div over initializers of shape [1] (one mean and
/// std) or [features...] (one per feature). Returns the value the first
/// layer reads: "input" itself when `n` does not apply.
std::string normalizedInput(OnnxGraph& g, const Normalization& n,
                            const std::vector<std::int64_t>& features) {
    if (!n.applies())
        return "input";
    std::int64_t count = 1;
    for (const std::int64_t d : features)
        count *= d;
    if (n.mean.size() != n.stddev.size() ||
        (n.mean.size() != 1 && std::int64_t(n.mean.size()) != count))
        throw std::invalid_argument("a normalisation of " + std::to_string(n.mean.size()) +
                                    " values for an input of " + std::to_string(count) +
                                    " features");
    // Broadcast against [batch, features...]; OpenCV 4.6 takes a per-feature
    // constant of the features' own shape, not one with a leading 1.
    const std::vector<std::int64_t> shape =
        n.mean.size() == 1 ? std::vector<std::int64_t>{1} : features;
    g.initializer({"normalize_mean", shape, n.mean.data()});
    g.initializer({"normalize_std", shape, n.stddev.data()});
    g.node("Sub", "normalize_sub", {"input", "normalize_mean"}, {"input_centred"});
    g.node("Div", "normalize_div", {"input_centred", "normalize_std"}, {"input_normalized"});
    return "input_normalized";
}

/// nn.Sequential(Linear, act, Linear, ...): node and value names are the
/// Sequential's indices, the last Linear's output "logits".
void mlpGraph(OnnxGraph& g, const Model& model, const float* params, const Normalization& n) {
    const std::vector<TensorRef> t = initializers(g, model, params);
    const ModelSpec& spec = model.spec();
    g.input("input", OnnxType::Float, {kBatch, spec.layers.front()});
    std::string x = normalizedInput(g, n, {spec.layers.front()});
    const std::size_t layers = t.size() / 2;
    for (std::size_t l = 0; l < layers; ++l) {
        const std::string index = std::to_string(2 * l);
        const bool last = l + 1 == layers;
        const std::string y = last ? "logits" : index;
        linear(g, index, x, t[2 * l], t[2 * l + 1], y);
        if (last)
            break;
        x = std::to_string(2 * l + 1);
        g.node(activationOp(spec.activation), x, {y}, {x});
    }
    g.output("logits", OnnxType::Float, {kBatch, spec.layers.back()});
}

/// x * Phi(x), PyTorch's exact GELU, as opset 13 spells it (its Gelu op
/// came in opset 20): x * 0.5 * (1 + Erf(x / sqrt(2))), over the constants
/// of geluConstants().
void gelu(OnnxGraph& g, const std::string& name, const std::string& x, const std::string& y) {
    g.node("Div", name + "_scaled", {x, "gelu_sqrt2"}, {name + "_scaled"});
    g.node("Erf", name + "_erf", {name + "_scaled"}, {name + "_erf"});
    g.node("Add", name + "_cdf2", {name + "_erf", "gelu_one"}, {name + "_cdf2"});
    g.node("Mul", name + "_x_cdf2", {x, name + "_cdf2"}, {name + "_x_cdf2"});
    g.node("Mul", name, {name + "_x_cdf2", "gelu_half"}, {y});
}

void geluConstants(OnnxGraph& g) {
    g.constantFloat("gelu_sqrt2", float(M_SQRT2));
    g.constantFloat("gelu_one", 1.0f);
    g.constantFloat("gelu_half", 0.5f);
}

/// The layer list in eval(), as torch.onnx writes the nn.Sequential of the
/// same layers: dropout is the identity, so it is not in the graph. Node and
/// value names are the Sequential's indices (cnn:mnist: its tensors' names
/// at its conv and fc layers), the last layer's output "logits".
void netGraph(OnnxGraph& g, const Net& model, const float* params, const Normalization& n) {
    const std::vector<TensorRef> t = initializers(g, model, params);
    const ModelSpec& spec = model.spec();
    const TensorShape& in = spec.input;
    const std::vector<std::int64_t> features =
        in.image() ? std::vector<std::int64_t>{in.channels, in.height, in.width}
                   : std::vector<std::int64_t>{in.channels};
    std::vector<OnnxDim> shape{kBatch};
    shape.insert(shape.end(), features.begin(), features.end());
    g.input("input", OnnxType::Float, shape);
    std::string x = normalizedInput(g, n, features);
    std::size_t tensor = 0;
    const auto& layers = model.layers();
    for (const auto& placed : layers)
        if (placed.info.layer.op == Layer::Op::Gelu) {
            geluConstants(g);
            break;
        }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Layer& layer = layers[i].info.layer;
        if (layer.isDropout())
            continue;
        const std::string name = layer.hasParameters() || spec.kind != ModelSpec::Kind::Cnn
                                     ? tensorPrefix(spec, i)
                                     : toString(layer) + "_" + std::to_string(i);
        const std::string y = i + 1 == layers.size() ? "logits" : name;
        const std::vector<OnnxAttribute> window{
            OnnxAttribute::integers("kernel_shape", {layer.kernel, layer.kernel}),
            OnnxAttribute::integers("strides", {layer.stride, layer.stride})};
        switch (layer.op) {
        case Layer::Op::Conv: {
            std::vector<OnnxAttribute> conv = window;
            conv.push_back(OnnxAttribute::integers(
                "pads", {layer.padding, layer.padding, layer.padding, layer.padding}));
            g.node("Conv", name, {x, t[tensor].name, t[tensor + 1].name}, {y}, conv);
            tensor += 2;
            break;
        }
        case Layer::Op::MaxPool:
        case Layer::Op::AvgPool:
            g.node(layer.op == Layer::Op::MaxPool ? "MaxPool" : "AveragePool", name, {x}, {y},
                   window);
            break;
        case Layer::Op::Relu:
        case Layer::Op::Tanh:
        case Layer::Op::Sigmoid:
            g.node(layer.op == Layer::Op::Relu   ? "Relu"
                   : layer.op == Layer::Op::Tanh ? "Tanh"
                                                 : "Sigmoid",
                   name, {x}, {y});
            break;
        case Layer::Op::Gelu:
            gelu(g, name, x, y);
            break;
        case Layer::Op::Flatten:
            g.node("Flatten", name, {x}, {y}, {OnnxAttribute::integer("axis", 1)});
            break;
        case Layer::Op::Fc:
            linear(g, name, x, t[tensor], t[tensor + 1], y);
            tensor += 2;
            break;
        default:
            break;
        }
        x = y;
    }
    g.output("logits", OnnxType::Float, {kBatch, spec.classes});
}

/// The bag's weighted mean as the engine computes it (cpu::bagMean): bag r
/// is sum_k weights[k] * table[indices[k]] / (offsets[r+1] - offsets[r])
/// over k in [offsets[r], offsets[r+1]), zeros when empty. ONNX has no
/// segment sum before opset 16's reducing scatter, so the tokens are
/// assigned to bags by a [bags, tokens] mask, and a MatMul sums them.
void embeddingBagGraph(OnnxGraph& g, const Model& model, const float* params) {
    const std::vector<TensorRef> t = initializers(g, model, params);
    const ModelSpec& spec = model.spec();
    g.input("indices", OnnxType::Int64, {"tokens"});
    g.input("offsets", OnnxType::Int64, {"bags_plus_1"});
    g.input("weights", OnnxType::Float, {"tokens"});
    g.constantInts("zero", {0});
    g.constantInts("one", {1});
    g.constantInts("minus_one", {-1});
    g.constantInts("end", {LLONG_MAX});
    g.constantInts("zero_scalar", {0}, true);
    g.constantInts("one_scalar", {1}, true);
    g.constantFloat("one_float", 1.0f);
    // starts[r] = offsets[r], ends[r] = offsets[r + 1]
    g.node("Slice", "starts", {"offsets", "zero", "minus_one"}, {"starts"});
    g.node("Slice", "ends", {"offsets", "one", "end"}, {"ends"});
    // in_bag[r][k] = starts[r] <= k < ends[r]
    g.node("Shape", "token_count", {"indices"}, {"token_count"});
    g.node("Squeeze", "token_count_scalar", {"token_count"}, {"token_count_scalar"});
    g.node("Range", "positions", {"zero_scalar", "token_count_scalar", "one_scalar"},
           {"positions"});
    g.node("Unsqueeze", "starts_column", {"starts", "one"}, {"starts_column"});
    g.node("Unsqueeze", "ends_column", {"ends", "one"}, {"ends_column"});
    g.node("GreaterOrEqual", "after_start", {"positions", "starts_column"}, {"after_start"});
    g.node("Less", "before_end", {"positions", "ends_column"}, {"before_end"});
    g.node("And", "in_bag", {"after_start", "before_end"}, {"in_bag"});
    g.node("Cast", "mask", {"in_bag"}, {"mask"},
           {OnnxAttribute::integer("to", std::int64_t(OnnxType::Float))});
    // lengths [bags, 1], at least 1 so that an empty bag's zero sum stays zero
    g.node("Sub", "lengths", {"ends", "starts"}, {"lengths"});
    g.node("Cast", "lengths_float", {"lengths"}, {"lengths_float"},
           {OnnxAttribute::integer("to", std::int64_t(OnnxType::Float))});
    g.node("Max", "divisors", {"lengths_float", "one_float"}, {"divisors"});
    g.node("Unsqueeze", "divisors_column", {"divisors", "one"}, {"divisors_column"});
    // weighted rows [tokens, D], their sums per bag, the mean
    g.node("Gather", "rows", {t[0].name, "indices"}, {"rows"}, {OnnxAttribute::integer("axis", 0)});
    g.node("Unsqueeze", "weights_column", {"weights", "one"}, {"weights_column"});
    g.node("Mul", "weighted_rows", {"rows", "weights_column"}, {"weighted_rows"});
    g.node("MatMul", "bag_sums", {"mask", "weighted_rows"}, {"bag_sums"});
    g.node("Div", "bags", {"bag_sums", "divisors_column"}, {"bags"});
    linear(g, "fc", "bags", t[1], t[2], "logits");
    g.output("logits", OnnxType::Float, {"bags", spec.classes});
}

std::string mib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f MiB", double(bytes) / (1 << 20));
    return text;
}

} // namespace

std::string onnxModel(const Model& model, const float* params,
                      const std::map<std::string, std::string>& metadata,
                      const Normalization& input) {
    if (model.layout().total() > limits::kMaxOnnxParameters)
        throw InputError("an ONNX file holds less than 2 GiB (protobuf's limit on a message), "
                         "but this model's parameters take " +
                         mib(std::uint64_t(model.layout().total()) * sizeof(float)) +
                         ": export safetensors or .npz instead");
    OnnxGraph g;
    switch (model.spec().kind) {
    case ModelSpec::Kind::Mlp:
        mlpGraph(g, model, params, input);
        break;
    case ModelSpec::Kind::Cnn:
    case ModelSpec::Kind::Net:
        netGraph(g, dynamic_cast<const Net&>(model), params, input);
        break;
    case ModelSpec::Kind::EmbeddingBag:
        if (input.applies())
            throw std::invalid_argument("an embedding bag's sparse inputs are never normalised");
        embeddingBagGraph(g, model, params);
        break;
    }
    OnnxModelInfo info;
    info.irVersion = kOnnxIrVersion;
    info.opset = kOnnxOpset;
    info.producerName = "hogwild-lab";
    info.producerVersion = HWL_VERSION;
    info.graphName = toString(model.spec());
    info.metadata = metadata;
    return g.modelBytes(info);
}

void writeOnnx(const std::filesystem::path& file, const Model& model, const float* params,
               const std::map<std::string, std::string>& metadata, const Normalization& input) {
    const std::string bytes = onnxModel(model, params, metadata, input);
    detail::writePartsAtomically(file, {bytes}, kOnnxFile);
}

} // namespace hwl
