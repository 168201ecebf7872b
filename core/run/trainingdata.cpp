#include "run/trainingdata.h"

#include "data/datasources.h"
#include "util/errors.h"

namespace hwl {

DatasetSplit loadTrainingData(const ExperimentConfig& config, Normalization& applied) {
    DatasetSplit data = loadDataset(config.datasetSpec(), config.testFraction, config.seed);
    if (data.train.rows == 0)
        throw InputError("dataset: \"" + config.dataset + "\" has no training rows");
    applied = normalizeSplit(data, config.normalize);
    return data;
}

void checkModelFits(const Model& model, const DatasetSplit& data, const ExperimentConfig& config) {
    if (const auto why = model.incompatibility(data.train.view().shape()); !why.empty())
        throw InputError("model: " + config.model + " does not fit dataset " + config.dataset +
                         ": " + why);
}

} // namespace hwl
