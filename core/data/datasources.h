#pragma once
// Where datasets come from: synthetic generators, IDX (MNIST / Fashion-MNIST),
// CSV and LIBSVM text files, and the train/test split.
//
// Every loader checks sizes against what the file really holds before it
// allocates, and reports any problem as an InputError naming the file, the
// line or byte offset, and the fix. Loaders never print.
#include "data/dataset.h"
#include "data/datasetspec.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace hwl {

/// Loads or generates the dataset. Sources with their own test set
/// (fashion-mnist, idx with t10k-* files) use it and ignore testFraction;
/// the others are shuffled with `seed` and the last testFraction of rows
/// (in [0, 1)) becomes the test set. Synthetic data is fully determined by
/// the spec and `seed`.
DatasetSplit loadDataset(const DatasetSpec& spec, double testFraction, std::uint64_t seed);

// The individual sources, public for tests and tools.
Dataset makeRandom(std::int64_t rows, std::int64_t dim, std::int32_t classes, std::uint64_t seed);
Dataset makeTeacher(std::int64_t rows, std::int64_t dim, std::int32_t classes, std::int64_t hidden,
                    std::uint64_t seed);
Dataset makeSparseBow(std::int64_t rows, std::int64_t vocab, std::int32_t classes,
                      std::int64_t tokens, std::uint64_t seed);
/// IDX image file (magic 0x00000803, uint8, N x H x W) and label file
/// (0x00000801, uint8, N); raw or gzip (detected by content, not name).
/// Pixels are scaled to [0, 1]; classes = 10 unless a label is larger
/// (then max label + 1).
Dataset loadIdx(const std::filesystem::path& images, const std::filesystem::path& labels);
/// CSV: one row per sample, first column the integer label (>= 0), the rest
/// float features; one header line is skipped when its first field is not a
/// number. Every row must have the same number of columns.
Dataset loadCsv(const std::filesystem::path& file);
/// LIBSVM text: "label index:value ..." with 1-based increasing indices;
/// labels are integers >= 0, or the binary pair -1/+1 (mapped to 0/1).
/// Loaded sparse; dim = largest index.
Dataset loadLibsvm(const std::filesystem::path& file);

/// Moves the last `fraction` of a shuffled permutation of `all` into a test
/// set. fraction 0 gives an empty test set.
DatasetSplit splitTrainTest(Dataset all, double fraction, std::uint64_t seed);

} // namespace hwl
