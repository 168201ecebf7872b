#pragma once
// Ownership of C stdio streams.
#include <cstdio>
#include <memory>

namespace hwl {

/// Closes a stream with fclose and ignores the result; where a failed close
/// matters (the end of a write), release() the pointer and fclose it yourself.
struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

/// An open FILE* that is closed when the pointer goes out of scope.
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

} // namespace hwl
