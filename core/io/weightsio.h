#pragma once
// Bridges a model's flat parameter buffer and weight files.
#include "io/tensorfile.h"
#include "model/paramlayout.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hwl {

/// One TensorRef per tensor of `layout`, viewing `params`.
std::vector<TensorRef> tensorRefs(const ParamLayout& layout, const float* params);

/// Reads a safetensors file into `params`. Every tensor of the layout must be
/// there with the same shape, and nothing else: otherwise InputError listing
/// each missing, unexpected or mis-shaped tensor, named as field `field` says.
void loadWeights(const std::filesystem::path& file, const ParamLayout& layout, float* params,
                 const std::string& field = "init");

} // namespace hwl
