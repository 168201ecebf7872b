// Every test process gets a temporary folder of its own: before main(), TMPDIR
// is pointed at a fresh folder under the inherited one (or /tmp), so that
// tests running side by side (ctest -j) never count or remove each other's
// files; the programs a test starts inherit it. The folder and what is left
// in it go when the test process exits (not when a forked child does).
#include "util/fileio.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace {

class PrivateTmp {
public:
    PrivateTmp() : owner_(getpid()) {
        const std::string base = hwl::tempDirectory(); // $TMPDIR, else /tmp
        std::string pattern = base + "/hwl-test-XXXXXX";
        if (!mkdtemp(pattern.data())) {
            std::perror(("privatetmp: cannot create a folder in " + base).c_str());
            std::exit(2);
        }
        folder_ = pattern;
        setenv("TMPDIR", folder_.c_str(), 1);
    }
    ~PrivateTmp() {
        if (getpid() != owner_)
            return;
        std::error_code ignored;
        std::filesystem::remove_all(folder_, ignored);
    }
    PrivateTmp(const PrivateTmp&) = delete;
    PrivateTmp& operator=(const PrivateTmp&) = delete;

private:
    pid_t owner_;
    std::string folder_;
};

const PrivateTmp privateTmp;

} // namespace
