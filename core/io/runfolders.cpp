#include "io/runfolders.h"

#include "config/fields.h"
#include "util/errors.h"
#include "util/textutil.h"

#include <algorithm>

namespace hwl {

namespace fs = std::filesystem;

bool isRunFolder(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "summary.json", ec);
}

std::vector<fs::path> findRunFolders(const fs::path& dir) {
    if (isRunFolder(dir))
        return {dir};
    std::vector<fs::path> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
        end;
    for (; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= kRunFolderDepth) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->path().filename().string().rfind(".hwl-", 0) == 0) {
            it.disable_recursion_pending(); // a run's staging or commit folder
            continue;
        }
        if (it->is_directory(ec) && isRunFolder(it->path())) {
            found.push_back(it->path());
            it.disable_recursion_pending(); // a run's folder holds no runs
            if (found.size() > kMaxRunFolders)
                throw InputError(quoted(dir) + " holds more than " +
                                 std::to_string(kMaxRunFolders) +
                                 " runs: name one of its folders instead");
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

bool isFolderField(const std::string& key) {
    return key == "out" || key == "tensorboard" || key == "resume" || key == "init";
}

std::vector<std::vector<std::size_t>>
repeatGroups(const std::vector<std::map<std::string, std::string>>& fields) {
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::map<std::string, std::string>, std::size_t> groupOf; // identity -> group
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].count("seed") == 0) { // not known to be a repeat of anything
            groups.push_back({i});
            continue;
        }
        std::map<std::string, std::string> identity;
        for (const auto& [key, value] : fields[i])
            if (key != "seed" && !isFolderField(key))
                identity.emplace(key, value);
        const auto [at, added] = groupOf.try_emplace(std::move(identity), groups.size());
        if (added)
            groups.push_back({i});
        else
            groups[at->second].push_back(i);
    }
    return groups;
}

namespace {
std::size_t fieldRank(const std::string& key) {
    const auto& all = experimentFields();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].key == key)
            return i;
    return all.size();
}
} // namespace

std::vector<std::string>
varyingKeys(const std::vector<std::map<std::string, std::string>>& fields) {
    std::map<std::string, std::vector<std::string>> seen;
    for (const auto& run : fields)
        for (const auto& [key, value] : run)
            seen[key].push_back(value);
    std::vector<std::string> keys;
    for (auto& [key, values] : seen) {
        if (isFolderField(key))
            continue;
        std::sort(values.begin(), values.end());
        // Varies: two values, or known to some runs only.
        if (values.front() != values.back() || values.size() != fields.size())
            keys.push_back(key);
    }
    std::stable_sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
        return fieldRank(a) < fieldRank(b);
    });
    return keys;
}

} // namespace hwl
