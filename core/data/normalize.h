#pragma once
// Input normalisation (--normalize): x' = (x - mean) / std for every
// feature of a dense dataset, as torchvision's transforms.Normalize does in
// PyTorch's mnist example ((x - 0.1307) / 0.3081). The statistics are given
// or computed on the training split only (the test split is normalised with
// the training split's figures, never its own).
//   none          the features as loaded (the default)
//   global        one mean and one standard deviation over every feature
//                 of every training row
//   per-feature   a mean and a standard deviation per feature (column)
//   MEAN,STD      given, for every feature (e.g. 0.1307,0.3081)
// The standard deviation is the population one (divide by N); a feature
// that never varies keeps std 1, so it becomes 0 rather than a division by 0.
#include "data/dataset.h"

#include <string>
#include <vector>

namespace hwl {

/// What was applied: one mean and std (global or given), or one per feature.
struct Normalization {
    std::string setting = "none";    ///< the --normalize text it came from
    std::vector<float> mean, stddev; ///< empty for none; size 1 or the dataset's dim
    bool applies() const { return !mean.empty(); }
};

/// Why `setting` is not a --normalize value; empty when it is one.
std::string normalizeSettingProblem(const std::string& setting);

/// Why sparse data (`what`: its spec or description) takes no normalisation.
std::string sparseNormalizeRefusal(const std::string& what);

/// The statistics `setting` names for `train` (computed on its rows when
/// global or per-feature). InputError when the setting is malformed or the
/// data is sparse (a sparse bag of words would become dense).
Normalization normalizationFor(const std::string& setting, const Dataset& train);

/// Applies `n` to every row of `data` in place (nothing when !n.applies()).
void normalize(Dataset& data, const Normalization& n);

/// normalizationFor() on the split's training rows, applied to both parts.
Normalization normalizeSplit(DatasetSplit& split, const std::string& setting);

} // namespace hwl
