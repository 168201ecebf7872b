#pragma once
// TFRecord framing, the container of TensorBoard's event files: each record
// is its length (uint64, little-endian), the masked CRC-32C of those 8
// bytes, the data, and the masked CRC-32C of the data (uint32s,
// little-endian). TensorFlow's record_writer.cc and crc32c.h define it.
#include "util/fileio.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace hwl {

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `n` bytes,
/// continuing from `crc` (0 for a new checksum).
std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0);

/// TensorFlow's masked CRC: rotated right by 15 bits plus 0xa282ead8, so a
/// CRC of data that holds CRCs is not a CRC of a CRC.
constexpr std::uint32_t maskedCrc(std::uint32_t crc) {
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/// The bytes of one framed record holding `data`.
std::string tfRecord(std::string_view data);

/// Whether `bytes` are whole framed records, at least one, each length and
/// data matching its CRC (a file a crash cut short, or another program's,
/// is not).
bool wholeRecords(std::string_view bytes);

/// Appends framed records to a new file. Nothing it does throws after the
/// constructor: a write that fails is remembered (error()) and the writer
/// writes nothing more, so a full disk costs the log, never the run.
class RecordWriter {
public:
    /// Creates `file`, which must not exist (O_EXCL: two writers never mix
    /// their records). InputError naming the file and the reason otherwise.
    explicit RecordWriter(const std::filesystem::path& file);
    ~RecordWriter();
    RecordWriter(const RecordWriter&) = delete;
    RecordWriter& operator=(const RecordWriter&) = delete;

    /// Buffers one record (written out by flush(), or when the buffer fills).
    void write(std::string_view data);
    /// Hands what is buffered to the system; false after any failure.
    bool flush();
    /// Flushes and closes; false after any failure. Idempotent.
    bool close();
    /// Why writing stopped ("No space left on device"); empty while it works.
    const std::string& error() const { return error_; }
    const std::filesystem::path& path() const { return path_; }

private:
    void fail(int err);

    std::filesystem::path path_;
    FilePtr file_;
    std::string error_;
};

} // namespace hwl
