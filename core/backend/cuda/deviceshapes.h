#pragma once
// The engine's types as the CUDA module takes them (cuda/cuda.h: plain C++):
// a dataset view, the SGD settings, the MLP's and the embedding bag's layout.
// Used by the CUDA backend and the GPU modes; no CUDA header, no module load.
#include "cuda/cuda.h"
#include "data/dataset.h"
#include "model/model.h"
#include "optim/sgd.h"

namespace hwl {

/// Rows as the CUDA module takes them (pointers into `v`, which must outlive it).
cuda::HostData hostData(const DatasetView& v);
cuda::Sgd deviceSgd(const SgdSettings& s);
/// The MLP's layers' widths and offsets; InputError naming `who` for another model.
cuda::MlpShape mlpShape(const Model& model,
                        const char* who = "data-parallel on cuda trains mlp models (the "
                                          "embedding bag runs on the GPU in mode gpu-hogwild)");
/// The embedding bag's layout (model must be one).
cuda::BagShape bagShape(const Model& model);
/// The CNN's sizes, offsets and dropout (model must be one: cnn:mnist).
cuda::CnnShape cnnShape(const Model& model);

} // namespace hwl
