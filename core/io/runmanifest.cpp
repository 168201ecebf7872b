#include "io/runmanifest.h"

#include "io/tfrecord.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace hwl {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {
constexpr const char* kFormat = "hogwild-lab run manifest";
constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;

std::string hex(std::uint64_t value, int digits) {
    char text[20];
    std::snprintf(text, sizeof text, "%0*" PRIx64, digits, value);
    return text;
}
} // namespace

std::vector<std::string> runFilesIn(const fs::path& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec))
        return found;
    for (const char* name : kRunFiles)
        if (fs::is_regular_file(dir / name, ec))
            found.emplace_back(name);
    return found;
}

std::string experimentFingerprint(ExperimentConfig config) {
    config.out.clear();
    config.tensorboard.clear();
    config.resume.clear();
    const std::string text = config.toJson();
    // Two CRCs of the text (the second seeded) make 64 bits.
    const std::uint32_t a = crc32c(text.data(), text.size());
    const std::uint32_t b = crc32c(text.data(), text.size(), 0x9e3779b9u);
    return hex((std::uint64_t(a) << 32) | b, 16);
}

ManifestEntry describeFile(const fs::path& dir, const std::string& name) {
    const fs::path file = dir / name;
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError(quoted(file) + " cannot be read");
    ManifestEntry entry{name, 0, 0};
    std::vector<char> buffer(1 << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const auto n = std::size_t(in.gcount());
        entry.crc32c = crc32c(buffer.data(), n, entry.crc32c);
        entry.size += n;
    }
    if (in.bad())
        throw InputError(quoted(file) + " cannot be read to its end");
    return entry;
}

std::string manifestJson(const RunManifest& manifest) {
    ordered_json files = ordered_json::array();
    for (const ManifestEntry& f : manifest.files)
        files.push_back({{"name", f.name}, {"size", f.size}, {"crc32c", hex(f.crc32c, 8)}});
    const ordered_json j = {{"format", kFormat},
                            {"version", 1},
                            {"state", manifest.state},
                            {"experiment", manifest.experiment},
                            {"files", files}};
    return j.dump(2) + "\n";
}

RunManifest manifestFromJson(const std::string& text, const std::string& origin) {
    const auto bad = [&](const std::string& why) {
        return InputError(origin + " is not a run manifest: " + why);
    };
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw bad("not a JSON object");
    if (j.value("format", "") != kFormat || !j.contains("version") ||
        !j["version"].is_number_integer())
        throw bad("no \"format\": \"" + std::string(kFormat) + "\" with a version");
    if (j["version"].get<long long>() != 1)
        throw bad("version " + j["version"].dump() + ", where this program reads 1");
    RunManifest m;
    if (!j.contains("state") || !j["state"].is_string() || !j.contains("files") ||
        !j["files"].is_array())
        throw bad("no \"state\" or no \"files\"");
    m.state = j["state"].get<std::string>();
    m.experiment = j.value("experiment", "");
    for (const json& f : j["files"]) {
        if (!f.is_object() || !f.contains("name") || !f["name"].is_string() ||
            !f.contains("size") || !f["size"].is_number_unsigned() || !f.contains("crc32c") ||
            !f["crc32c"].is_string())
            throw bad("a file without its name, size and crc32c");
        const std::string crc = f["crc32c"].get<std::string>();
        if (crc.size() != 8 || crc.find_first_not_of("0123456789abcdef") != std::string::npos)
            throw bad("crc32c \"" + crc + "\" is not 8 hex digits");
        const std::string name = f["name"].get<std::string>();
        if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
            throw bad("file name \"" + name + "\" is not a plain name");
        m.files.push_back(
            {name, f["size"].get<std::uint64_t>(), std::uint32_t(std::stoul(crc, nullptr, 16))});
    }
    return m;
}

RunManifest readManifest(const fs::path& dir) {
    const fs::path file = dir / kManifestFile;
    if (const std::string kind = nonRegularKind(file); !kind.empty())
        throw InputError(quoted(file) + " is " + kind + ", not a run manifest");
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec)
        throw InputError(quoted(file) + " cannot be read: " + ec.message());
    if (size > kMaxManifestBytes)
        throw InputError(quoted(file) + " is " + std::to_string(size) +
                         " bytes, more than a run manifest's 1 MiB");
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in)
        throw InputError(quoted(file) + " cannot be read");
    return manifestFromJson(text.str(), quoted(file));
}

namespace {
FolderCheck broken(std::string why) {
    return {FolderTrust::Broken, std::move(why), {}};
}

/// Where `manifest` and the files in `dir` disagree; empty when they do not.
std::string disagreement(const fs::path& dir, const RunManifest& manifest, bool hashes) {
    for (const ManifestEntry& f : manifest.files) {
        std::error_code ec;
        if (!fs::is_regular_file(dir / f.name, ec))
            return f.name + " is missing";
        const std::uintmax_t size = fs::file_size(dir / f.name, ec);
        if (ec || size != f.size)
            return f.name + " is " + std::to_string(size) + " bytes where the manifest says " +
                   std::to_string(f.size);
        if (hashes && describeFile(dir, f.name).crc32c != f.crc32c)
            return f.name + "'s CRC is not the manifest's";
    }
    for (const std::string& name : runFilesIn(dir)) {
        bool listed = name == kManifestFile;
        for (const ManifestEntry& f : manifest.files)
            listed = listed || f.name == name;
        if (!listed)
            return name + " is not in the manifest (another run's file)";
    }
    return {};
}
} // namespace

FolderCheck checkRunFolder(const fs::path& dir, bool hashes) {
    std::error_code ec;
    if (fs::exists(dir / kCommitFolder, ec))
        return {FolderTrust::Interrupted,
                "the writing of a run was cut short; the next run into this folder completes it",
                {}};
    if (!fs::exists(dir / kManifestFile, ec)) {
        if (runFilesIn(dir).empty())
            return {FolderTrust::Empty, "no run", {}};
        return {FolderTrust::BeforeManifests,
                "written before runs had a manifest: its files are not checked",
                {}};
    }
    FolderCheck check;
    try {
        check.manifest = readManifest(dir);
        if (std::string why = disagreement(dir, check.manifest, hashes); !why.empty())
            return broken(std::move(why));
    } catch (const InputError& e) {
        return broken(e.what());
    }
    check.trust = FolderTrust::Whole;
    return check;
}

std::string trustText(const fs::path& dir, const FolderCheck& check) {
    switch (check.trust) {
    case FolderTrust::Whole:
        return dir.string() + ": a whole run";
    case FolderTrust::BeforeManifests:
        return dir.string() + ": " + check.why;
    case FolderTrust::Interrupted:
        return dir.string() + ": " + check.why;
    case FolderTrust::Broken:
        return dir.string() + ": not a whole run: " + check.why;
    case FolderTrust::Empty:
        break;
    }
    return dir.string() + ": no run";
}

} // namespace hwl
