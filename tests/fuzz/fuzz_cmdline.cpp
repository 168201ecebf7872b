// fuzz_cmdline: hwl::parseCommandLine(args), the headless monitor's flags
// (the experiment field table's flags plus --config, --quiet, --help,
// --version, --headless), then validate() and toJson() of the result.
//
// Input: the arguments, separated by '\0' bytes (at most kMaxArgs; the rest
// is dropped), without the program name.
//
// parseCommandLine only sets fields: --help and --version set flags (the
// caller prints and exits), --out and --init are only stored, and the one
// flag that touches the file system is --config FILE, which reads it
// (refusing FIFOs and devices before opening). So that no input can make
// it read anything outside this harness (a /proc file that blocks, a huge
// file), every --config value is taken as a name inside the scratch
// directory, which holds: ok.json (the default experiment), bad.json
// (malformed), big.json (over the 1 MiB limit), pipe (a FIFO: must be
// refused, never opened) and dir/ (a directory). A value holding '/' or
// ".." skips the input.
//
// Failure: a crash, an ASan/UBSan report, a leak, a timeout (a blocking
// read), an allocation over -malloc_limit_mb, or an exception other than
// InputError/RunError.
#include "cli/commandline.h"
#include "config/experimentconfig.h"
#include "fuzzutil.h"
#include "strategy/validation.h"

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t kMaxArgs = 64;

/// Fills the scratch directory with the files --config may name; once.
const std::filesystem::path& configDir() {
    static const std::filesystem::path dir = [] {
        const std::filesystem::path d = hwl::fuzz::scratchDir();
        const std::string ok = hwl::ExperimentConfig::defaultJson();
        hwl::fuzz::writeScratch("ok.json", ok.data(), ok.size());
        const std::string bad = "{\"workers\": ";
        hwl::fuzz::writeScratch("bad.json", bad.data(), bad.size());
        const std::string big((1 << 20) + 1, ' ');
        hwl::fuzz::writeScratch("big.json", big.data(), big.size());
        if (::mkfifo((d / "pipe").c_str(), 0600) != 0)
            hwl::fuzz::harnessFailure("mkfifo failed");
        std::filesystem::create_directory(d / "dir");
        return d;
    }();
    return dir;
}

/// `name` as a path in configDir(); false when it could leave it.
bool inConfigDir(std::string& name) {
    if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
        return false;
    name = (configDir() / name).string();
    return true;
}

/// The input split on '\0', every --config value moved into configDir();
/// false when a value could name a file outside it.
bool splitArgs(const std::uint8_t* data, std::size_t size, std::vector<std::string>& args) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    while (size > 0 && args.size() < kMaxArgs) {
        const std::size_t stop = rest.find('\0');
        args.emplace_back(rest.substr(0, stop));
        if (stop == std::string_view::npos)
            break;
        rest.remove_prefix(stop + 1);
    }
    const std::string prefix = "--config=";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--config" && i + 1 < args.size()) {
            if (!inConfigDir(args[i + 1]))
                return false;
        } else if (args[i].rfind(prefix, 0) == 0) {
            std::string value = args[i].substr(prefix.size());
            if (!inConfigDir(value))
                return false;
            args[i] = prefix + value;
        }
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    if (!splitArgs(data, size, args))
        return 0;
    return hwl::fuzz::expectingInputErrors([&] {
        const hwl::CommandLine cl = hwl::parseCommandLine(args);
        (void)validateExperiment(cl.config);
        (void)cl.config.toJson();
    });
}
