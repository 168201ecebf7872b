#include "config/preflight.h"

#include "model/model.h"
#include "util/errors.h"

#include <filesystem>
#include <optional>

namespace hwl {

namespace {
void checkFiles(const DatasetSpec& data, std::vector<ConfigIssue>& issues) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string path = data.path.string();
    const bool exists = fs::exists(data.path, ec);
    if (data.kind == DatasetSpec::Kind::Csv || data.kind == DatasetSpec::Kind::Libsvm) {
        if (!exists)
            issues.push_back({"dataset", "file not found: " + path});
        else if (!fs::is_regular_file(data.path, ec))
            issues.push_back({"dataset", "not a file: " + path});
    } else if (data.kind == DatasetSpec::Kind::Idx) {
        if (!exists)
            issues.push_back({"dataset", "folder not found: " + path});
        else if (!fs::is_directory(data.path, ec))
            issues.push_back({"dataset", "not a folder: " + path +
                                             " (choose the folder holding the IDX files)"});
    } else if (data.kind == DatasetSpec::Kind::FashionMnist && !fashionMnistAvailable()) {
        issues.push_back({"dataset", "Fashion-MNIST is not installed (apt-get install "
                                     "dataset-fashion-mnist): choose another source"});
    }
}
} // namespace

std::vector<ConfigIssue> checkBeforeLoading(const ExperimentConfig& config) {
    std::vector<ConfigIssue> issues;
    std::optional<DatasetSpec> data;
    std::optional<ModelSpec> modelSpec;
    try {
        data = config.datasetSpec();
    } catch (const InputError&) {
    }
    try {
        modelSpec = config.modelSpec();
    } catch (const InputError&) {
    }
    if (!data)
        return issues;
    checkFiles(*data, issues);
    // The files' headers, once they are there: a model that does not fit a
    // CSV's features or an IDX folder's pixels shows before Start.
    DatasetShape shape = shapeBeforeLoading(*data);
    if (issues.empty()) {
        try {
            shape = peekDatasetShape(*data);
        } catch (const InputError& e) {
            issues.push_back({"dataset", e.what()});
        }
    }
    if (modelSpec)
        if (const auto why = makeModel(*modelSpec)->incompatibility(shape); !why.empty())
            issues.push_back({"model", why});
    return issues;
}

} // namespace hwl
