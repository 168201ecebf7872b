#pragma once
// The experiment's data and model as every run builds them, in the window's
// or command line's process and in each MPI rank alike: the dataset loaded
// and split, refused when it leaves no training rows, normalised as
// --normalize says (data/normalize.h), and the model checked against it.
#include "config/experimentconfig.h"
#include "data/dataset.h"
#include "data/normalize.h"
#include "model/model.h"

namespace hwl {

/// Loads `config`'s dataset and applies its --normalize to both splits,
/// with the statistics of the training split (returned in `applied`).
/// InputError for bad data, a split without training rows or a
/// normalisation the data cannot take.
DatasetSplit loadTrainingData(const ExperimentConfig& config, Normalization& applied);

/// InputError naming the model and dataset when `model` cannot train on `data`.
void checkModelFits(const Model& model, const DatasetSplit& data, const ExperimentConfig& config);

} // namespace hwl
