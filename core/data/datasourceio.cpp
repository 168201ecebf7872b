#include "data/datasourceio.h"

#include "util/cancel.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

#include <unistd.h>

namespace hwl::detail {

namespace {

std::string gib(double bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

std::string sizeText(std::uint64_t bytes) {
    if (bytes >= (std::uint64_t(1) << 30) && bytes % (std::uint64_t(1) << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    return std::to_string(bytes) + " bytes";
}

struct GzCloser {
    void operator()(gzFile f) const { gzclose(f); }
};

[[noreturn]] void failOpen(const std::filesystem::path& file, const std::string& what, int err) {
    throw InputError(what + " " + quoted(file) + " cannot be read: " +
                     std::generic_category().message(err) + "; check the path and permissions");
}

std::string readRaw(std::FILE* f, const std::filesystem::path& file, std::uint64_t maxBytes,
                    const std::string& what) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec)
        throw InputError(what + " " + quoted(file) + " cannot be read: " + ec.message());
    if (size > maxBytes)
        throw InputError(what + " " + quoted(file) + " holds " + std::to_string(size) +
                         " bytes, more than the " + sizeText(maxBytes) +
                         " this reader accepts; use a smaller file");
    std::string bytes(size, '\0');
    if (size > 0 && std::fread(bytes.data(), 1, size, f) != size)
        throw InputError(what + " " + quoted(file) + " could not be read to the end (" +
                         std::to_string(size) + " bytes expected)");
    return bytes;
}

// The gzip trailer's ISIZE (uncompressed size mod 2^32) as a hint for the
// first buffer, never trusted beyond what the compressed size can deliver.
std::uint64_t gzipSizeHint(std::FILE* f, std::uint64_t compressed, std::uint64_t maxBytes) {
    if (compressed < 18 || std::fseek(f, -4, SEEK_END) != 0)
        return 0;
    unsigned char t[4];
    const bool ok = std::fread(t, 1, 4, f) == 4;
    std::rewind(f);
    if (!ok)
        return 0;
    const std::uint64_t isize = std::uint64_t(t[0]) | std::uint64_t(t[1]) << 8 |
                                std::uint64_t(t[2]) << 16 | std::uint64_t(t[3]) << 24;
    // Only a first guess: never more than 16 times the bytes on disk (real
    // data sets compress 2-10x), so a corrupt trailer cannot make us
    // allocate much; the buffer grows as data really arrives.
    return std::min({isize, compressed * 16, maxBytes});
}

/// Opens `file` for reading, refusing anything but a regular file (a FIFO
/// would block, a device never end) before reading a byte.
FilePtr openDataFile(const std::filesystem::path& file, const std::string& what) {
    std::string whyNot;
    FilePtr f = openRegularFile(file, whyNot);
    if (!f && errno == EINVAL) // there, but a FIFO, a device, a directory, ...
        throw InputError(what + " " + quoted(file) + " " + whyNot +
                         "; give the path of the data file itself");
    if (!f)
        failOpen(file, what, errno ? errno : EIO);
    return f;
}

/// A zlib reader of `f` from its current position (gzip, or plain bytes
/// passed through), on a descriptor of its own: never by the path again.
std::unique_ptr<gzFile_s, GzCloser> gzReader(std::FILE* f, const std::filesystem::path& file,
                                             const std::string& what) {
    const int fd = ::dup(::fileno(f));
    std::unique_ptr<gzFile_s, GzCloser> gz(fd >= 0 ? gzdopen(fd, "rb") : nullptr);
    if (!gz) {
        const int err = errno ? errno : EIO;
        if (fd >= 0)
            ::close(fd);
        failOpen(file, what, err);
    }
    return gz;
}

/// Throws InputError when zlib's reader `gz` stopped on an error (or
/// `failed`: a read returned -1): a truncated stream, or one that is not
/// gzip. Returns when it simply reached the end.
void checkGzipStream(gzFile gz, bool failed, const std::filesystem::path& file,
                     const std::string& what) {
    int err = Z_OK;
    const char* msg = gzerror(gz, &err);
    if (err == Z_BUF_ERROR)
        throw InputError(what + " " + quoted(file) + " is truncated: its gzip stream ends early (" +
                         std::string(msg) + "); download or copy it again");
    if (failed || err != Z_OK)
        throw InputError(what + " " + quoted(file) +
                         " is not a valid gzip file: " + std::string(msg));
}

/// Reads the gzip stream of `f` (at its start), the file already opened
/// and checked.
std::string readGzip(std::FILE* f, const std::filesystem::path& file, std::uint64_t hint,
                     std::uint64_t maxBytes, const std::string& what) {
    const auto gz = gzReader(f, file, what);
    gzbuffer(gz.get(), 1 << 18);
    constexpr std::uint64_t kChunk = std::uint64_t(1) << 24;
    std::string bytes;
    bytes.resize(std::min(hint, maxBytes) + 1); // +1: the read that finds the end
    std::uint64_t used = 0;
    for (;;) {
        if (used == bytes.size()) {
            if (used > maxBytes)
                throw InputError(what + " " + quoted(file) + " decompresses to more than " +
                                 sizeText(maxBytes) +
                                 ", more than this reader accepts; use a smaller file");
            bytes.resize(std::min(std::max(used * 2, used + kChunk), maxBytes + 1));
        }
        throwIfCancelled();
        const auto want = unsigned(std::min<std::uint64_t>(bytes.size() - used, kChunk));
        const int got = gzread(gz.get(), bytes.data() + used, want);
        if (got < 0)
            break;
        if (got == 0)
            break;
        used += std::uint64_t(got);
    }
    checkGzipStream(gz.get(), false, file, what);
    if (used > maxBytes)
        throw InputError(what + " " + quoted(file) + " decompresses to more than " +
                         sizeText(maxBytes) +
                         ", more than this reader accepts; use a smaller file");
    bytes.resize(used);
    return bytes;
}

} // namespace

double datasetBudget() {
    double available = limits::kMaxDatasetBytes;
    if (std::FILE* f = std::fopen("/proc/meminfo", "re")) {
        char line[256];
        unsigned long long kib = 0;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
                available = 0.8 * double(kib) * 1024.0;
                break;
            }
        std::fclose(f);
    }
    return std::min(available, limits::kMaxDatasetBytes);
}

void checkDatasetBytes(double bytes, const std::string& what, const std::string& fix,
                       double budget) {
    if (bytes <= budget)
        return;
    if (budget < limits::kMaxDatasetBytes)
        throw InputError(what + " would need " + gib(bytes) + " of memory, more than the " +
                         gib(budget) + " this machine has available now; " + fix);
    throw InputError(what + " would need " + gib(bytes) + " of memory, more than the " +
                     gib(limits::kMaxDatasetBytes) + " limit; " + fix);
}

std::string readFileBytes(const std::filesystem::path& file, std::uint64_t maxBytes,
                          const std::string& what) {
    std::error_code ec;
    const FilePtr f = openDataFile(file, what);
    unsigned char magic[2] = {0, 0};
    const std::size_t n = std::fread(magic, 1, 2, f.get());
    std::rewind(f.get());
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        const std::uint64_t compressed = std::filesystem::file_size(file, ec);
        const std::uint64_t hint = ec ? 0 : gzipSizeHint(f.get(), compressed, maxBytes);
        return readGzip(f.get(), file, hint, maxBytes, what);
    }
    return readRaw(f.get(), file, maxBytes, what);
}

