#pragma once
// What the fuzz targets share: a private scratch directory for the files an
// input becomes (the loaders take paths), and the one place that decides
// which exceptions are an expected answer to bad input.
//
// Expected: hwl::InputError and hwl::RunError (with its subclass Cancelled),
// the only exception types the engine documents crossing its boundary
// (util/errors.h). Anything else that escapes a target (std::bad_alloc,
// nlohmann::json's exceptions, std::out_of_range, ...) reaches libFuzzer,
// which reports it as a crash.
#include "util/errors.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace hwl::fuzz {

/// A harness problem (not the project's): say so and abort, so libFuzzer
/// stops with a report instead of fuzzing a broken setup.
[[noreturn]] inline void harnessFailure(const std::string& what) {
    std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
    std::abort();
}

/// Where scratch directories go: $TMPDIR when set, else /dev/shm (tmpfs:
/// rewriting a file per input on a disk file system makes the kernel write
/// it back, and that, not the parser, would bound the executions per
/// second), else /tmp.
inline std::string scratchBase() {
    if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp)
        return tmp;
    if (::access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
    return "/tmp";
}

/// The directory this process writes its inputs to: made once with mkdtemp
/// under scratchBase(), removed at a normal exit (tests/fuzz/run points
/// TMPDIR at its own work directory, so what a crash leaves goes with it).
/// Never the working directory, so libFuzzer's crash-* artifacts stay where
/// the user ran it.
inline const std::filesystem::path& scratchDir() {
    // Never destroyed: the exit handler that removes the directory runs
    // after the destructors of statics constructed after it was registered.
    static const std::filesystem::path* const dir = [] {
        std::string pattern = scratchBase() + "/hwl-fuzz-scratch-XXXXXX";
        if (!::mkdtemp(pattern.data()))
            harnessFailure("mkdtemp(" + pattern + ") failed");
        return new std::filesystem::path(pattern);
    }();
    static const bool removedAtExit = std::atexit([] {
                                          std::error_code ec;
                                          std::filesystem::remove_all(*dir, ec);
                                      }) == 0;
    (void)removedAtExit;
    return *dir;
}

/// Writes `size` bytes to scratchDir()/name as a new file (the old one is
/// unlinked first: truncating it in place makes ext4 flush it) and returns
/// the path.
inline std::filesystem::path writeScratch(const char* name, const void* data, std::size_t size) {
    const std::filesystem::path file = scratchDir() / name;
    ::unlink(file.c_str());
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f)
        harnessFailure("cannot write " + file.string());
    const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
    if (std::fclose(f) != 0 || !ok)
        harnessFailure("cannot write " + file.string());
    return file;
}

/// Runs `parse`; an InputError or RunError is the documented answer to bad
/// input and ends the run quietly. Returns 0 for libFuzzer.
template <class Parse>
int expectingInputErrors(Parse&& parse) {
    try {
        parse();
    } catch (const hwl::InputError&) {
    } catch (const hwl::RunError&) {
    }
    return 0;
}

/// An oracle failed: the parser accepted the input but broke its contract.
/// Says which check failed, then traps so libFuzzer saves the input.
#define HWL_FUZZ_CHECK(cond)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "fuzz oracle failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);   \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

/// The two IDX files one input holds: the first 2 bytes (big-endian) give
/// the size of the labels file, which follows; the images file is the rest.
struct IdxInput {
    const std::uint8_t* labels;
    std::size_t labelsSize;
    const std::uint8_t* images;
    std::size_t imagesSize;
};

inline IdxInput splitIdxInput(const std::uint8_t* data, std::size_t size) {
    std::size_t labelsSize = 0, skip = 0;
    if (size >= 2) {
        labelsSize = std::min<std::size_t>(std::size_t(data[0]) << 8 | data[1], size - 2);
        skip = 2;
    }
    return {data + skip, labelsSize, data + skip + labelsSize, size - skip - labelsSize};
}

} // namespace hwl::fuzz
