#pragma once
// Writing a file so that a crash never leaves half of it: the bytes go to an
// unnamed file in the same directory (O_TMPFILE; a named temporary sibling
// where the file system has none), which is named and renamed into place
// once complete.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hwl {

/// Writes `bytes` to `file` through a temporary file + rename. Throws
/// InputError naming the path and the reason when it cannot.
void writeFileAtomically(const std::filesystem::path& file, const std::string& bytes);

/// Receives the bytes of a file being written, in order, one piece at a time.
using ByteSink = std::function<void(std::string_view)>;

/// Streams a file through a temporary file + rename: `produce` hands the
/// bytes to the sink piece by piece, so a large file is never held in memory
/// whole. An exception from `produce` or the sink (InputError naming the path
/// and the reason) leaves no file behind.
void writeFileAtomically(const std::filesystem::path& file,
                         const std::function<void(const ByteSink&)>& produce);

/// Removes the temporary siblings ("<name>.tmp-<pid>-<n>") that writers of
/// ours left in `dir` when their process died mid-write (killed, or out of
/// disk); those of running processes stay. Returns how many it removed.
int removeStaleTemporaries(const std::filesystem::path& dir);

namespace detail {

/// What a failed write says, for writers of a particular kind of file
/// ("weights file") that add a hint on what to do about it.
struct WriteTarget {
    std::string_view kind = "file";
    std::string_view hint = {};
};

/// persistence::point() for the step `what` ("write", "fsync", ...) of
/// `file`: 0, or the errno the step must fail with (the crash tests).
int persistStep(const char* what, const std::filesystem::path& file);

/// Throws InputError "cannot write <kind> "<file>": <reason><hint>".
[[noreturn]] void throwCannotWrite(const std::filesystem::path& file, const WriteTarget& target,
                                   const std::string& reason);

/// writeFileAtomically(file, produce), failing with `target`'s words.
void writeStreamAtomically(const std::filesystem::path& file,
                           const std::function<void(const ByteSink&)>& produce,
                           const WriteTarget& target);

/// Writes `parts` back to back into `file` through a temporary sibling.
void writePartsAtomically(const std::filesystem::path& file,
                          const std::vector<std::string_view>& parts, const WriteTarget& target);

/// A temporary sibling of a target file ("<name>.tmp-<pid>-<n>", same
/// directory so the final rename cannot cross file systems), for writers that
/// create the file themselves (libzip). Removed on destruction unless it was
/// renamed into place.
class TempSibling {
public:
    explicit TempSibling(const std::filesystem::path& target);
    ~TempSibling();
    TempSibling(const TempSibling&) = delete;
    TempSibling& operator=(const TempSibling&) = delete;

    const std::filesystem::path& path() const { return path_; }
    /// We never created the file (e.g. the exclusive open failed): not ours to remove.
    void disown() { owned_ = false; }
    /// The file is about to get this name (a link to an unnamed file): ours to remove.
    void adopt() { owned_ = true; }
    /// Renames the temporary onto the target; returns 0 or the errno.
    int commit();

private:
    std::filesystem::path target_;
    std::filesystem::path path_;
    bool owned_ = true;
};

} // namespace detail
} // namespace hwl
