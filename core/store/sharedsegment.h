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

    /// Creates and maps a zero-filled segment of `bytes`; this object owns the
    /// name and unlinks it. Throws RunError when /dev/shm lacks the space (the
    /// message says how much is needed and free) or the segment cannot be made.
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
    /// Free bytes in /dev/shm (statvfs), or -1 when it cannot be read.
    static long long freeBytes();
    /// Unlinks the name of every segment this process created and has not
    /// released yet, and of every segment it opened, even released (only
    /// workers open segments, and a worker serves one run; a fork child:
    /// also its parent's, as they were at the fork). Async-signal-safe: a worker whose parent died
    /// calls it from its death-signal handler, so that no segment of the
    /// run outlives the run's last process.
    static void unlinkAllNow() noexcept;

private:
    void release();
    void* data_ = nullptr;
    std::size_t size_ = 0;
    std::string name_;
    bool owner_ = false;
};

} // namespace hwl
