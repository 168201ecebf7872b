// The dispatch to the sources, and the train/test split.
// The sources themselves live in synthetic.cpp, idxreader.cpp, csvreader.cpp and
// libsvmreader.cpp.
#include "data/datasources.h"

#include "data/datasourceio.h"
#include "util/cancel.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/parallel.h"
#include "util/random.h"
#include "util/textutil.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace hwl {

namespace {

std::string describeSplitName(const std::string& description) {
    // "NAME (ROWS x DIM, ...)" -> "NAME"
    const std::size_t paren = description.rfind(" (");
    if (paren != std::string::npos && !description.empty() && description.back() == ')')
        return description.substr(0, paren);
    return description.empty() ? std::string("dataset") : description;
}

void checkTestFraction(double fraction) {
    if (!(fraction >= 0.0 && fraction < 1.0)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", fraction);
        throw InputError(std::string("test-fraction: ") + buf +
                         " is not valid: expected a number in [0, 1), e.g. 0.2; 0 keeps every "
                         "row for training");
    }
}

/// Dense rows `order[first..last)` of `all`, in that order.
Dataset gather(const Dataset& all, const std::vector<std::int64_t>& order, std::size_t first,
               std::size_t last) {
    Dataset out;
    out.rows = std::int64_t(last - first);
    out.dim = all.dim;
    out.numClasses = all.numClasses;
    out.labels.reserve(last - first);
    out.dense.resize((last - first) * std::size_t(all.dim));
    for (std::size_t i = first; i < last; ++i) {
        const auto r = std::size_t(order[i]);
        std::copy_n(all.dense.begin() + std::ptrdiff_t(r * std::size_t(all.dim)), all.dim,
                    out.dense.begin() + std::ptrdiff_t((i - first) * std::size_t(all.dim)));
        out.labels.push_back(all.labels[r]);
    }
    return out;
}

/// The CSR entries (indices or values) of rows `order[first..last)` of
/// `array`, whose rows `offsets` delimit, in that order.
template <class T>
std::vector<T> gatherEntries(const std::vector<T>& array, const std::vector<std::int64_t>& offsets,
                             const std::vector<std::int64_t>& order, std::size_t first,
                             std::size_t last) {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; ++i)
        n += std::size_t(offsets[std::size_t(order[i]) + 1] - offsets[std::size_t(order[i])]);
    std::vector<T> out;
    out.reserve(n);
    for (std::size_t i = first; i < last; ++i) {
        const auto r = std::size_t(order[i]);
        out.insert(out.end(), array.begin() + std::ptrdiff_t(offsets[r]),
                   array.begin() + std::ptrdiff_t(offsets[r + 1]));
    }
    return out;
}

/// Sparse `all` split into rows order[0..nTrain) (train) and the rest
/// (test), each in that order. One array at a time, freed in `all` once
/// both parts have theirs: memory peaks at the dataset and its largest
/// array, not at the dataset twice.
void splitCsr(Dataset& all, const std::vector<std::int64_t>& order, std::size_t nTrain,
              DatasetSplit& split) {
    const std::size_t ends[] = {0, nTrain, order.size()};
    Dataset* parts[] = {&split.train, &split.test};
    for (int p = 0; p < 2; ++p) {
        Dataset& part = *parts[p];
        part.rows = std::int64_t(ends[p + 1] - ends[p]);
        part.dim = all.dim;
        part.numClasses = all.numClasses;
        part.offsets.assign(1, 0);
        part.offsets.reserve(ends[p + 1] - ends[p] + 1);
        part.labels.reserve(ends[p + 1] - ends[p]);
        for (std::size_t i = ends[p]; i < ends[p + 1]; ++i) {
            const auto r = std::size_t(order[i]);
            part.offsets.push_back(part.offsets.back() + all.offsets[r + 1] - all.offsets[r]);
            part.labels.push_back(all.labels[r]);
        }
    }
    for (int p = 0; p < 2; ++p)
        parts[p]->indices = gatherEntries(all.indices, all.offsets, order, ends[p], ends[p + 1]);
    std::vector<std::int32_t>().swap(all.indices);
    for (int p = 0; p < 2; ++p)
        parts[p]->values = gatherEntries(all.values, all.offsets, order, ends[p], ends[p + 1]);
    all = Dataset{};
}

struct IdxFiles {
    std::filesystem::path images, labels;
};

/// PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz] in `dir`;
/// nullopt when neither exists. `missing` gets the names that do not.
std::optional<IdxFiles> findIdx(const std::filesystem::path& dir, const std::string& prefix,
                                std::string& missing) {
    const auto find = [&](const std::string& base) -> std::filesystem::path {
        std::error_code ec;
        for (const auto& name : {base, base + ".gz"}) {
            if (std::filesystem::is_regular_file(dir / name, ec))
                return dir / name;
            if (const std::string kind = nonRegularKind(dir / name); !kind.empty())
                throw InputError("IDX file " + quoted(dir / name) + " is " + kind +
                                 ", not a regular file; put the IDX file itself there");
        }
        missing += (missing.empty() ? "" : ", ") + base + "[.gz]";
        return {};
    };
    IdxFiles f{find(prefix + "-images-idx3-ubyte"), find(prefix + "-labels-idx1-ubyte")};
    if (f.images.empty() && f.labels.empty())
        return std::nullopt;
    return f;
}

