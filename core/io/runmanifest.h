#pragma once
// manifest.json: the last file a run writes into its --out folder, naming
// every other file it wrote with its size and CRC-32C, the run's end state
// and its experiment's fingerprint. A folder is a whole run only when its
// manifest says so and every file matches it (docs/file-formats.md,
// "manifest.json"); run/outputfolder.h writes it, everything that trusts a
// run folder (a sweep started again, --resume, --compare, the window's runs)
// checks it here.
#include "config/experimentconfig.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hwl {

inline constexpr const char* kManifestFile = "manifest.json";
/// The files --out writes, in the order a run writes them; the manifest last.
inline constexpr const char* kRunFiles[] = {
    "weights.safetensors", "weights.npz",     "model.onnx",   "optimizer.safetensors",
    "metrics.csv",         "experiment.json", "summary.json", kManifestFile};

/// The names of kRunFiles that `dir` holds, in that order; empty when it
/// holds none (or does not exist).
std::vector<std::string> runFilesIn(const std::filesystem::path& dir);
/// A run's staged files once complete: renamed into the folder from here.
inline constexpr const char* kCommitFolder = ".hwl-commit";
/// A run's files while they are written: ".hwl-staging-<pid>" in the folder.
inline constexpr const char* kStagingPrefix = ".hwl-staging-";

struct ManifestEntry {
    std::string name;
    std::uint64_t size = 0;
    std::uint32_t crc32c = 0;
};

struct RunManifest {
    std::string state;      ///< stateName() of the run's end: "finished", "stopped", ...
    std::string experiment; ///< experimentFingerprint() of the run's experiment
    std::vector<ManifestEntry> files;
};

/// 16 hex digits that change when any field of the experiment changes, but
/// not where it writes (out, tensorboard, resume).
std::string experimentFingerprint(ExperimentConfig config);

/// `name` in `dir`, measured (size, CRC-32C read in pieces). InputError
/// naming the file when it cannot be read.
ManifestEntry describeFile(const std::filesystem::path& dir, const std::string& name);

std::string manifestJson(const RunManifest& manifest);
/// InputError naming `origin` when `text` is not a manifest.
RunManifest manifestFromJson(const std::string& text, const std::string& origin);
/// The manifest in `dir` (InputError naming it when missing, too large or
/// not a manifest).
RunManifest readManifest(const std::filesystem::path& dir);

/// What a folder's files say of the run in it.
enum class FolderTrust {
    Whole,           ///< a manifest, and every file as it says
    BeforeManifests, ///< run files but no manifest: written before manifests existed
    Interrupted,     ///< a commit was cut short (.hwl-commit): the next run completes it
    Broken,          ///< the manifest and the files disagree (why says how)
    Empty,           ///< no run in it
};

struct FolderCheck {
    FolderTrust trust = FolderTrust::Empty;
    std::string why; ///< what is wrong (Broken, Interrupted), or a note (BeforeManifests)
    RunManifest manifest;
    bool whole() const { return trust == FolderTrust::Whole; }
};

/// Checks the run in `dir` against its manifest: every file listed is there
/// with its size (and, with `hashes`, its CRC), and no run file (kRunFiles)
/// is there that the manifest does not list.
FolderCheck checkRunFolder(const std::filesystem::path& dir, bool hashes);

/// One line for a folder that is not whole, naming it: "out/run-1: ...".
std::string trustText(const std::filesystem::path& dir, const FolderCheck& check);

} // namespace hwl
