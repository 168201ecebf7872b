#pragma once
// Runs kept on disk, and which of them repeat one experiment. Where
// `hogwild-lab --compare DIR` and the window's Open find runs: a run's --out
// folder, or every run folder below a sweep's, a comparison preset's or any
// other folder, down to kRunFolderDepth levels. And the one rule by which
// runs are repeats, used by --compare's table and the window's Runs table,
// and which fields set runs apart.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hwl {

/// How deep below a folder run folders are looked for (a sweep's runs are
/// one level down, a comparison preset's sweep two).
constexpr int kRunFolderDepth = 4;
/// The most runs one folder may hold: a bound on what is read.
constexpr std::size_t kMaxRunFolders = 10000;

/// Whether `dir` is a run's folder: it holds summary.json.
bool isRunFolder(const std::filesystem::path& dir);

/// The run folders at or below `dir`, in path order: `dir` itself when it is
/// one (a run's folder holds no runs). InputError when `dir` holds more than
/// kMaxRunFolders; folders that cannot be read are passed over.
std::vector<std::filesystem::path> findRunFolders(const std::filesystem::path& dir);

/// Where a run wrote or started from, not what it was (out, tensorboard,
/// resume, init): never a column, never what sets two runs apart.
bool isFolderField(const std::string& key);

/// Repeats: the runs whose experiment fields (`fields[i]`, key -> value text)
/// are equal but for their seed and their folders (isFolderField), as groups
/// of indices, each in the order of the runs and the groups in the order of
/// their first run. A run whose fields hold no seed is a group of its own.
std::vector<std::vector<std::size_t>>
repeatGroups(const std::vector<std::map<std::string, std::string>>& fields);

/// The keys whose value differs between the runs (or that some runs lack),
/// the folders aside, in the field table's order (config/fields.h): what
/// sets runs apart, for a table's columns or a legend's names.
std::vector<std::string> varyingKeys(const std::vector<std::map<std::string, std::string>>& fields);

} // namespace hwl