std::string readFilePrefix(const std::filesystem::path& file, std::size_t count,
                           const std::string& what, bool& gzipped) {
    const FilePtr f = openDataFile(file, what);
    const auto gz = gzReader(f.get(), file, what); // plain files pass through
    std::string bytes(count, '\0');
    const int got = gzread(gz.get(), bytes.data(), unsigned(count));
    bytes.resize(got > 0 ? std::size_t(got) : 0);
    gzipped = gzdirect(gz.get()) == 0;
    return bytes;
}

struct TextChunks::Impl {
    std::filesystem::path file;
    std::string what;
    FilePtr f;
    std::unique_ptr<gzFile_s, GzCloser> gz;
    std::uint64_t maxBytes;
    const CancelScope* cancel; ///< the creator's: next() may run on a helper thread
};

TextChunks::TextChunks(const std::filesystem::path& file, std::uint64_t maxBytes,
                       const std::string& what, std::size_t chunkBytes)
    : impl_(
          new Impl{file, what, openDataFile(file, what), nullptr, maxBytes, currentCancelScope()}),
      chunkBytes_(std::max<std::size_t>(chunkBytes, 1)) {
    std::FILE* f = impl_->f.get();
    unsigned char magic[2] = {0, 0};
    const std::size_t n = std::fread(magic, 1, 2, f);
    std::rewind(f);
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    if (!ec)
        sizeHint_ = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b
                        ? gzipSizeHint(f, size, maxBytes)
                        : std::min<std::uint64_t>(size, maxBytes);
    impl_->gz = gzReader(f, file, what); // plain files pass through
    // zlib's buffers: 256 KiB, less for a small file (tests load thousands).
    gzbuffer(impl_->gz.get(), unsigned(std::clamp<std::uint64_t>(size, 1 << 13, 1 << 18)));
}

