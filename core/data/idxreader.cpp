// IDX files (MNIST, Fashion-MNIST): uint8 images N x H x W and uint8 labels N,
// raw or gzip. Every count in a header is checked against the bytes that
// really arrived before anything is sized from it.
#include "data/datasourceio.h"
#include "data/datasources.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

namespace hwl {

namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;
// 2 GiB of pixels is 8 GiB of floats: the dataset budget.
constexpr std::uint64_t kMaxIdxBytes = (std::uint64_t(1) << 31) + 64;

std::uint32_t bigEndian32(const unsigned char* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 |
           std::uint32_t(p[3]);
}

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", v);
    return buf;
}

std::string toDecimal(detail::Uint128 v) {
    if (v == 0)
        return "0";
    std::string s;
    while (v > 0) {
        s.insert(s.begin(), char('0' + int(v % 10)));
        v /= 10;
    }
    return s;
}

struct IdxFile {
    std::string bytes;
    std::vector<std::uint32_t> dims;
    std::size_t headerBytes = 0;
    const unsigned char* data() const {
        return reinterpret_cast<const unsigned char*>(bytes.data()) + headerBytes;
    }
};

/// What reading `file` may allocate: its header's promise, with room for a
/// little trailing data so it can be named. A gzip file whose header
/// promises more than the reader accepts is inflated to 64 MiB at most (a
/// bomb, or a corrupt header claiming 2^40 pixels); a plain one costs only
/// its size on disk, and readIdx says what is wrong with it.
std::uint64_t promisedBound(const std::filesystem::path& file, bool images,
                            const std::string& what) {
    const std::size_t header = images ? 16 : 8;
    bool gzipped = false;
    const std::string prefix = detail::readFilePrefix(file, header, what, gzipped);
    if (prefix.size() < header)
        return kMaxIdxBytes; // too short: readIdx says how
    const auto* u = reinterpret_cast<const unsigned char*>(prefix.data());
    double promised = 1;
    for (std::size_t d = 0; d < (images ? 3u : 1u); ++d)
        promised *= double(bigEndian32(u + 4 + 4 * d));
    if (!gzipped)
        return kMaxIdxBytes;
    // More than the reader accepts: it cannot be loaded, only named, and
    // 64 MiB are enough to tell a truncated file from a bomb.
    if (promised + double(header) > double(kMaxIdxBytes))
        return (std::uint64_t(64) << 20) + header;
    return std::uint64_t(promised) + header + 4096;
}

/// The dimensions in the header of an IDX file whose content starts with
/// `b` (the whole file, or its first 16 bytes: the header is all this
/// checks): magic, a complete header, no dimension 0. `where` names the file.
std::vector<std::uint32_t> checkedHeader(const std::string& b, bool images,
                                         const std::string& where) {
    const std::uint32_t expected = images ? kImagesMagic : kLabelsMagic;
    const std::string expectedText =
        hex32(expected) + (images ? " (uint8 images, N x H x W)" : " (uint8 labels, N)");
    if (b.empty())
        throw InputError(where + " is empty; expected an IDX header with magic " + expectedText);
    if (b.size() < 4)
        throw InputError(where + " holds only " + std::to_string(b.size()) +
                         " bytes, too short for an IDX header (magic " + expectedText + ")");
    const auto* u = reinterpret_cast<const unsigned char*>(b.data());
    const std::uint32_t magic = bigEndian32(u);
    if (magic != expected) {
        std::string msg = where + " has magic " + hex32(magic) + ", expected " + expectedText;
        if (magic == (images ? kLabelsMagic : kImagesMagic))
            msg += std::string("; that is the magic of an IDX ") + (images ? "labels" : "images") +
                   " file: are the two files swapped?";
        else
            msg += "; is this an IDX file?";
        throw InputError(msg);
    }
    const std::size_t ndims = images ? 3 : 1;
    const std::size_t headerBytes = 4 + 4 * ndims;
    if (b.size() < headerBytes)
        throw InputError(where + " is truncated: it holds " + std::to_string(b.size()) +
                         " bytes, the header alone needs " + std::to_string(headerBytes));
    std::vector<std::uint32_t> dims;
    for (std::size_t d = 0; d < ndims; ++d)
        dims.push_back(bigEndian32(u + 4 + 4 * d));
    if (dims[0] == 0)
        throw InputError(where + " holds 0 " + (images ? "images" : "labels") +
                         "; a dataset needs at least one row");
    if (images && (dims[1] == 0 || dims[2] == 0))
        throw InputError(where + " has images of " + std::to_string(dims[1]) + " x " +
                         std::to_string(dims[2]) + " pixels; both sides must be at least 1");
    return dims;
}

