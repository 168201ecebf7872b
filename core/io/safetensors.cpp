// Safetensors reading and writing.
//
// The reader treats every byte of the file as hostile: sizes are checked
// against the real file size before anything is allocated, and the JSON
// header is scanned (syntax, nesting, duplicate keys) before a DOM is built.
#include "io/tensorfile.h"
#include "io/tensorformat.h"

#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

namespace hwl {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using detail::jsonQuoted;
using detail::kMetadataKey;
using detail::kWeightsFile;

/// Same cap as the reference implementation: no real header comes close.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
/// Top-level object -> tensor object -> shape/offsets array.
constexpr int kMaxHeaderDepth = 3;

/// Bytes of float32 data for `shape`; nullopt when that overflows 64 bits.
/// Any zero dimension makes the tensor empty, whatever the other dims are.
std::optional<std::uint64_t> f32Bytes(const std::vector<std::uint64_t>& shape) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
        return 0;
    std::optional<std::uint64_t> n = 4;
    for (std::uint64_t d : shape)
        if (!(n = detail::checkedMul(*n, d)))
            return std::nullopt;
    return n;
}

void appendU64LE(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::uint64_t loadU64LE(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

void floatsFromLE(std::vector<float>& v) {
    if constexpr (std::endian::native != std::endian::little) {
        auto* bytes = reinterpret_cast<unsigned char*>(v.data());
        for (std::size_t i = 0; i < v.size() * 4; i += 4)
            std::reverse(bytes + i, bytes + i + 4);
    }
}

// ------------------------------------------------------------------ writing --

/// The JSON header, padded with spaces so that 8 + its length is a multiple of 8.
std::string safetensorsHeader(const fs::path& file, const std::vector<TensorRef>& tensors,
                              const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    // Metadata holds paths, which are bytes: a byte that is not UTF-8
    // becomes U+FFFD there rather than failing the write.
    for (const auto& [key, value] : metadata)
        header[std::string(kMetadataKey)][detail::validUtf8(key)] = detail::validUtf8(value);
    std::uint64_t offset = 0;
    for (const TensorRef& t : tensors) {
        const std::uint64_t end = offset + detail::elementCount(t) * 4;
        header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string text;
    try {
        text = header.dump();
    } catch (const Json::type_error&) {
        detail::throwCannotWrite(file, {kWeightsFile.kind, {}}, "a tensor name is not valid UTF-8");
    }
    text.append((8 - text.size() % 8) % 8, ' ');
    return text;
}

// ------------------------------------------------------------------ reading --

/// A problem with the file's contents; readSafetensors adds the file name.
struct BadFile : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// SAX pass over the header before building a DOM: syntax errors, nesting
/// deeper than a safetensors header has (a hostile "[[[[..." would otherwise
/// become a huge tree), and duplicate top-level keys (which the DOM would
/// silently merge).
struct HeaderScan {
    int depth = 0;
    std::set<std::string> topKeys;
    std::string problem;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Json::number_integer_t) { return true; }
    bool number_unsigned(Json::number_unsigned_t) { return true; }
    bool number_float(Json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(Json::binary_t&) { return true; }
    bool start_object(std::size_t) { return enter(); }
    bool start_array(std::size_t) { return enter(); }
    bool end_object() { return --depth, true; }
    bool end_array() { return --depth, true; }
    bool key(std::string& k) {
        if (depth == 1 && !topKeys.insert(k).second)
            return fail("header has the key " + jsonQuoted(k) + " twice");
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        return fail(std::string("header is not valid JSON: ") + e.what());
    }

private:
    bool enter() {
        if (++depth > kMaxHeaderDepth)
            return fail("header nests deeper than " + std::to_string(kMaxHeaderDepth) +
                        " levels; a safetensors header never does");
        return true;
    }
    bool fail(std::string why) {
        problem = std::move(why);
        return false;
    }
};

Json parseHeader(const std::string& text) {
    HeaderScan scan;
    if (!Json::sax_parse(text, &scan))
        throw BadFile(scan.problem);
    Json header = Json::parse(text);
    if (!header.is_object())
        throw BadFile("header is a JSON " + std::string(header.type_name()) +
                      ", expected an object");
    return header;
}

std::map<std::string, std::string> parseMetadata(const Json& header) {
    std::map<std::string, std::string> out;
    const auto it = header.find(kMetadataKey);
    if (it == header.end())
        return out;
    if (!it->is_object())
        throw BadFile("\"__metadata__\" must be an object of strings, not a " +
                      std::string(it->type_name()));
    for (const auto& [key, value] : it->items()) {
        if (!value.is_string())
            throw BadFile("\"__metadata__\" must map strings to strings, but " + jsonQuoted(key) +
                          " maps to a " + value.type_name());
        out[key] = value.get<std::string>();
    }
    return out;
}

/// One header entry, validated.
struct Entry {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

std::optional<std::uint64_t> asU64(const Json& v) {
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::nullopt;
}

/// Non-negative integers; each must also fit the int64 of Tensor::shape.
std::optional<std::vector<std::uint64_t>> asIndexList(const Json& v, std::uint64_t limit) {
    if (!v.is_array())
        return std::nullopt;
    std::vector<std::uint64_t> out;
    for (const Json& x : v) {
        const auto n = asU64(x);
        if (!n || *n > limit)
            return std::nullopt;
        out.push_back(*n);
    }
    return out;
}

const Json& field(const Json& entry, const std::string& name, const char* key) {
    const auto it = entry.find(key);
    if (it == entry.end())
        throw BadFile("tensor " + jsonQuoted(name) + " has no \"" + key + "\"");
    return *it;
}

void checkDtype(const std::string& name, const Json& dtype) {
    if (!dtype.is_string())
        throw BadFile("tensor " + jsonQuoted(name) + ": dtype must be a string like \"F32\"");
    if (dtype.get<std::string>() != "F32")
        throw BadFile("tensor " + jsonQuoted(name) + " has dtype " +
                      jsonQuoted(dtype.get<std::string>()) + "; only F32 is supported");
}

Entry parseEntry(const std::string& name, const Json& v, std::uint64_t dataSize) {
    const std::string what = "tensor " + jsonQuoted(name);
    if (!v.is_object())
        throw BadFile(what + " must be an object with dtype, shape and data_offsets");
    checkDtype(name, field(v, name, "dtype"));
    Entry e{name, {}, 0, 0};
    const auto shape =
        asIndexList(field(v, name, "shape"), std::numeric_limits<std::int64_t>::max());
    if (!shape)
        throw BadFile(what + ": shape must be a list of non-negative integers below 2^63");
    e.shape = *shape;
    const auto bytes = f32Bytes(e.shape);
    if (!bytes)
        throw BadFile(what + ": shape " + bracketedList(e.shape) +
                      " is too large (its byte size overflows 64 bits)");
    const auto offsets =
        asIndexList(field(v, name, "data_offsets"), std::numeric_limits<std::uint64_t>::max());
    if (!offsets || offsets->size() != 2 || (*offsets)[0] > (*offsets)[1])
        throw BadFile(what + ": data_offsets must be [begin, end] with 0 <= begin <= end");
    e.begin = (*offsets)[0];
    e.end = (*offsets)[1];
    if (e.end > dataSize)
        throw BadFile(what + ": data_offsets " + bracketedList(*offsets) +
                      " are out of bounds: the data buffer has only " + std::to_string(dataSize) +
                      " bytes");
    if (*bytes != e.end - e.begin)
        throw BadFile(what + ": shape " + bracketedList(e.shape) + " needs " +
                      std::to_string(*bytes) + " bytes but data_offsets " +
                      bracketedList(*offsets) + " span " + std::to_string(e.end - e.begin));
    return e;
}

BadFile uncovered(std::uint64_t begin, std::uint64_t end) {
    return BadFile("bytes [" + std::to_string(begin) + ", " + std::to_string(end) +
                   ") of the data buffer belong to no tensor");
}

/// Per the spec the tensors tile the data buffer: no overlap, no gap.
void checkTiling(const std::vector<Entry>& entries, std::uint64_t dataSize) {
    std::uint64_t covered = 0;
    const Entry* prev = nullptr;
    for (const Entry& e : entries) {
        if (e.begin < covered)
            throw BadFile("tensors " + jsonQuoted(prev->name) + " and " + jsonQuoted(e.name) +
                          " overlap (data_offsets " +
                          bracketedList(std::vector{prev->begin, prev->end}) + " and " +
                          bracketedList(std::vector{e.begin, e.end}) + ")");
        if (e.begin > covered)
            throw uncovered(covered, e.begin);
        covered = e.end;
        prev = &e;
    }
    if (covered != dataSize)
        throw uncovered(covered, dataSize);
}

/// Entries in file-layout order (ascending data_offsets), fully validated.
std::vector<Entry> parseEntries(const Json& header, std::uint64_t dataSize) {
    std::vector<Entry> entries;
    for (const auto& [name, value] : header.items())
        if (name != kMetadataKey)
            entries.push_back(parseEntry(name, value, dataSize));
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
    });
    checkTiling(entries, dataSize);
    return entries;
}

FilePtr openForReading(const fs::path& file) {
    std::string whyNot;
    FilePtr f = openRegularFile(file, whyNot);
    if (!f && errno == EINVAL)
        throw BadFile(whyNot); // "is a FIFO (named pipe), not a regular file"
    if (!f)
        throw BadFile("cannot open it: " + errnoText(errno));
    return f;
}

void readExactly(std::FILE* f, void* out, std::uint64_t n) {
    if (n > 0 && std::fread(out, 1, n, f) != n)
        throw BadFile(std::ferror(f) ? "read failed: " + errnoText(errno)
                                     : std::string("file ended early (changed while reading?)"));
}

std::uint64_t fileSize(std::FILE* f) {
    struct stat st {};
    if (::fstat(::fileno(f), &st) != 0)
        throw BadFile("cannot stat it: " + errnoText(errno));
    return static_cast<std::uint64_t>(st.st_size);
}

std::vector<Tensor> readChecked(const fs::path& file,
                                std::map<std::string, std::string>* metadata) {
    const FilePtr f = openForReading(file);
    const std::uint64_t size = fileSize(f.get());
    if (size < 8)
        throw BadFile("file is only " + std::to_string(size) +
                      " bytes; a safetensors file starts with an 8-byte header length");
    std::array<unsigned char, 8> lengthBytes{};
    readExactly(f.get(), lengthBytes.data(), 8);
    const std::uint64_t n = loadU64LE(lengthBytes.data());
    if (n > size - 8)
        throw BadFile("header claims " + std::to_string(n) + " bytes but the file has only " +
                      std::to_string(size - 8) + " after the 8-byte length");
    if (n > kMaxHeaderBytes)
        throw BadFile("header claims " + std::to_string(n) + " bytes, more than the limit of " +
                      std::to_string(kMaxHeaderBytes));
    std::string text(n, '\0');
    readExactly(f.get(), text.data(), n);
    const Json header = parseHeader(text);
    auto meta = parseMetadata(header);
    const std::vector<Entry> entries = parseEntries(header, size - 8 - n);

    // Every size below was checked against the real file size: safe to allocate.
    std::vector<Tensor> out;
    out.reserve(entries.size());
    for (const Entry& e : entries) {
        Tensor t{e.name, std::vector<std::int64_t>(e.shape.begin(), e.shape.end()), {}};
        t.data.resize((e.end - e.begin) / 4);
        readExactly(f.get(), t.data.data(), e.end - e.begin);
        floatsFromLE(t.data);
        out.push_back(std::move(t));
    }
    if (metadata)
        *metadata = std::move(meta);
    return out;
}

} // namespace

void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorRef>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    detail::checkForWriting(tensors);
    std::string head;
    const std::string json = safetensorsHeader(file, tensors, metadata);
    appendU64LE(head, json.size());
    head += json;
    // Kept as separate parts so the weights are not copied on little-endian hosts.
    std::deque<std::string> converted;
    std::vector<std::string_view> parts{head};
    for (const TensorRef& t : tensors) {
        const std::size_t n = detail::elementCount(t);
        if constexpr (std::endian::native == std::endian::little)
            parts.emplace_back(reinterpret_cast<const char*>(t.data), n * 4);
        else
            parts.emplace_back(converted.emplace_back(detail::floatsLE(t.data, n)));
    }
    detail::writePartsAtomically(file, parts, kWeightsFile);
}

std::vector<Tensor> readSafetensors(const std::filesystem::path& file,
                                    std::map<std::string, std::string>* metadata) {
    try {
        return readChecked(file, metadata);
    } catch (const BadFile& e) {
        throw InputError("weights file " + quoted(file) + ": " + e.what());
    }
}

} // namespace hwl