TextChunks::~TextChunks() = default;

std::string TextChunks::lineTooLong(std::int64_t lineNo) const {
    return impl_->what + " " + quoted(impl_->file) + ": line " + std::to_string(lineNo) +
           " is longer than " + std::to_string(kMaxLineBytes >> 20) +
           " MiB; is this a text file with one row per line?";
}

bool TextChunks::fill(std::string& text, std::size_t want) {
    if (atEnd_)
        return false;
    const Impl& in = *impl_;
    throwIfCancelled(in.cancel);
    const std::size_t old = text.size();
    text.resize(old + want);
    const int got = gzread(in.gz.get(), text.data() + old, unsigned(want));
    text.resize(old + std::size_t(std::max(got, 0)));
    if (got <= 0) {
        checkGzipStream(in.gz.get(), got < 0, in.file, in.what);
        atEnd_ = true;
        return false;
    }
    total_ += std::uint64_t(got);
    if (total_ > in.maxBytes)
        throw InputError(in.what + " " + quoted(in.file) + " holds more than " +
                         sizeText(in.maxBytes) +
                         (gzdirect(in.gz.get()) ? "" : " once decompressed") +
                         ", more than this reader accepts; use a smaller file");
    return true;
}

bool TextChunks::next(std::string& text) {
    text.assign(carry_);
    carry_.clear();
    // text[0, lines) are whole lines; text[searched, size) not searched yet
    // for a "\n" (the carried bytes hold none).
    std::size_t lines = 0, searched = text.size();
    const auto cut = [&] {
        carry_.assign(text, lines);
        text.resize(lines);
        consumed_ += lines;
        return true;
    };
    for (;;) {
        // Read up to a chunk; a line longer than that doubles the text
        // until it ends or passes kMaxLineBytes.
        const std::size_t want = text.size() < chunkBytes_ ? chunkBytes_ - text.size()
                                                           : std::max(chunkBytes_, text.size());
        // At most 1 MiB a read, and not much beyond the content's size: the
        // text is zeroed as it grows.
        const std::uint64_t left = std::max<std::uint64_t>(
            sizeHint_ > total_ ? sizeHint_ - total_ + 1 : want, std::uint64_t(1) << 12);
        const bool more =
            fill(text, std::size_t(std::min<std::uint64_t>({want, std::uint64_t(1) << 20, left})));
        if (first_ && (text.size() >= 3 || !more)) {
            first_ = false;
            if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
                text.erase(0, 3);
                consumed_ += 3;
                searched = 0;
            }
        }
        if (!more) {
            consumed_ += text.size();
            return !text.empty();
        }
        if (first_)
            continue;
        if (const void* nl = memrchr(text.data() + searched, '\n', text.size() - searched))
            lines = std::size_t(static_cast<const char*>(nl) - text.data()) + 1;
        searched = text.size();
        if (text.size() - lines >= kMaxLineBytes) {
            if (lines == 0)
                throw LineTooLong{};
            return cut(); // the lines before it first: the caller counts them
        }
        if (text.size() >= chunkBytes_ && lines > 0)
            return cut();
    }
}

std::string describe(const std::string& name, const Dataset& ds) {
    return name + " (" + std::to_string(ds.rows) + " x " + std::to_string(ds.dim) + ", " +
           std::to_string(ds.numClasses) + " classes" + (ds.isSparse() ? ", sparse)" : ")");
}

} // namespace hwl::detail
