#include "io/atomicfile.h"

#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>

namespace hwl {
namespace detail {

namespace fs = std::filesystem;

namespace {

/// Finishes a written stream: flush, fsync, close. Returns 0 or the errno.
int finishFile(FilePtr f) {
    int err = 0;
    if (std::fflush(f.get()) != 0 || ::fsync(::fileno(f.get())) != 0)
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
    if (std::rename(path_.c_str(), target_.c_str()) != 0)
        return errno;
    owned_ = false;
    return 0;
}

void throwCannotWrite(const fs::path& file, const WriteTarget& target, const std::string& reason) {
    throw InputError("cannot write " + std::string(target.kind) + " " + quoted(file) + ": " +
                     reason + std::string(target.hint));
}

void writeStreamAtomically(const fs::path& file,
                           const std::function<void(const ByteSink&)>& produce,
                           const WriteTarget& target) {
    TempSibling tmp(file);
    FilePtr f(std::fopen(tmp.path().c_str(), "wbx")); // "x": never clobber a stranger's file
    if (!f) {
        const int err = errno;
        tmp.disown();
        throwCannotWrite(file, target, errnoText(err));
    }
    produce([&](std::string_view part) {
        if (!part.empty() && std::fwrite(part.data(), 1, part.size(), f.get()) != part.size())
            throwCannotWrite(file, target, errnoText(errno));
    });
    if (const int err = finishFile(std::move(f)))
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
