#include "store/sharedsegment.h"

#include "util/errors.h"
#include "util/random.h"
#include "util/textutil.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
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

std::atomic<int> gPlace{int(SharedSegment::Place::DevShm)};

/// A memory file's name: "/proc/<pid>/fd/<fd>" (an shm name has one slash).
bool isMemoryFile(const std::string& name) {
    return name.rfind("/proc/", 0) == 0;
}

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
        fd_ = std::exchange(other.fd_, -1);
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
    if (fd_ >= 0)
        close(fd_);
    fd_ = -1;
    data_ = nullptr;
    size_ = 0;
}

void SharedSegment::unlink() {
    if (owner_ && fd_ >= 0) { // a memory file's name lives as long as its creator's descriptor
        close(fd_);
        fd_ = -1;
    } else if (owner_ && !name_.empty()) {
        shm_unlink(name_.c_str());
        forget(name_);
    }
    owner_ = false;
}

long long SharedSegment::freeBytes() {
    struct statvfs st {};
    if (statvfs("/dev/shm", &st) != 0)
        return -1;
    long long free = (long long)st.f_bavail * (long long)st.f_frsize;
    if (const char* cap = std::getenv("HWL_SHM_FREE_BYTES"); cap && *cap) {
        char* end = nullptr;
        const long long limit = std::strtoll(cap, &end, 10);
        if (end && *end == '\0' && limit >= 0)
            free = std::min(free, limit);
    }
    return free;
}

SharedSegment::Place SharedSegment::place() {
    return Place(gPlace.load());
}

std::string SharedSegment::choosePlace(std::size_t bytes) {
    const long long available = freeBytes();
    const bool fits = available < 0 || (long long)bytes <= available;
    gPlace.store(int(fits ? Place::DevShm : Place::MemoryFile));
    if (fits)
        return {};
    return "shared memory: /dev/shm has " + mebibytesDown(available) + " free, less than the " +
           mebibytes((long long)bytes) +
           " this run shares between its processes, so its segments are anonymous memory files "
           "(memfd) instead: the same memory, as fast (enlarge /dev/shm with mount -o "
           "remount,size=... /dev/shm to keep them there)";
}

void SharedSegment::map(int fd, std::size_t bytes, const std::string& what) {
    size_ = bytes;
    if (!bytes)
        return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        throw RunError("shared memory: cannot map " + what + ": " + std::strerror(errno));
    data_ = p;
}

long long SharedSegment::availableMemory() {
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    std::fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

SharedSegment SharedSegment::createMemoryFile(const std::string& purpose, std::size_t bytes,
                                              long long shmFree) {
    const std::string why =
        "shared memory: this run needs " + mebibytes((long long)bytes) + " for its " + purpose +
        ", /dev/shm has " +
        (shmFree < 0 ? std::string("no room") : mebibytesDown(shmFree) + " free") + ", and ";
    const std::string fix = "; free memory or space in /dev/shm (or enlarge it: mount -o "
                            "remount,size=... /dev/shm), or use a smaller model or dataset";
    // A memory file takes memory as /dev/shm does, but nothing bounds it:
    // never more than the memory the system has available.
    if (const long long memory = availableMemory(); memory >= 0 && (long long)bytes > memory)
        throw RunError(why + "only " + mebibytesDown(memory) +
                       " of memory is available for an anonymous memory file" + fix);
    SharedSegment segment;
    segment.fd_ = memfd_create((kPrefix + purpose).c_str(), MFD_CLOEXEC);
    if (segment.fd_ < 0)
        throw RunError(why + "an anonymous memory file cannot be made (memfd_create: " +
                       std::strerror(errno) + ")" + fix);
    segment.owner_ = true;
    segment.name_ = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(segment.fd_);
    fchmod(segment.fd_, 0600);
    if (const int err = bytes ? posix_fallocate(segment.fd_, 0, off_t(bytes)) : 0; err != 0)
        throw RunError(why + "memory for an anonymous memory file cannot be reserved (" +
                       std::strerror(err) + ")" + fix);
    segment.map(segment.fd_, bytes, segment.name_);
    return segment;
}

SharedSegment SharedSegment::create(const std::string& purpose, std::size_t bytes) {
    const long long available = freeBytes();
    if (place() == Place::MemoryFile || (available >= 0 && (long long)bytes > available))
        return createMemoryFile(purpose, bytes, available);
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
    try {
        segment.map(fd, bytes, segment.name_);
    } catch (...) {
        close(fd);
        throw;
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
    const bool memoryFile = isMemoryFile(name);
    const int fd = memoryFile ? ::open(name.c_str(), O_RDWR | O_CLOEXEC)
                              : shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0)
        throw RunError("shared memory: cannot open segment " + name + ": " + std::strerror(errno) +
                       (memoryFile ? " (its creator, which holds it, has ended)" : ""));
    if (!memoryFile)
        remember(name);
    struct stat st {};
    fstat(fd, &st);
    try {
        segment.map(fd, std::size_t(st.st_size), name);
    } catch (...) {
        close(fd);
        throw;
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
