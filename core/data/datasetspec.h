#pragma once
// DatasetSpec: which dataset a run uses, parsed from the `--dataset` text,
// and what is known of its shape before anything is loaded. Part of the
// engine's public API (the window's form builds and checks these texts).
#include "data/dataset.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace hwl {

/// A parsed `--dataset` value. Text forms (see toString / docs/models-and-data.md):
///   random:ROWSxDIM:CLASSES             randn features, uniform random labels (the blog's)
///   teacher:ROWSxDIM:CLASSES[:HIDDEN]   randn features, labels = argmax of a fixed random
///                                       teacher MLP DIM-HIDDEN-CLASSES (tanh); learnable
///   sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS]  bags of TOKENS token ids drawn from
///                                       class-dependent distributions (sparse)
///   fashion-mnist                       Debian's dataset-fashion-mnist (IDX, gzip)
///   idx:DIR                             train-/t10k- IDX files in DIR, raw or .gz
///   csv:FILE                            label column first, then features
///   libsvm:FILE                         "label idx:val idx:val ..." (sparse)
struct DatasetSpec {
    enum class Kind { Random, Teacher, SparseBow, FashionMnist, Idx, Csv, Libsvm };
    Kind kind = Kind::Random;
    std::int64_t rows = 10000;
    std::int64_t dim = 100; ///< features, or vocabulary for sparse-bow
    std::int32_t classes = 10;
    std::int64_t hidden = 32;   ///< teacher's hidden width
    std::int64_t tokens = 20;   ///< tokens per row for sparse-bow
    std::filesystem::path path; ///< Idx: directory; Csv, Libsvm: file

    friend bool operator==(const DatasetSpec&, const DatasetSpec&) = default;
};

/// Parses a `--dataset` text. Throws InputError naming the field `dataset`,
/// what is wrong and the accepted forms.
DatasetSpec parseDatasetSpec(const std::string& text);
/// The canonical text form; parseDatasetSpec(toString(s)) == s.
std::string toString(const DatasetSpec& spec);

/// Directory of Debian's dataset-fashion-mnist, or $HWL_FASHION_MNIST_DIR when set.
std::filesystem::path fashionMnistDir();
/// True when fashionMnistDir() holds the four Fashion-MNIST files.
bool fashionMnistAvailable();

/// Synthetic kinds (random, teacher, sparse-bow) are generated from the spec.
bool isSyntheticKind(DatasetSpec::Kind kind);
/// File kinds (idx, csv, libsvm) name a path.
bool isFileKind(DatasetSpec::Kind kind);
/// What is known of the shape of the dataset a spec names without loading it:
/// everything for synthetic kinds and Fashion-MNIST; for files only whether
/// it is sparse (LIBSVM) or dense (CSV, IDX).
DatasetShape shapeBeforeLoading(const DatasetSpec& spec);
/// shapeBeforeLoading() plus what the files' headers tell, without loading
/// them: for CSV the features per row (the first line's columns less the
/// label; it reads at most the first 1 MiB), for an IDX folder the pixels
/// per image (the train images file's 16-byte header) and 10 classes (the
/// least loadIdx gives; a larger label adds more). LIBSVM's width (its
/// largest index) and the classes of text files need the whole file: they
/// stay unknown (-1). Throws the loader's InputError when the header already
/// shows that the run would refuse the data (an empty CSV, one column, a
/// wrong IDX magic, a missing or unreadable file). Results, errors included,
/// are cached by the file's path, modification time and size, so a form may
/// ask on every keystroke. Thread-safe.
DatasetShape peekDatasetShape(const DatasetSpec& spec);

} // namespace hwl
