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
// The initializers are the model's tensors, named as its ParamLayout (PyTorch's
// state_dict names, as the safetensors export). The logits are what the
// engine's softmax cross-entropy and accuracy read.
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
/// floats); `metadata` becomes its metadata_props. InputError when the
/// parameters pass protobuf's 2 GiB limit on a message.
std::string onnxModel(const Model& model, const float* params,
                      const std::map<std::string, std::string>& metadata = {});

/// Writes onnxModel() to `file` through a temporary file and a rename;
/// InputError naming the path and the reason when it cannot.
void writeOnnx(const std::filesystem::path& file, const Model& model, const float* params,
               const std::map<std::string, std::string>& metadata = {});

} // namespace hwl
