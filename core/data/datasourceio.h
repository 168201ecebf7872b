#pragma once
// Internals shared by the dataset sources (datasources.cpp, synthetic.cpp,
// idxreader.cpp, the text readers): reading a whole file, raw or gzip, under
// a size cap, or its lines a chunk at a time; the memory budget; and the
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

/// How the text readers cut a file into chunks and parse them: the
/// defaults are for speed; tests pass a few bytes per chunk to cross chunk
/// boundaries in small files, 1 thread for the serial path, and no fast
/// path for the reference they compare the fast one with.
struct TextParse {
    static constexpr std::size_t kDefaultChunkBytes = std::size_t(1) << 20;
    int threads = 0;            ///< 0: every core oneTBB offers; 1: the calling thread alone
    std::size_t chunkBytes = 0; ///< 0: kDefaultChunkBytes
    bool fastPath = true;       ///< false: every row the careful way
};

/// loadCsv and loadLibsvm (data/datasources.h), parsed as `how` says.
Dataset loadCsv(const std::filesystem::path& file, const TextParse& how);
Dataset loadLibsvm(const std::filesystem::path& file, const TextParse& how);

/// The content of a text file (CSV, LIBSVM), raw or gzip, a chunk of whole
/// lines at a time: memory holds the chunks in flight, never the whole
/// text, so a gzip bomb costs time up to `maxBytes`, not memory. A leading
/// UTF-8 byte-order mark (editors on Windows write one) is skipped. Throws
/// InputError naming `what` and the path when the file cannot be opened or
/// read, the gzip stream is corrupt or truncated, or the content passes
/// `maxBytes`; throws LineTooLong when a line passes kMaxLineBytes (the
/// caller, who counts the lines, says which: lineTooLong()).
class TextChunks {
public:
    static constexpr std::size_t kMaxLineBytes = std::size_t(64) << 20;
    struct LineTooLong {};

    TextChunks(const std::filesystem::path& file, std::uint64_t maxBytes, const std::string& what,
               std::size_t chunkBytes);
    ~TextChunks();
    TextChunks(const TextChunks&) = delete;
    TextChunks& operator=(const TextChunks&) = delete;

    /// Replaces `text` with the next whole lines: at least the chunk size
    /// when the content has that much left (a longer line is kept whole),
    /// ending just after a "\n", or at the end of the content. False at the
    /// end. Lines keep their "\r\n" or "\n".
    bool next(std::string& text);
    /// Content bytes handed out so far.
    std::uint64_t consumed() const { return consumed_; }
    /// The content's size in bytes as the file says it: its size for a raw
    /// file, the gzip trailer's (bounded) for gzip; 0 when unknown. A hint
    /// for reserving memory, never a limit.
    std::uint64_t sizeHint() const { return sizeHint_; }
    /// The message for LineTooLong at line `lineNo`.
    std::string lineTooLong(std::int64_t lineNo) const;

private:
    bool fill(std::string& text, std::size_t want); // appends; false at the end

    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string carry_; ///< the start of a line the last chunk did not end
    std::size_t chunkBytes_;
    std::uint64_t total_ = 0, consumed_ = 0, sizeHint_ = 0;
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
