#pragma once
// Checks that can be made before a run loads anything, beyond validate():
// the dataset's files and folders exist, Fashion-MNIST is installed when
// asked for, and the model fits a dataset whose shape is known without
// loading it (synthetic kinds and Fashion-MNIST) or from its files' headers
// (peekDatasetShape: a CSV's features, an IDX folder's pixels; cached, so
// cheap to repeat). The window's form shows them at their fields as the user
// types. Part of the engine's public API.
#include "config/experimentconfig.h"

#include <vector>

namespace hwl {

/// Every problem found, each naming its field ("dataset", "model"). Fields
/// that do not parse are skipped (validate() reports them).
std::vector<ConfigIssue> checkBeforeLoading(const ExperimentConfig& config);

} // namespace hwl
