#pragma once
// In-memory datasets: dense or sparse features and integer labels.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// What a model must know of a dataset to tell whether it fits
/// (Model::incompatibility). Before a file is loaded only part of it is
/// known: a negative dim or numClasses means "not known yet".
struct DatasetShape {
    std::int64_t dim = -1;        ///< features per row, or the vocabulary of a sparse set
    std::int32_t numClasses = -1; ///< labels are in [0, numClasses)
    bool sparse = false;
};

/// Read-only view of a dataset's arrays, wherever they live (heap, or a
/// shared-memory segment in process modes). Workers only ever see views.
struct DatasetView {
    std::int64_t rows = 0;
    std::int64_t dim = 0;                  ///< features per row (dense) or vocabulary size (sparse)
    std::int32_t numClasses = 0;           ///< labels are in [0, numClasses)
    const float* dense = nullptr;          ///< rows x dim, row-major; null when sparse
    const std::int64_t* offsets = nullptr; ///< rows + 1 entries (sparse CSR)
    const std::int32_t* indices = nullptr; ///< token / feature ids, each in [0, dim)
    const float* values = nullptr;         ///< one per index
    const std::int32_t* labels = nullptr;  ///< rows entries
    bool isSparse() const { return dense == nullptr; }
    DatasetShape shape() const { return {dim, numClasses, isSparse()}; }
};

/// A dataset that owns its arrays. Exactly one of `dense` (rows x dim,
/// row-major) or the CSR triple (`offsets`, `indices`, `values`) is filled.
struct Dataset {
    std::string description; ///< human-readable: "fashion-mnist train (60000 x 784)"
    std::int64_t rows = 0;
    std::int64_t dim = 0;
    std::int32_t numClasses = 0;
    std::vector<float> dense;
    std::vector<std::int64_t> offsets;
    std::vector<std::int32_t> indices;
    std::vector<float> values;
    std::vector<std::int32_t> labels;

    bool isSparse() const { return dense.empty() && !offsets.empty(); }
    DatasetView view() const {
        DatasetView v;
        v.rows = rows;
        v.dim = dim;
        v.numClasses = numClasses;
        if (isSparse()) {
            v.offsets = offsets.data();
            v.indices = indices.data();
            v.values = values.data();
        } else {
            v.dense = dense.data();
        }
        v.labels = labels.data();
        return v;
    }
};

/// Train and test parts of one data source. `test` may be empty (rows == 0).
struct DatasetSplit {
    Dataset train;
    Dataset test;
};

} // namespace hwl
