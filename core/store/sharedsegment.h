#pragma once
// SharedSegment: a POSIX shared-memory segment (shm_open + mmap).
//
// Names are "/hwl-<owner pid>-<sequence>-<random>-<purpose>": unique, and the
// owner pid lets a later run recognise segments that a crashed run left
// behind (cleanupStaleSegments). Segments are created with mode 0600 and
// O_EXCL, their space reserved up front (posix_fallocate) so a full /dev/shm
// is reported before training instead of as a SIGBUS during it, and unlinked
// by the owning object's destructor. Every live segment's name is also kept
// in a fixed table that a signal handler can read (unlinkAllNow).
//
// Where /dev/shm is too small (a container's default is 64 MiB), a segment
// is an anonymous memory file instead (memfd_create: the same shared memory,
// not bounded by /dev/shm's size), which the creator keeps open; others open
// it by the name "/proc/<creator pid>/fd/<fd>", and it vanishes with the
// last process that holds it, even after a crash. A run says which it used
// (Place, placeNote). HWL_SHM_FREE_BYTES caps what /dev/shm is taken to have
// free, to try the fallback on any machine.
#include <cstddef>
#include <string>

namespace hwl {

class SharedSegment {
public:
    SharedSegment() = default;
    SharedSegment(SharedSegment&& other) noexcept;
    SharedSegment& operator=(SharedSegment&& other) noexcept;
    SharedSegment(const SharedSegment&) = delete;
    SharedSegment& operator=(const SharedSegment&) = delete;
    ~SharedSegment();

    /// Where this process creates segments: in /dev/shm, or as anonymous
    /// memory files (memfd) where /dev/shm lacks room. Memory, either way.
    enum class Place { DevShm, MemoryFile };
    /// Chooses where this process's segments go from now on, for a run that
    /// needs about `bytes` in all: /dev/shm when it has them free, else memory
    /// files. Returns a note for the user when it is not /dev/shm.
    static std::string choosePlace(std::size_t bytes);
    static Place place();

    /// Creates and maps a zero-filled segment of `bytes`; this object owns the
    /// name and unlinks it. In /dev/shm, unless place() says memory files or
    /// /dev/shm lacks the space for it. Throws RunError when neither can hold
    /// it (the message says how much is needed and free).
    static SharedSegment create(const std::string& purpose, std::size_t bytes);
    /// Maps an existing segment by name (a worker process); does not own it.
    static SharedSegment open(const std::string& name);
    /// A name of this scheme that no segment has, and none is created under:
    /// where a segment would be (the --spawn-before-share pitfall hands it to
    /// workers, whose open() then fails as it does for a segment never made).
    static std::string unusedName(const std::string& purpose);

    void* data() const { return data_; }
    std::size_t size() const { return size_; }
    const std::string& name() const { return name_; }
    bool owner() const { return owner_; }
    /// Removes the name now (mappings stay valid until destruction).
    void unlink();

    /// Removes /dev/shm segments named by this scheme whose owner pid no
    /// longer exists. Returns how many were removed.
    static int cleanupStaleSegments();
    /// Free bytes in /dev/shm (statvfs; at most HWL_SHM_FREE_BYTES when that
    /// is set), or -1 when it cannot be read.
    static long long freeBytes();
    /// The memory the system has available (MemAvailable), or -1 when it
    /// cannot be read: the most a memory file may take.
    static long long availableMemory();
    /// Unlinks the name of every segment this process created and has not
    /// released yet, and of every segment it opened, even released (only
    /// workers open segments, and a worker serves one run; a fork child:
    /// also its parent's, as they were at the fork). Async-signal-safe: a worker whose parent died
    /// calls it from its death-signal handler, so that no segment of the
    /// run outlives the run's last process.
    static void unlinkAllNow() noexcept;

private:
    void release();
    static SharedSegment createMemoryFile(const std::string& purpose, std::size_t bytes,
                                          long long shmFree);
    void map(int fd, std::size_t bytes, const std::string& what);
    int fd_ = -1; ///< a memory file's, held open by its creator while the segment lives
    void* data_ = nullptr;
    std::size_t size_ = 0;
    std::string name_;
    bool owner_ = false;
};

} // namespace hwl
