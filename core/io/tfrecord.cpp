#include "io/tfrecord.h"

#include "util/errors.h"

#include <array>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace hwl {

namespace {
constexpr std::array<std::uint32_t, 256> crcTable() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
    return table;
}
constexpr std::array<std::uint32_t, 256> kCrcTable = crcTable();

void putLittleEndian(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.push_back(char((value >> (8 * i)) & 0xffu));
}
} // namespace

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) {
    const auto* p = static_cast<const unsigned char*>(data);
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i)
        crc = kCrcTable[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

bool wholeRecords(std::string_view bytes) {
    const auto u32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (int i = 3; i >= 0; --i)
            v = (v << 8) | std::uint8_t(bytes[at + std::size_t(i)]);
        return v;
    };
    std::size_t at = 0, records = 0;
    while (at < bytes.size()) {
        if (bytes.size() - at < 12)
            return false;
        const std::uint64_t length = std::uint64_t(u32(at)) | (std::uint64_t(u32(at + 4)) << 32);
        if (maskedCrc(crc32c(bytes.data() + at, 8)) != u32(at + 8) ||
            length > bytes.size() - at - 12 || bytes.size() - at - 12 - length < 4)
            return false;
        const std::size_t data = at + 12;
        if (maskedCrc(crc32c(bytes.data() + data, std::size_t(length))) !=
            u32(data + std::size_t(length)))
            return false;
        at = data + std::size_t(length) + 4;
        ++records;
    }
    return records > 0;
}

std::string tfRecord(std::string_view data) {
    std::string record;
    record.reserve(data.size() + 16);
    putLittleEndian(record, data.size(), 8);
    putLittleEndian(record, maskedCrc(crc32c(record.data(), 8)), 4);
    record.append(data);
    putLittleEndian(record, maskedCrc(crc32c(data.data(), data.size())), 4);
    return record;
}

RecordWriter::RecordWriter(const std::filesystem::path& file) : path_(file) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw InputError("cannot create " + file.string() + ": " + std::strerror(errno));
    file_.reset(::fdopen(fd, "wb"));
    if (!file_) {
        const int err = errno;
        ::close(fd);
        throw InputError("cannot create " + file.string() + ": " + std::strerror(err));
    }
}

RecordWriter::~RecordWriter() {
    close();
}

void RecordWriter::fail(int err) {
    if (error_.empty())
        error_ = std::strerror(err ? err : EIO);
}

void RecordWriter::write(std::string_view data) {
    if (!file_ || !error_.empty())
        return;
    const std::string record = tfRecord(data);
    if (std::fwrite(record.data(), 1, record.size(), file_.get()) != record.size())
        fail(errno);
}

bool RecordWriter::flush() {
    if (file_ && error_.empty() && std::fflush(file_.get()) != 0)
        fail(errno);
    return error_.empty();
}

bool RecordWriter::close() {
    if (!file_)
        return error_.empty();
    flush();
    if (std::fclose(file_.release()) != 0)
        fail(errno);
    return error_.empty();
}

} // namespace hwl