/// Train and test IDX files of `dir`; the test pair may be absent unless
/// `needTest`. `name` and `fix` go into the messages.
std::pair<IdxFiles, std::optional<IdxFiles>> idxLayout(const std::filesystem::path& dir,
                                                       bool needTest, const std::string& name,
                                                       const std::string& fix) {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
        const std::string kind = nonRegularKind(dir);
        throw InputError(name + ": " + quoted(dir) + " is " +
                         (kind.empty() ? std::string("a file") : kind) +
                         ", not a directory: name the folder that holds the IDX files; " + fix);
    }
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(name + ": directory " + quoted(dir) + " does not exist; " + fix);
    std::string missingTrain, missingTest;
    const auto train = findIdx(dir, "train", missingTrain);
    const auto test = findIdx(dir, "t10k", missingTest);
    std::string missing = missingTrain;
    if (!missingTest.empty() && (test || needTest))
        missing += (missing.empty() ? "" : ", ") + missingTest;
    if (!missing.empty())
        throw InputError(name + ": directory " + quoted(dir) + " lacks " + missing + "; " + fix);
    return {*train, test};
}

const char* const kIdxFix = "put train-images-idx3-ubyte and train-labels-idx1-ubyte (raw or "
                            ".gz), and optionally the t10k- pair, in it";

} // namespace

std::filesystem::path fashionMnistDir() {
    const char* env = std::getenv("HWL_FASHION_MNIST_DIR");
    if (env && *env)
        return env;
    return "/usr/share/datasets/fashion-mnist";
}

bool fashionMnistAvailable() {
    try {
        idxLayout(fashionMnistDir(), true, "fashion-mnist", "");
        return true;
    } catch (const InputError&) {
        return false;
    }
}

namespace {

/// Header peeks by file (path, modification time, size): the features or
/// pixels per row, or the loader's message.
struct PeekCache {
    using Key = std::tuple<std::string, std::filesystem::file_time_type::rep, std::uintmax_t>;
    struct Entry {
        std::int64_t dim = -1;
        std::string error;
    };
    std::mutex mutex;
    std::map<Key, Entry> entries;
};

/// The cached `peek(file)`, read again once the file changed.
std::int64_t peekCached(const std::filesystem::path& file,
                        std::int64_t (*peek)(const std::filesystem::path&)) {
    static PeekCache cache;
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(file, ec);
    const std::uintmax_t size = ec ? 0 : std::filesystem::file_size(file, ec);
    if (ec)
        return peek(file); // not there or not a file: its message, not cached
    const PeekCache::Key key{file.string(), mtime.time_since_epoch().count(), size};
    {
        const std::lock_guard lock(cache.mutex);
        if (const auto it = cache.entries.find(key); it != cache.entries.end()) {
            if (!it->second.error.empty())
                throw InputError(it->second.error);
            return it->second.dim;
        }
    }
    PeekCache::Entry entry;
    try {
        entry.dim = peek(file);
    } catch (const InputError& e) {
        entry.error = e.what();
    }
    const std::lock_guard lock(cache.mutex);
    if (cache.entries.size() >= 64) // a form's few files; never grows unbounded
        cache.entries.clear();
    cache.entries[key] = entry;
    if (!entry.error.empty())
        throw InputError(entry.error);
    return entry.dim;
}

} // namespace

DatasetShape peekDatasetShape(const DatasetSpec& spec) {
    DatasetShape shape = shapeBeforeLoading(spec);
    if (spec.kind == DatasetSpec::Kind::Csv) {
        shape.dim = peekCached(spec.path, &detail::peekCsvFeatures);
    } else if (spec.kind == DatasetSpec::Kind::Idx) {
        const auto layout = idxLayout(spec.path, false, "idx", kIdxFix);
        shape.dim = peekCached(layout.first.images, &detail::peekIdxPixels);
        shape.numClasses = 10;
    }
    return shape;
}

