#pragma once
// Internals shared by the dataset sources (datasources.cpp, synthetic.cpp,
// idxreader.cpp, textreaders.cpp): reading a whole file, raw or gzip, under a
// size cap; the memory budget; and the one-line description of a dataset.
#include "config/limits.h"
#include "data/dataset.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace hwl::detail {

/// 128-bit unsigned arithmetic (a GCC/Clang extension) for size checks.
__extension__ typedef unsigned __int128 Uint128;

/// Throws InputError "<what> would need N GiB of memory, more than the 8 GiB
/// limit; <fix>" when `bytes` exceeds limits::kMaxDatasetBytes. Call before allocating.
void checkDatasetBytes(double bytes, const std::string& what, const std::string& fix);

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

/// readFileBytes() for text formats (CSV, LIBSVM): without a leading UTF-8
/// byte-order mark, which editors on Windows write and which would
/// otherwise glue itself to the first value.
std::string readTextFile(const std::filesystem::path& file, std::uint64_t maxBytes,
                         const std::string& what);

/// "NAME (ROWS x DIM, C classes)", with ", sparse" for CSR datasets.
std::string describe(const std::string& name, const Dataset& ds);

} // namespace hwl::detail
