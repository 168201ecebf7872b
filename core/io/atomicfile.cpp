#include "io/atomicfile.h"

#include "util/errors.h"
#include "util/fileio.h"
#include "util/persistence.h"
#include "util/textutil.h"

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace hwl {

int removeStaleTemporaries(const std::filesystem::path& dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const std::size_t tmp = name.rfind(".tmp-");
        if (tmp == std::string::npos || tmp == 0 || !entry.is_regular_file(ec))
            continue;
        const std::string rest = name.substr(tmp + 5); // "<pid>-<n>"
        const std::size_t dash = rest.find('-');
        const auto digits = [](const std::string& s) {
            return !s.empty() && s.size() < 12 &&
                   s.find_first_not_of("0123456789") == std::string::npos;
        };
        if (dash == std::string::npos || !digits(rest.substr(0, dash)) ||
            !digits(rest.substr(dash + 1)))
            continue;
        const pid_t pid = pid_t(std::stoll(rest.substr(0, dash)));
        if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH)
            continue; // its writer may still be at work
        removed += std::filesystem::remove(entry.path(), ec) ? 1 : 0;
    }
    return removed;
}

namespace detail {

namespace fs = std::filesystem;

int persistStep(const char* what, const fs::path& file) {
    return persistence::point((std::string(what) + " " + file.string()).c_str());
}

namespace {

/// Finishes a written stream: flush, fsync, close. Returns 0 or the errno.
int finishFile(FilePtr f, const fs::path& file) {
    int err = persistStep("fsync", file);
    if (err == 0 && (std::fflush(f.get()) != 0 || ::fsync(::fileno(f.get())) != 0))
        err = errno;
    if (std::fclose(f.release()) != 0 && err == 0)
        err = errno;
    return err;
}

} // namespace

TempSibling::TempSibling(const fs::path& target) : target_(target), path_(target) {
    static std::atomic<std::uint64_t> counter{0};
    path_ += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

TempSibling::~TempSibling() {
    if (owned_)
        std::remove(path_.c_str());
}

int TempSibling::commit() {
    if (const int injected = persistStep("rename", target_))
        return injected;
    if (std::rename(path_.c_str(), target_.c_str()) != 0)
        return errno;
    owned_ = false;
    return 0;
}

void throwCannotWrite(const fs::path& file, const WriteTarget& target, const std::string& reason) {
    // A full disk (or quota) is not fixed by another folder's permissions:
    // say what is.
    const bool full = reason.find(std::strerror(ENOSPC)) != std::string::npos ||
                      reason.find(std::strerror(EDQUOT)) != std::string::npos;
    throw InputError("cannot write " + std::string(target.kind) + " " + quoted(file) + ": " +
                     reason +
                     (full ? std::string(" (free space on that disk, or choose an --out on "
                                         "another; an earlier file of that name is kept whole)")
                           : std::string(target.hint)));
}

namespace {

/// An unnamed file in `file`'s directory (O_TMPFILE): if this process dies
/// while writing it, nothing is left. Null where the file system has no
/// O_TMPFILE (the caller then writes a named temporary sibling).
FilePtr openUnnamed(const fs::path& file) {
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0)
        return nullptr;
    FilePtr f(::fdopen(fd, "wb"));
    if (!f)
        ::close(fd);
    return f;
}

/// Gives the unnamed file `fd` its temporary sibling's name (a link made
/// through /proc/self/fd), then renames that onto the target: the named
/// temporary exists only between the two calls. Returns 0 or the errno.
int linkIntoPlace(int fd, TempSibling& tmp) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    if (const int injected = persistStep("link", tmp.path())) {
        tmp.disown();
        return injected;
    }
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.path().c_str(), AT_SYMLINK_FOLLOW) != 0) {
        const int err = errno;
        tmp.disown();
        return err;
    }
    return tmp.commit();
}

} // namespace

void writeStreamAtomically(const fs::path& file,
                           const std::function<void(const ByteSink&)>& produce,
                           const WriteTarget& target) {
    TempSibling tmp(file);
    if (const int injected = persistStep("create", file)) {
        tmp.disown();
        throwCannotWrite(file, target, errnoText(injected));
    }
    FilePtr f = openUnnamed(file);
    const bool unnamed = f != nullptr;
    if (!unnamed)
        f.reset(std::fopen(tmp.path().c_str(), "wbx")); // "x": never clobber a stranger's file
    if (!f) {
        const int err = errno;
        tmp.disown();
        throwCannotWrite(file, target, errnoText(err));
    }
    if (unnamed)
        tmp.disown(); // nothing has its name yet
    produce([&](std::string_view part) {
        if (part.empty())
            return;
        if (const int injected = persistStep("write", file))
            throwCannotWrite(file, target, errnoText(injected));
        if (std::fwrite(part.data(), 1, part.size(), f.get()) != part.size())
            throwCannotWrite(file, target, errnoText(errno));
    });
    if (unnamed) {
        // Flushed and synced before the name appears; closed after the link.
        if (const int injected = persistStep("fsync", file))
            throwCannotWrite(file, target, errnoText(injected));
        if (std::fflush(f.get()) != 0 || ::fsync(::fileno(f.get())) != 0)
            throwCannotWrite(file, target, errnoText(errno));
        tmp.adopt();
        if (const int err = linkIntoPlace(::fileno(f.get()), tmp))
            throwCannotWrite(file, target, errnoText(err));
        if (const int err = ::fclose(f.release()) != 0 ? errno : 0)
            throwCannotWrite(file, target, errnoText(err));
        return;
    }
    if (const int err = finishFile(std::move(f), file))
        throwCannotWrite(file, target, errnoText(err));
    if (const int err = tmp.commit())
        throwCannotWrite(file, target, errnoText(err));
}

void writePartsAtomically(const fs::path& file, const std::vector<std::string_view>& parts,
                          const WriteTarget& target) {
    writeStreamAtomically(
        file,
        [&](const ByteSink& sink) {
            for (std::string_view part : parts)
                sink(part);
        },
        target);
}

} // namespace detail

void writeFileAtomically(const std::filesystem::path& file, const std::string& bytes) {
    detail::writePartsAtomically(file, {bytes}, {});
}

void writeFileAtomically(const std::filesystem::path& file,
                         const std::function<void(const ByteSink&)>& produce) {
    detail::writeStreamAtomically(file, produce, {});
}

} // namespace hwl
