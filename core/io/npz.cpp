// NumPy .npz writing: a zip (libzip) of .npy v1.0 files.
#include "io/tensorfile.h"
#include "io/tensorformat.h"

#include "util/errors.h"

#include <zip.h>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <deque>
#include <stdexcept>

namespace hwl {
namespace {

namespace fs = std::filesystem;
using detail::kWeightsFile;

/// .npy v1.0 header: magic, version, u16 LE length, then a Python dict literal
/// padded with spaces and ended by '\n' so the data starts 64-byte aligned.
std::string npyHeader(const std::vector<std::int64_t>& shape) {
    std::string tuple = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        tuple += (i ? ", " : "") + std::to_string(shape[i]);
    tuple += shape.size() == 1 ? ",)" : ")";
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + tuple + ", }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    if (dict.size() > 0xFFFF)
        throw std::invalid_argument("tensor has too many dimensions for a .npy v1.0 header");
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xFF);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict;
}

std::string zipErrorText(int code) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

/// Adds "<name>.npy" (stored, like numpy.savez) backed by buffers in `keep`,
/// which must outlive zip_close. Returns false with libzip's error set.
bool addNpyEntry(zip_t* za, const TensorRef& t, std::deque<std::string>& keep) {
    const std::string& header = keep.emplace_back(npyHeader(t.shape));
    const std::size_t n = detail::elementCount(t);
    std::array<zip_buffer_fragment_t, 2> parts{};
    parts[0] = {reinterpret_cast<zip_uint8_t*>(const_cast<char*>(header.data())), header.size()};
    if constexpr (std::endian::native == std::endian::little) {
        // Zero-copy: the caller's floats are already the bytes .npy wants.
        parts[1] = {reinterpret_cast<zip_uint8_t*>(const_cast<float*>(t.data)), n * 4};
    } else {
        const std::string& bytes = keep.emplace_back(detail::floatsLE(t.data, n));
        parts[1] = {reinterpret_cast<zip_uint8_t*>(const_cast<char*>(bytes.data())), bytes.size()};
    }
    zip_source_t* src = zip_source_buffer_fragment(za, parts.data(), n > 0 ? 2 : 1, 0);
    if (!src)
        return false;
    const zip_int64_t index = zip_file_add(za, (t.name + ".npy").c_str(), src, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
        zip_source_free(src);
        return false;
    }
    return zip_set_file_compression(za, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) == 0;
}

/// libzip writes nothing for an archive without entries; numpy still wants
/// a valid (empty) zip, which is just the end-of-central-directory record.
void writeEmptyZip(const fs::path& file) {
    static constexpr char eocd[22] = {'P', 'K', 5, 6};
    detail::writePartsAtomically(file, {std::string_view(eocd, sizeof eocd)}, kWeightsFile);
}

/// fsync of the archive libzip closed (it does not sync): 0 or the errno.
int syncFile(const fs::path& path, const fs::path& target) {
    if (const int injected = detail::persistStep("fsync", target))
        return injected;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    const int err = ::fsync(fd) != 0 ? errno : 0;
    ::close(fd);
    return err;
}

} // namespace

void writeNpz(const std::filesystem::path& file, const std::vector<TensorRef>& tensors) {
    detail::checkForWriting(tensors);
    if (tensors.empty())
        return writeEmptyZip(file);
    detail::TempSibling tmp(file);
    int code = 0;
    zip_t* za = zip_open(tmp.path().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!za)
        detail::throwCannotWrite(file, kWeightsFile, zipErrorText(code));
    std::deque<std::string> keep;
    bool ok = true;
    for (const TensorRef& t : tensors)
        if (!(ok = addNpyEntry(za, t, keep)))
            break;
    if (const int injected = ok ? detail::persistStep("write", file) : 0) {
        zip_discard(za);
        detail::throwCannotWrite(file, kWeightsFile, errnoText(injected));
    }
    if (!ok || zip_close(za) != 0) {
        const std::string reason = zip_strerror(za);
        zip_discard(za);
        detail::throwCannotWrite(file, kWeightsFile, reason);
    }
    if (const int err = syncFile(tmp.path(), file))
        detail::throwCannotWrite(file, kWeightsFile, errnoText(err));
    if (const int err = tmp.commit())
        detail::throwCannotWrite(file, kWeightsFile, errnoText(err));
}

} // namespace hwl
