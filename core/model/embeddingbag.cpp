#include "model/embeddingbag.h"

#include "util/random.h"

#include <cmath>

namespace hwl {

EmbeddingBag::EmbeddingBag(const ModelSpec& spec)
    : vocab_(spec.vocab), dim_(spec.dim), classes_(spec.classes) {
    spec_ = spec;
    table_ = layout_.add("embedding.weight", {vocab_, dim_});
    weight_ = layout_.add("fc.weight", {classes_, dim_});
    bias_ = layout_.add("fc.bias", {classes_});
}

void EmbeddingBag::initialize(float* params, std::uint64_t seed) const {
    Rng rng(seed);
    for (std::int64_t i = 0; i < vocab_ * dim_; ++i)
        params[table_ + i] = float(rng.normal());
    const float bound = 1.0f / std::sqrt(float(dim_));
    for (std::int64_t i = 0; i < classes_ * dim_; ++i)
        params[weight_ + i] = rng.uniform(-bound, bound);
    for (std::int64_t i = 0; i < classes_; ++i)
        params[bias_ + i] = rng.uniform(-bound, bound);
}

std::string EmbeddingBag::incompatibility(const DatasetShape& data) const {
    if (!data.sparse)
        return "an embedding bag needs a sparse dataset (sparse-bow or libsvm), but this one is "
               "dense: use an mlp model instead";
    if (data.dim > vocab_)
        return "the dataset's vocabulary has " + std::to_string(data.dim) +
               " tokens but the model's has " + std::to_string(vocab_) + ": make V at least " +
               std::to_string(data.dim);
    if (data.numClasses > classes_)
        return "the dataset has " + std::to_string(data.numClasses) +
               " classes but the model only " + std::to_string(classes_) + ": make C at least " +
               std::to_string(data.numClasses);
    return {};
}

double EmbeddingBag::flopsPerSample() const {
    // Dense part only (the bag sum depends on the row's length).
    return 6.0 * double(dim_) * double(classes_);
}

} // namespace hwl
