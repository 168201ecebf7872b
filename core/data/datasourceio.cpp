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

struct TextLines::Impl {
    std::filesystem::path file;
    std::string what;
    FilePtr f;
    std::unique_ptr<gzFile_s, GzCloser> gz;
    std::uint64_t maxBytes;
};

TextLines::TextLines(const std::filesystem::path& file, std::uint64_t maxBytes,
                     const std::string& what)
    : impl_(new Impl{file, what, openDataFile(file, what), nullptr, maxBytes}) {
    impl_->gz = gzReader(impl_->f.get(), file, what); // plain files pass through
    gzbuffer(impl_->gz.get(), 1 << 18);
    buffer_.resize(std::size_t(1) << 16); // grows to 4 MiB as the file proves longer
}

TextLines::~TextLines() = default;

bool TextLines::fill() {
    if (atEnd_)
        return false;
    // Keep what is left of a line at the front; grow only for a long line.
    if (begin_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    throwIfCancelled();
    const Impl& in = *impl_;
    if (buffer_.size() < (std::size_t(1) << 22) && total_ >= buffer_.size())
        buffer_.resize(buffer_.size() * 2); // a long file: read it in larger chunks
    if (end_ == buffer_.size()) {
        if (buffer_.size() >= kMaxLineBytes)
            throw InputError(in.what + " " + quoted(in.file) + ": line " +
                             std::to_string(number_ + 1) + " is longer than " +
                             std::to_string(kMaxLineBytes >> 20) +
                             " MiB; is this a text file with one row per line?");
        buffer_.resize(std::min(buffer_.size() * 2, kMaxLineBytes));
    }
    const int got = gzread(in.gz.get(), buffer_.data() + end_, unsigned(buffer_.size() - end_));
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
    end_ += std::size_t(got);
    if (first_ && end_ >= 3) {
        first_ = false;
        if (buffer_.compare(0, 3, "\xEF\xBB\xBF") == 0)
            begin_ = 3;
    }
    return true;
}

bool TextLines::next(std::string_view& line) {
    const char* nl = nullptr;
    for (;;) {
        nl = static_cast<const char*>(std::memchr(buffer_.data() + begin_, '\n', end_ - begin_));
        if (nl || !fill()) // fill() may move the bytes: search again
            break;
    }
    if (!nl && begin_ == end_)
        return false;
    const char* from = buffer_.data() + begin_;
    const char* e = nl ? nl : buffer_.data() + end_;
    line = std::string_view(from, std::size_t(e - from));
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    begin_ = std::size_t(e - buffer_.data()) + (nl ? 1 : 0);
    ++number_;
    return true;
}

std::string describe(const std::string& name, const Dataset& ds) {
    return name + " (" + std::to_string(ds.rows) + " x " + std::to_string(ds.dim) + ", " +
           std::to_string(ds.numClasses) + " classes" + (ds.isSparse() ? ", sparse)" : ")");
}

} // namespace hwl::detail
