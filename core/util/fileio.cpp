#include "util/fileio.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hwl {

namespace {
std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return S_ISREG(mode) ? "" : "not a regular file";
}
} // namespace

std::string nonRegularKind(const std::filesystem::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0)
        return {};
    return kindOf(st.st_mode);
}

FilePtr openRegularFile(const std::filesystem::path& file, std::string& whyNot) {
    whyNot.clear();
    // O_NONBLOCK: opening a FIFO with no writer would wait forever.
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        whyNot = std::strerror(err);
        errno = err;
        return nullptr;
    }
    struct stat st {};
    const std::string kind =
        ::fstat(fd, &st) == 0 ? kindOf(st.st_mode) : "a file that cannot be examined";
    if (!kind.empty()) {
        ::close(fd);
        whyNot = "is " + kind + ", not a regular file";
        errno = EINVAL;
        return nullptr;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::FILE* f = ::fdopen(fd, "rb");
    if (!f) {
        const int err = errno;
        ::close(fd);
        whyNot = std::strerror(err);
        errno = err;
    }
    return FilePtr(f);
}

std::string tempDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp && tmp[0] == '/' ? std::string(tmp) : std::string("/tmp");
}

std::string executablePath() {
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, std::size_t(n)) : std::string();
}

std::vector<std::string> moduleCandidates(const std::string& file, const std::string& buildDir) {
    std::vector<std::string> out;
    const std::string exe = executablePath();
    if (const std::size_t slash = exe.rfind('/'); slash != std::string::npos) {
        const std::string dir = exe.substr(0, slash);
        out.push_back(dir + "/" + file);
#ifdef HWL_MODULE_INSTALL_DIR
        out.push_back(
            std::filesystem::path(dir + "/" HWL_MODULE_INSTALL_DIR "/" + file).lexically_normal());
#endif
        out.push_back(dir + "/../lib/" + file);
    }
    if (!buildDir.empty())
        out.push_back(buildDir + "/" + file);
    return out;
}

} // namespace hwl
