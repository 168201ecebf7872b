#include "io/onnxexport.h"

#include "io/atomicfile.h"
#include "io/onnxgraph.h"
#include "io/weightsio.h"
#include "model/cnn.h"
#include "util/errors.h"
#include "util/limits.h"

#include <climits>
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
    }
    throw std::invalid_argument("unknown activation");
}

/// nn.Sequential(Linear, act, Linear, ...): node and value names are the
/// Sequential's indices, the last Linear's output "logits".
void mlpGraph(OnnxGraph& g, const Model& model, const float* params) {
    const std::vector<TensorRef> t = initializers(g, model, params);
    const ModelSpec& spec = model.spec();
    g.input("input", OnnxType::Float, {kBatch, spec.layers.front()});
    std::string x = "input";
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

/// PyTorch's mnist_hogwild Net in eval(): Dropout2d and dropout are the
/// identity, so they are not in the graph.
void cnnGraph(OnnxGraph& g, const Cnn& model, const float* params) {
    const std::vector<TensorRef> t = initializers(g, model, params);
    const Cnn::Shape& s = model.shape();
    g.input("input", OnnxType::Float, {kBatch, 1, s.side, s.side});
    const std::vector<OnnxAttribute> pool{OnnxAttribute::integers("kernel_shape", {2, 2}),
                                          OnnxAttribute::integers("strides", {2, 2})};
    const std::vector<OnnxAttribute> conv{
        OnnxAttribute::integers("kernel_shape", {s.kernel, s.kernel})};
    // x = relu(max_pool2d(conv1(x), 2)); x = relu(max_pool2d(conv2_drop(conv2(x)), 2))
    g.node("Conv", "conv1", {"input", t[0].name, t[1].name}, {"conv1"}, conv);
    g.node("MaxPool", "pool1", {"conv1"}, {"pool1"}, pool);
    g.node("Relu", "relu1", {"pool1"}, {"relu1"});
    g.node("Conv", "conv2", {"relu1", t[2].name, t[3].name}, {"conv2"}, conv);
    g.node("MaxPool", "pool2", {"conv2"}, {"pool2"}, pool);
    g.node("Relu", "relu2", {"pool2"}, {"relu2"});
    // x = x.view(-1, 320); x = relu(fc1(x)); dropout; fc2(x)
    g.node("Flatten", "flatten", {"relu2"}, {"flatten"}, {OnnxAttribute::integer("axis", 1)});
    linear(g, "fc1", "flatten", t[4], t[5], "fc1");
    g.node("Relu", "relu3", {"fc1"}, {"relu3"});
    linear(g, "fc2", "relu3", t[6], t[7], "logits");
    g.output("logits", OnnxType::Float, {kBatch, s.classes});
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
                      const std::map<std::string, std::string>& metadata) {
    if (model.layout().total() > limits::kMaxOnnxParameters)
        throw InputError("an ONNX file holds less than 2 GiB (protobuf's limit on a message), "
                         "but this model's parameters take " +
                         mib(std::uint64_t(model.layout().total()) * sizeof(float)) +
                         ": export safetensors or .npz instead");
    OnnxGraph g;
    switch (model.spec().kind) {
    case ModelSpec::Kind::Mlp:
        mlpGraph(g, model, params);
        break;
    case ModelSpec::Kind::Cnn:
        cnnGraph(g, dynamic_cast<const Cnn&>(model), params);
        break;
    case ModelSpec::Kind::EmbeddingBag:
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
               const std::map<std::string, std::string>& metadata) {
    const std::string bytes = onnxModel(model, params, metadata);
    detail::writePartsAtomically(file, {bytes}, kOnnxFile);
}

} // namespace hwl
