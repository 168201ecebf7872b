#include "cli/compare.h"

#include "io/runfolders.h"
#include "io/runmanifest.h"
#include "io/runscompare.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/spelling.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace hwl {

namespace {
namespace fs = std::filesystem;

struct CompareArgs {
    std::vector<std::string> folders;
    std::string sort;
    bool reverse = false, repeats = true;
    TableFormat format = TableFormat::Text;
};

[[noreturn]] void bad(const std::string& why) {
    throw InputError("compare: " + why +
                     " (usage: hogwild-lab --compare DIR... [--sort COLUMN] "
                     "[--reverse] [--format text|csv|markdown] "
                     "[--no-repeats])");
}

CompareArgs parseArgs(const std::vector<std::string>& args) {
    CompareArgs a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                bad(arg + " needs a value");
            return args[++i];
        };
        if (arg == "--compare" || arg == "--headless")
            continue;
        if (arg == "--sort")
            a.sort = value();
        else if (arg == "--reverse")
            a.reverse = true;
        else if (arg == "--no-repeats")
            a.repeats = false;
        else if (arg == "--format") {
            const std::string& f = value();
            if (f == "text")
                a.format = TableFormat::Text;
            else if (f == "csv")
                a.format = TableFormat::Csv;
            else if (f == "markdown")
                a.format = TableFormat::Markdown;
            else
                bad("--format must be text, csv or markdown (got \"" + f + "\")");
        } else if (arg == "--")
            a.folders.insert(a.folders.end(), args.begin() + std::ptrdiff_t(i) + 1, args.end()),
                i = args.size();
        else if (arg.rfind("--", 0) == 0) {
            const auto near =
                nearestName(arg, {"--sort", "--reverse", "--no-repeats", "--format", "--compare"});
            bad("unknown flag " + arg + (near ? "; did you mean " + *near + "?" : std::string()));
        } else
            a.folders.push_back(arg);
    }
    if (a.folders.empty())
        bad("name the run folders to compare");
    return a;
}

/// summary.json's text; InputError naming it when it is not a regular file
/// or larger than any run's summary (16 MiB).
std::string readSummary(const fs::path& file) {
    if (const std::string kind = nonRegularKind(file); !kind.empty())
        throw InputError(quoted(file) + " is " + kind + ", not a run's summary.json");
    constexpr std::uintmax_t kMaxBytes = std::uintmax_t(16) << 20;
    std::error_code ec;
    if (const std::uintmax_t size = fs::file_size(file, ec); !ec && size > kMaxBytes)
        throw InputError(quoted(file) + " is " + std::to_string(size >> 20) +
                         " MiB, more than a run's summary.json (16 MiB at most)");
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// One run folder of the comparison: its row, or a warning on stderr (and
/// `code` 1) for a folder that is not a whole run or not a summary.
void readRun(const fs::path& run, std::vector<FolderRun>& runs, int& code) {
    const FolderCheck check = checkRunFolder(run, false);
    if (check.trust == FolderTrust::Broken || check.trust == FolderTrust::Interrupted) {
        std::fprintf(stderr, "warning: compare: left out %s\n", trustText(run, check).c_str());
        code = 1;
        return;
    }
    if (check.trust == FolderTrust::BeforeManifests)
        std::fprintf(stderr, "note: compare: %s\n", trustText(run, check).c_str());
    const fs::path file = run / "summary.json";
    try {
        runs.push_back(folderRunFromJson(readSummary(file), run.string(), file.string()));
    } catch (const InputError& e) {
        std::fprintf(stderr, "warning: compare: left out %s: %s\n", run.c_str(), e.what());
        code = 1;
    }
}
} // namespace

bool wantsCompare(const std::vector<std::string>& args) {
    return std::find(args.begin(), args.end(), "--compare") != args.end();
}

int runCompare(const std::vector<std::string>& args) {
    const CompareArgs a = parseArgs(args);
    std::vector<FolderRun> runs;
    std::set<std::string> seen;
    int code = 0;
    for (const std::string& folder : a.folders) {
        const fs::path dir(folder);
        std::error_code ec;
        if (!fs::exists(dir, ec))
            bad(quoted(dir) + " does not exist");
        if (!fs::is_directory(dir, ec))
            bad(quoted(dir) + " is not a folder: name a run's --out folder or a sweep's");
        if (const std::string kind = nonRegularKind(dir / "summary.json"); !kind.empty())
            bad(quoted(dir / "summary.json") + " is " + kind + ", not a run's summary.json");
        const std::vector<fs::path> found = findRunFolders(dir);
        if (found.empty())
            bad(quoted(dir) + " holds no run: no summary.json in it or in its folders (name a " +
                "run's --out folder or a sweep's)");
        for (const fs::path& run : found) {
            if (!seen.insert(fs::weakly_canonical(run, ec).string()).second) {
                std::fprintf(stderr, "note: compare: %s is named more than once; listed once\n",
                             run.c_str());
                continue;
            }
            readRun(run, runs, code);
        }
    }
    RunsTable table = runsTable(runs, a.repeats);
    if (!a.sort.empty() && !sortRunsTable(table, a.sort, a.reverse)) {
        std::string columns;
        for (const std::string& c : table.header)
            columns += (columns.empty() ? "" : ", ") + c;
        bad("--sort: no column \"" + a.sort + "\"; the columns: " + columns);
    }
    std::fputs(formatRunsTable(table, a.format).c_str(), stdout);
    return code;
}

} // namespace hwl
