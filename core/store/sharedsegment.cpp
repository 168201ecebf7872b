#include "store/sharedsegment.h"

#include "util/errors.h"
#include "util/random.h"
#include "util/textutil.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace hwl {

namespace {
constexpr const char* kPrefix = "hwl-";

/// The live segments' paths under /dev/shm, readable from a signal handler:
/// a slot is taken with `used`, then its path written; freed by clearing.
struct NameSlot {
    std::atomic<bool> used{false};
    char path[128];
};
NameSlot gNames[64];
std::mutex gNamesMutex; // between threads; the handler reads without it

void remember(const std::string& name) {
    const std::string path = "/dev/shm" + name;
    const std::lock_guard lock(gNamesMutex);
    if (path.size() >= sizeof gNames[0].path)
        return; // not ours (ours are short); the next run's clean-up finds it
    for (auto& slot : gNames) {
        bool expected = false;
        if (slot.used.compare_exchange_strong(expected, true)) {
            std::memcpy(slot.path, path.c_str(), path.size() + 1);
            return;
        }
    }
}

void forget(const std::string& name) {
    const std::string path = "/dev/shm" + name;
    const std::lock_guard lock(gNamesMutex);
    for (auto& slot : gNames)
        if (slot.used.load() && path == slot.path) {
            slot.path[0] = '\0';
            slot.used.store(false);
            return;
        }
}

std::string uniqueName(const std::string& purpose) {
    static std::atomic<unsigned> sequence{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    Rng rng(Rng::derive(std::uint64_t(now), std::uint64_t(getpid())));
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "lit" + string.
    std::string name = "/";
    name += kPrefix;
    name += std::to_string(getpid());
    name += '-';
    name += std::to_string(sequence.fetch_add(1));
    name += '-';
    name += std::to_string(rng.next() % 1000000);
    name += '-';
    name += purpose;
    return name;
}
} // namespace

SharedSegment::SharedSegment(SharedSegment&& other) noexcept {
    *this = std::move(other);
}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        name_ = std::exchange(other.name_, {});
        owner_ = std::exchange(other.owner_, false);
    }
    return *this;
}

SharedSegment::~SharedSegment() {
    release();
}

void SharedSegment::release() {
    if (data_)
        munmap(data_, size_);
    if (owner_)
        unlink();
    data_ = nullptr;
    size_ = 0;
}

void SharedSegment::unlink() {
    if (owner_ && !name_.empty()) {
        shm_unlink(name_.c_str());
        forget(name_);
    }
    owner_ = false;
}

long long SharedSegment::freeBytes() {
    struct statvfs st {};
    if (statvfs("/dev/shm", &st) != 0)
        return -1;
    return (long long)st.f_bavail * (long long)st.f_frsize;
}

SharedSegment SharedSegment::create(const std::string& purpose, std::size_t bytes) {
    const long long available = freeBytes();
    if (available >= 0 && (long long)bytes > available)
        throw RunError("shared memory: this run needs " + mebibytes((long long)bytes) +
                       " in /dev/shm for its " + purpose + " but only " + mebibytesDown(available) +
                       " is free; free space there (or enlarge it: mount -o "
                       "remount,size=... /dev/shm) or use a smaller model or dataset");
    SharedSegment segment;
    segment.name_ = uniqueName(purpose);
    const int fd = shm_open(segment.name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        throw RunError("shared memory: cannot create segment " + segment.name_ + ": " +
                       std::strerror(errno));
    segment.owner_ = true;
    remember(segment.name_);
    fchmod(fd, 0600); // whatever the umask says
    const int err = bytes ? posix_fallocate(fd, 0, off_t(bytes)) : 0;
    if (err != 0) {
        close(fd);
        throw RunError("shared memory: cannot reserve " + mebibytes((long long)bytes) +
                       " in /dev/shm for the " + purpose + ": " + std::strerror(err) +
                       "; free space in /dev/shm or use a smaller model or dataset");
    }
    segment.size_ = bytes;
    if (bytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            close(fd);
            throw RunError("shared memory: cannot map " + segment.name_ + ": " +
                           std::strerror(errno));
        }
        segment.data_ = p;
    }
    close(fd);
    return segment;
}

std::string SharedSegment::unusedName(const std::string& purpose) {
    return uniqueName(purpose);
}

SharedSegment SharedSegment::open(const std::string& name) {
    SharedSegment segment;
    segment.name_ = name;
    const int fd = shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0)
        throw RunError("shared memory: cannot open segment " + name + ": " + std::strerror(errno));
    remember(name);
    struct stat st {};
    fstat(fd, &st);
    segment.size_ = std::size_t(st.st_size);
    if (segment.size_) {
        void* p = mmap(nullptr, segment.size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            close(fd);
            throw RunError("shared memory: cannot map " + name + ": " + std::strerror(errno));
        }
        segment.data_ = p;
    }
    close(fd);
    return segment;
}

void SharedSegment::unlinkAllNow() noexcept {
    for (auto& slot : gNames)
        if (slot.used.load() && slot.path[0] == '/')
            ::unlink(slot.path); // shm_unlink is unlink() of this path
}

int SharedSegment::cleanupStaleSegments() {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
        const std::string file = entry.path().filename().string();
        if (file.rfind(kPrefix, 0) != 0)
            continue;
        const auto dash = file.find('-', std::strlen(kPrefix));
        const std::string pidText = file.substr(std::strlen(kPrefix), dash - std::strlen(kPrefix));
        char* end = nullptr;
        const long pid = std::strtol(pidText.c_str(), &end, 10);
        if (pid <= 0 || *end != '\0' || pid == getpid())
            continue;
        if (kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue; // owner alive (or not ours to judge)
        if (shm_unlink(("/" + file).c_str()) == 0)
            ++removed;
    }
    return removed;
}

} // namespace hwl
