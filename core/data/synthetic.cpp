// Synthetic datasets: random, teacher and sparse-bow. Rows are generated in
// fixed blocks, each from its own Rng stream derived from (seed, block), so
// the result is the same whatever the number of threads.
#include "data/datasourceio.h"
#include "data/datasources.h"
#include "util/cancel.h"
#include "util/errors.h"
#include "util/parallel.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hwl {

namespace {

constexpr std::int64_t kBlockRows = 1024;
// Stream ids so the generators never share random numbers.
constexpr std::uint64_t kRandomStream = 0x52414E444F4D;     // "RANDOM"
constexpr std::uint64_t kTeacherStream = 0x54454143484552;  // "TEACHER"
constexpr std::uint64_t kTeacherWeights = 0x57454947485453; // "WEIGHTS"
constexpr std::uint64_t kBowStream = 0x424F57;              // "BOW"
constexpr std::uint64_t kBowClasses = 0x434C41535345;       // "CLASSE"
// At most this many multiply-adds for labelling a teacher dataset.
constexpr double kMaxTeacherWork = 1e12;

void checkShape(const char* kind, std::int64_t rows, std::int64_t dim, std::int32_t classes,
                const char* dimName) {
    const std::string k = kind;
    if (rows < 1)
        throw InputError(k + " dataset: rows must be at least 1 (got " + std::to_string(rows) +
                         ")");
    if (dim < 1)
        throw InputError(k + " dataset: " + dimName + " must be at least 1 (got " +
                         std::to_string(dim) + ")");
    if (classes < 2)
        throw InputError(k + " dataset: classes must be at least 2 (got " +
                         std::to_string(classes) + ")");
}

std::string shapeName(const char* kind, std::int64_t rows, std::int64_t dim, std::int32_t classes) {
    return std::string(kind) + ":" + std::to_string(rows) + "x" + std::to_string(dim) + ":" +
           std::to_string(classes);
}

/// Calls fn(firstRow, endRow, rng) for every block of rows, in parallel.
template <typename Fn>
void forEachBlock(std::int64_t rows, std::uint64_t seed, std::uint64_t stream, Fn&& fn) {
    const std::int64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
    const CancelScope* cancel = currentCancelScope(); // the helper threads poll the caller's
    parallelChunks(blocks, [&](std::int64_t b) {
        throwIfCancelled(cancel);
        Rng rng(Rng::derive(seed, std::uint64_t(b), stream));
        const std::int64_t first = b * kBlockRows;
        fn(first, std::min(rows, first + kBlockRows), rng);
    });
}

Dataset denseShell(std::int64_t rows, std::int64_t dim, std::int32_t classes) {
    Dataset ds;
    ds.rows = rows;
    ds.dim = dim;
    ds.numClasses = classes;
    ds.dense.resize(std::size_t(rows * dim));
    ds.labels.resize(std::size_t(rows));
    return ds;
}

} // namespace

Dataset makeRandom(std::int64_t rows, std::int64_t dim, std::int32_t classes, std::uint64_t seed) {
    checkShape("random", rows, dim, classes, "dim");
    const std::string name = shapeName("random", rows, dim, classes);
    detail::checkDatasetBytes(double(rows) * double(dim) * 4.0 + double(rows) * 4.0, name,
                              "use fewer rows or a smaller dim");
    Dataset ds = denseShell(rows, dim, classes);
    forEachBlock(rows, seed, kRandomStream, [&](std::int64_t first, std::int64_t end, Rng& rng) {
        float* x = ds.dense.data() + first * dim;
        for (std::int64_t i = 0; i < (end - first) * dim; ++i)
            x[i] = float(rng.normal());
        for (std::int64_t r = first; r < end; ++r)
            ds.labels[std::size_t(r)] = std::int32_t(rng.below(std::uint64_t(classes)));
    });
    ds.description = detail::describe(name, ds);
    return ds;
}

