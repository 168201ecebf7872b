#pragma once
// Internals shared by the dataset sources (datasources.cpp, synthetic.cpp,
// idxreader.cpp, textreaders.cpp): reading a whole file, raw or gzip, under a
// size cap, or its lines a chunk at a time; the memory budget; and the
// one-line description of a dataset.
#include "data/dataset.h"
#include "util/limits.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace hwl::detail {

/// 128-bit unsigned arithmetic (a GCC/Clang extension) for size checks.
__extension__ typedef unsigned __int128 Uint128;

/// The most memory one dataset may take now: limits::kMaxDatasetBytes, or
/// less where the system has less available (80% of MemAvailable in
/// /proc/meminfo), so a file cannot drive the machine into swap.
double datasetBudget();

/// Throws InputError "<what> would need N GiB of memory, more than the 8 GiB
/// limit; <fix>" (or "... than the N GiB of memory available now") when
/// `bytes` exceeds `budget`. Call before allocating.
void checkDatasetBytes(double bytes, const std::string& what, const std::string& fix,
                       double budget = datasetBudget());

/// The whole content of `file`; gunzipped when it starts with the gzip magic
/// bytes 1f 8b (whatever its name). Never allocates more than the file really
/// delivers: raw files are sized from the file system, gzip streams are read
/// in chunks. Throws InputError (naming `what` and the path) when the file
/// cannot be opened or read, the gzip stream is corrupt or truncated, or the
/// content is larger than `maxBytes`.
std::string readFileBytes(const std::filesystem::path& file, std::uint64_t maxBytes,
                          const std::string& what);

/// The first `count` bytes of `file`'s content (gunzipped like
/// readFileBytes), or fewer when it is shorter: for a header that bounds
/// what reading the rest may allocate. Same errors as readFileBytes.
/// `gzipped` says whether the content was compressed.
std::string readFilePrefix(const std::filesystem::path& file, std::size_t count,
                           const std::string& what, bool& gzipped);

/// The lines of a text file (CSV, LIBSVM), raw or gzip, read a chunk at a
/// time: memory holds one chunk (and the longest line), never the whole
/// text, so a gzip bomb costs time up to `maxBytes`, not memory. A leading
/// UTF-8 byte-order mark (editors on Windows write one) is skipped. Throws
/// InputError naming `what` and the path when the file cannot be opened or
/// read, the gzip stream is corrupt or truncated, the content passes
/// `maxBytes`, or a line passes kMaxLineBytes.
class TextLines {
public:
    static constexpr std::size_t kMaxLineBytes = std::size_t(64) << 20;

    TextLines(const std::filesystem::path& file, std::uint64_t maxBytes, const std::string& what);
    ~TextLines();
    TextLines(const TextLines&) = delete;
    TextLines& operator=(const TextLines&) = delete;

    /// The next line without its "\n" or "\r\n"; valid until the next call.
    bool next(std::string_view& line);
    /// The number of the line next() returned last (1-based).
    std::int64_t number() const { return number_; }

private:
    bool fill(); // reads more behind what is left; false at the end

    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string buffer_;
    std::size_t begin_ = 0, end_ = 0; ///< the bytes of buffer_ not handed out yet
    std::uint64_t total_ = 0;         ///< content bytes read so far
    std::int64_t number_ = 0;
    bool atEnd_ = false, first_ = true;
};

/// The features per row of a CSV file, from its first lines (at most its
/// first 1 MiB, gunzipped): the columns of its first non-blank line less the
/// label; -1 when that line is longer than what was read. Throws loadCsv's
/// InputError for what it already shows (empty, one column, only a header).
std::int64_t peekCsvFeatures(const std::filesystem::path& file);
/// The pixels per image of an IDX images file (H x W), from its 16-byte
/// header; throws loadIdx's InputError for a header it would refuse.
std::int64_t peekIdxPixels(const std::filesystem::path& images);

/// "NAME (ROWS x DIM, C classes)", with ", sparse" for CSR datasets.
std::string describe(const std::string& name, const Dataset& ds);

} // namespace hwl::detail
