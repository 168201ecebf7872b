#pragma once
// Ownership of C stdio streams, and opening a file that must be a regular
// file (a FIFO, a device or a socket would block or never end).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hwl {

/// Closes a stream with fclose and ignores the result; where a failed close
/// matters (the end of a write), release() the pointer and fclose it yourself.
struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

/// An open FILE* that is closed when the pointer goes out of scope.
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// Opens `file` for reading when it is a regular file (following links),
/// without ever blocking on it. Otherwise returns null and says why in
/// `whyNot`: "is a FIFO (named pipe), not a regular file", "is a
/// directory, ...", or the system's reason ("No such file or directory");
/// errno is then set too.
FilePtr openRegularFile(const std::filesystem::path& file, std::string& whyNot);

/// What a file that is not a regular one is, in words ("a FIFO (named
/// pipe)", "a directory", "a character device", ...); empty for a regular
/// file or one that cannot be examined.
std::string nonRegularKind(const std::filesystem::path& file);

/// The folder for temporary files: $TMPDIR when it names an absolute path,
/// else /tmp (as mkstemp's callers and Qt's QDir::tempPath() do).
std::string tempDirectory();

/// This program's path (/proc/self/exe resolved); empty with errno set when
/// it cannot be read.
std::string executablePath();

/// Where a module of the engine (a shared object it dlopens: the CUDA
/// backend, the CPU kernels of one instruction set) named `file` may be, in
/// the order to try: beside the executable, in the installed tree's private
/// folder (bin/../lib/<multiarch>/hogwild-lab, HWL_MODULE_INSTALL_DIR), in
/// ../lib beside the executable (the GPU device bundle's layout), and in
/// `buildDir`, where this build put it (empty: none).
std::vector<std::string> moduleCandidates(const std::string& file, const std::string& buildDir);

} // namespace hwl