Dataset makeTeacher(std::int64_t rows, std::int64_t dim, std::int32_t classes, std::int64_t hidden,
                    std::uint64_t seed) {
    checkShape("teacher", rows, dim, classes, "dim");
    if (hidden < 1)
        throw InputError("teacher dataset: hidden must be at least 1 (got " +
                         std::to_string(hidden) + ")");
    const std::string name =
        shapeName("teacher", rows, dim, classes) + ":" + std::to_string(hidden);
    detail::checkDatasetBytes(double(rows) * double(dim) * 4.0 + double(rows) * 4.0 +
                                  double(dim + classes) * double(hidden) * 4.0,
                              name, "use fewer rows, a smaller dim or a smaller hidden width");
    const double work = double(rows) * double(hidden) * double(dim + classes);
    if (work > kMaxTeacherWork)
        throw InputError(name + " would need " + std::to_string(std::int64_t(work / 1e9)) +
                         " billion multiply-adds to label, more than the " +
                         std::to_string(std::int64_t(kMaxTeacherWork / 1e9)) +
                         " billion this generator allows; use fewer rows, a smaller dim or a "
                         "smaller hidden width");

    // The teacher: W1 (stored transposed, dim x hidden) ~ N(0, 1/dim),
    // W2 (classes x hidden) ~ N(0, 1/hidden).
    Rng wrng(Rng::derive(seed, kTeacherWeights));
    std::vector<float> w1t(std::size_t(dim * hidden));
    const double s1 = 1.0 / std::sqrt(double(dim));
    for (float& w : w1t)
        w = float(wrng.normal() * s1);
    std::vector<float> w2(std::size_t(std::int64_t(classes) * hidden));
    const double s2 = 1.0 / std::sqrt(double(hidden));
    for (float& w : w2)
        w = float(wrng.normal() * s2);

    Dataset ds = denseShell(rows, dim, classes);
    forEachBlock(rows, seed, kTeacherStream, [&](std::int64_t first, std::int64_t end, Rng& rng) {
        std::vector<float> h(static_cast<std::size_t>(hidden));
        for (std::int64_t r = first; r < end; ++r) {
            float* x = ds.dense.data() + r * dim;
            for (std::int64_t k = 0; k < dim; ++k)
                x[k] = float(rng.normal());
            std::fill(h.begin(), h.end(), 0.0f);
            for (std::int64_t k = 0; k < dim; ++k) {
                const float xk = x[k];
                const float* w = w1t.data() + k * hidden;
                for (std::int64_t j = 0; j < hidden; ++j)
                    h[std::size_t(j)] += xk * w[j];
            }
            for (float& v : h)
                v = std::tanh(v);
            std::int32_t best = 0;
            float bestLogit = 0.0f;
            for (std::int32_t c = 0; c < classes; ++c) {
                const float* w = w2.data() + std::int64_t(c) * hidden;
                float logit = 0.0f;
                for (std::int64_t j = 0; j < hidden; ++j)
                    logit += w[j] * h[std::size_t(j)];
                if (c == 0 || logit > bestLogit) {
                    best = c;
                    bestLogit = logit;
                }
            }
            ds.labels[std::size_t(r)] = best;
        }
    });
    ds.description = detail::describe(name, ds);
    return ds;
}

Dataset makeSparseBow(std::int64_t rows, std::int64_t vocab, std::int32_t classes,
                      std::int64_t tokens, std::uint64_t seed) {
    checkShape("sparse-bow", rows, vocab, classes, "vocabulary");
    if (tokens < 1)
        throw InputError("sparse-bow dataset: tokens must be at least 1 (got " +
                         std::to_string(tokens) + ")");
    if (vocab > std::int64_t(INT32_MAX))
        throw InputError("sparse-bow dataset: the vocabulary must be at most " +
                         std::to_string(INT32_MAX) + " (got " + std::to_string(vocab) + ")");
    const std::string name =
        shapeName("sparse-bow", rows, vocab, classes) + ":" + std::to_string(tokens);
    const double nnz = double(rows) * double(tokens);
    detail::checkDatasetBytes(nnz * 8.0 + double(rows) * 12.0 + 8.0, name,
                              "use fewer rows or fewer tokens per row");

    // Each class prefers its own ~5% of the vocabulary: preferred token r of
    // class c is a hash of (seed, c, r), so nothing per class is stored.
    const std::uint64_t preferred = std::uint64_t(std::max<std::int64_t>(1, vocab / 20));
    constexpr double kPreferredShare = 0.8;
    const auto preferredToken = [&](std::int32_t c, std::uint64_t r) {
        const std::uint64_t h = Rng::derive(Rng::derive(seed, std::uint64_t(c), kBowClasses), r);
        return std::int32_t((static_cast<detail::Uint128>(h) * std::uint64_t(vocab)) >> 64);
    };

    Dataset ds;
    ds.rows = rows;
    ds.dim = vocab;
    ds.numClasses = classes;
    ds.offsets.resize(std::size_t(rows + 1));
    ds.indices.resize(std::size_t(rows * tokens));
    ds.values.assign(std::size_t(rows * tokens), 1.0f);
    ds.labels.resize(std::size_t(rows));
    forEachBlock(rows, seed, kBowStream, [&](std::int64_t first, std::int64_t end, Rng& rng) {
        for (std::int64_t r = first; r < end; ++r) {
            const auto c = std::int32_t(rng.below(std::uint64_t(classes)));
            ds.labels[std::size_t(r)] = c;
            ds.offsets[std::size_t(r)] = r * tokens;
            std::int32_t* idx = ds.indices.data() + r * tokens;
            for (std::int64_t t = 0; t < tokens; ++t)
                idx[t] = rng.uniform() < kPreferredShare
                             ? preferredToken(c, rng.below(preferred))
                             : std::int32_t(rng.below(std::uint64_t(vocab)));
            std::sort(idx, idx + tokens);
        }
    });
    ds.offsets[std::size_t(rows)] = rows * tokens;
    ds.description = detail::describe(name, ds);
    return ds;
}

} // namespace hwl