/// Reads and checks one IDX file: magic, header, and that the data bytes are
/// exactly what the header promises.
IdxFile readIdx(const std::filesystem::path& file, bool images) {
    const std::string what = images ? "IDX images file" : "IDX labels file";
    const std::string where = what + " " + quoted(file);
    IdxFile idx;
    idx.bytes = detail::readFileBytes(file, promisedBound(file, images, what), what);
    const std::string& b = idx.bytes;
    idx.dims = checkedHeader(b, images, where);
    idx.headerBytes = 4 + 4 * idx.dims.size();
    detail::Uint128 promised = 1;
    for (const std::uint32_t d : idx.dims)
        promised *= d;
    const char* items = images ? "images" : "labels";
    const std::uint64_t actual = b.size() - idx.headerBytes;
    const std::string kind = images ? "pixel" : "label";
    std::string shape = std::to_string(idx.dims[0]) + " " + items;
    if (images)
        shape += " of " + std::to_string(idx.dims[1]) + " x " + std::to_string(idx.dims[2]);
    if (actual < promised)
        throw InputError(where + " holds " + std::to_string(actual) + " bytes of " + kind +
                         " data, header promises " + toDecimal(promised) + " (" + shape +
                         "); the file is truncated or its header is corrupt");
    if (actual > promised)
        throw InputError(where + " holds " + std::to_string(actual) + " bytes of " + kind +
                         " data, header promises " + toDecimal(promised) + " (" + shape + "); " +
                         std::to_string(std::uint64_t(actual - promised)) +
                         " trailing bytes suggest a corrupt header");
    return idx;
}

} // namespace

std::int64_t detail::peekIdxPixels(const std::filesystem::path& images) {
    const std::string what = "IDX images file";
    bool gzipped = false;
    const std::string header = readFilePrefix(images, 16, what, gzipped);
    const auto dims = checkedHeader(header, true, what + " " + quoted(images));
    return std::int64_t(dims[1]) * std::int64_t(dims[2]);
}

Dataset loadIdx(const std::filesystem::path& images, const std::filesystem::path& labels) {
    const IdxFile img = readIdx(images, true);
    const IdxFile lab = readIdx(labels, false);
    const std::uint32_t n = img.dims[0];
    if (lab.dims[0] != n)
        throw InputError("IDX files disagree: images file " + quoted(images) + " holds " +
                         std::to_string(n) + " images but labels file " + quoted(labels) +
                         " holds " + std::to_string(lab.dims[0]) +
                         " labels; use files from the same set");
    const std::int64_t dim = std::int64_t(img.dims[1]) * std::int64_t(img.dims[2]);
    const std::int64_t rows = n;
    detail::checkDatasetBytes(double(img.bytes.size()) + double(rows) * double(dim) * 4.0 +
                                  double(rows) * 4.0,
                              "IDX images file " + quoted(images), "use a smaller file");

    std::array<float, 256> scale{};
    for (int v = 0; v < 256; ++v)
        scale[std::size_t(v)] = float(v) / 255.0f;
    Dataset ds;
    ds.rows = rows;
    ds.dim = dim;
    ds.dense.resize(std::size_t(rows * dim));
    const unsigned char* px = img.data();
    for (std::size_t i = 0; i < ds.dense.size(); ++i)
        ds.dense[i] = scale[px[i]];
    ds.labels.resize(std::size_t(rows));
    const unsigned char* lb = lab.data();
    int maxLabel = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
        ds.labels[std::size_t(i)] = lb[i];
        maxLabel = std::max(maxLabel, int(lb[i]));
    }
    ds.numClasses = std::max(10, maxLabel + 1);
    ds.description = detail::describe("idx " + images.filename().string(), ds);
    return ds;
}

} // namespace hwl