DatasetSplit splitTrainTest(Dataset all, double fraction, std::uint64_t seed) {
    checkTestFraction(fraction);
    const std::string name = describeSplitName(all.description);
    const std::int64_t rows = all.rows;
    const auto nTest = std::int64_t(std::floor(double(rows) * fraction));
    const std::int64_t nTrain = rows - nTest;
    if (fraction > 0.0 && nTrain <= 0)
        throw InputError("test-fraction: " + std::to_string(fraction) + " of " +
                         std::to_string(rows) +
                         " rows leaves no rows for training; use a smaller test-fraction");
    DatasetSplit split;
    split.test.dim = all.dim;
    split.test.numClasses = all.numClasses;
    if (all.isSparse())
        split.test.offsets.push_back(0);
    if (nTest > 0) {
        // Fisher-Yates over the row order; dense rows are swapped in place.
        Rng rng(seed);
        if (all.isSparse()) {
            std::vector<std::int64_t> order(static_cast<std::size_t>(rows));
            std::iota(order.begin(), order.end(), std::int64_t(0));
            for (std::int64_t i = rows - 1; i > 0; --i)
                std::swap(order[std::size_t(i)],
                          order[std::size_t(rng.below(std::uint64_t(i) + 1))]);
            splitCsr(all, order, std::size_t(nTrain), split);
            all = std::move(split.train);
        } else {
            const auto d = std::size_t(all.dim);
            for (std::int64_t i = rows - 1; i > 0; --i) {
                const auto j = std::size_t(rng.below(std::uint64_t(i) + 1));
                if (j == std::size_t(i))
                    continue;
                std::swap_ranges(all.dense.begin() + std::ptrdiff_t(std::size_t(i) * d),
                                 all.dense.begin() + std::ptrdiff_t((std::size_t(i) + 1) * d),
                                 all.dense.begin() + std::ptrdiff_t(j * d));
                std::swap(all.labels[std::size_t(i)], all.labels[j]);
            }
            std::vector<std::int64_t> tail(static_cast<std::size_t>(nTest));
            std::iota(tail.begin(), tail.end(), nTrain);
            split.test = gather(all, tail, 0, tail.size());
            all.rows = nTrain;
            all.dense.resize(std::size_t(nTrain) * d);
            all.labels.resize(std::size_t(nTrain));
        }
    }
    split.train = std::move(all);
    split.train.description = detail::describe(name + " train", split.train);
    split.test.description = detail::describe(name + " test", split.test);
    return split;
}

DatasetSplit loadDataset(const DatasetSpec& spec, double testFraction, std::uint64_t seed) {
    const std::string name = toString(spec);
    Dataset all;
    switch (spec.kind) {
    case DatasetSpec::Kind::Random:
        checkTestFraction(testFraction);
        all = makeRandom(spec.rows, spec.dim, spec.classes, seed);
        break;
    case DatasetSpec::Kind::Teacher:
        checkTestFraction(testFraction);
        all = makeTeacher(spec.rows, spec.dim, spec.classes, spec.hidden, seed);
        break;
    case DatasetSpec::Kind::SparseBow:
        checkTestFraction(testFraction);
        all = makeSparseBow(spec.rows, spec.dim, spec.classes, spec.tokens, seed);
        break;
    case DatasetSpec::Kind::Csv:
        checkTestFraction(testFraction);
        all = loadCsv(spec.path);
        break;
    case DatasetSpec::Kind::Libsvm:
        checkTestFraction(testFraction);
        all = loadLibsvm(spec.path);
        break;
    case DatasetSpec::Kind::FashionMnist:
    case DatasetSpec::Kind::Idx: {
        const bool fashion = spec.kind == DatasetSpec::Kind::FashionMnist;
        const auto dir = fashion ? fashionMnistDir() : spec.path;
        const auto layout = idxLayout(
            dir, fashion, fashion ? "fashion-mnist" : "idx",
            fashion ? "apt-get install dataset-fashion-mnist, or set HWL_FASHION_MNIST_DIR to a "
                      "directory holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
                      "t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz"
                    : kIdxFix);
        const IdxFiles& train = layout.first; // named, not bound: clang 14 cannot capture bindings
        const auto& test = layout.second;
        if (!test) {
            checkTestFraction(testFraction);
            all = loadIdx(train.images, train.labels);
            break;
        }
        DatasetSplit split;
        // Both at once: unpacking the gzip files is most of the time.
        // oneTBB's threads poll the caller's stop request.
        const CancelScope* cancel = currentCancelScope();
        const auto polled = [cancel] { return cancel && cancel->stopRequested(); };
        parallelInvoke(
            [&] {
                const CancelScope scope(polled);
                split.train = loadIdx(train.images, train.labels);
            },
            [&] {
                const CancelScope scope(polled);
                split.test = loadIdx(test->images, test->labels);
            });
        if (split.train.dim != split.test.dim)
            throw InputError(name + ": the train images have " + std::to_string(split.train.dim) +
                             " pixels, the t10k images " + std::to_string(split.test.dim) +
                             "; use files from the same set");
        const std::int32_t classes = std::max(split.train.numClasses, split.test.numClasses);
        split.train.numClasses = split.test.numClasses = classes;
        split.train.description = detail::describe(name + " train", split.train);
        split.test.description = detail::describe(name + " test", split.test);
        return split;
    }
    }
    all.description = detail::describe(name, all);
    return splitTrainTest(std::move(all), testFraction, seed);
}

} // namespace hwl
