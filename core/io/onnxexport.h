#pragma once
// A model and its parameters as an ONNX file: the whole network at inference
// (graph and weights), which ONNX runtimes run (docs/file-formats.md#modelonnx).
// One graph per model kind of model/modelspec.h, computing what the engine's
// forward pass computes when it evaluates (dropout is the identity):
//   mlp           input [batch, IN] float -> Gemm, activation, ... -> logits [batch, OUT]
//   cnn:mnist     input [batch, 1, 28, 28] float -> Conv, MaxPool, Relu, Conv, MaxPool,
//                 Relu, Flatten, Gemm, Relu, Gemm -> logits [batch, 10]
//   embedding-bag indices [tokens] int64, offsets [bags + 1] int64 (CSR: bag r holds
//                 indices[offsets[r] .. offsets[r + 1])), weights [tokens] float ->
//                 the weighted mean of the bag's embeddings (sum / the bag's length;
//                 an empty bag gives zeros), Gemm -> logits [bags, C]
// With an input normalisation (--normalize), the dense graphs start with it:
//   input (raw features) -> Sub normalize_mean -> Div normalize_std -> the first layer
// so that the file runs on the features as the dataset holds them; an empty
// Normalization leaves it out (inputs normalised by the caller).
// The initializers are the model's tensors, named as its ParamLayout (PyTorch's
// state_dict names, as the safetensors export). The logits are what the
// engine's softmax cross-entropy and accuracy read.
#include "data/normalize.h"
#include "model/model.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace hwl {

/// The ONNX versions the file is written for: IR version 7 with opset 13 of
/// the default domain (onnx 1.8's pair), which onnx 1.12's checker and
/// OpenCV 4.6's importer (Debian 12) both take.
inline constexpr std::int64_t kOnnxIrVersion = 7;
inline constexpr std::int64_t kOnnxOpset = 13;

/// The serialized ModelProto of `model` with `params` (its layout().total()
/// floats); `metadata` becomes its metadata_props; `input`, when it
/// applies, is put in the graph before the first layer (Sub and Div, its
/// mean and std as initializers "normalize_mean" and "normalize_std": one
/// value, or one per feature in the input's shape). InputError when the
/// parameters pass protobuf's 2 GiB limit on a message; std::invalid_argument
/// when `input` has neither one value nor one per feature, or the model
/// takes sparse inputs (sparse data is never normalised).
std::string onnxModel(const Model& model, const float* params,
                      const std::map<std::string, std::string>& metadata = {},
                      const Normalization& input = {});

/// Writes onnxModel() to `file` through a temporary file and a rename;
/// InputError naming the path and the reason when it cannot.
void writeOnnx(const std::filesystem::path& file, const Model& model, const float* params,
               const std::map<std::string, std::string>& metadata = {},
               const Normalization& input = {});

} // namespace hwl
