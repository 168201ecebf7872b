#pragma once
// What the safetensors and .npz code share (safetensors.cpp, npz.cpp): the
// checks on tensors handed in for writing, their bytes, and the words of
// their messages. Internal to core/io.
#include "io/atomicfile.h"
#include "io/tensorfile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwl::detail {

/// The safetensors header key that holds the metadata; no tensor may be named so.
inline constexpr std::string_view kMetadataKey = "__metadata__";
/// How a failed weights-file write names the file and what to do about it.
inline constexpr WriteTarget kWeightsFile{"weights file", " (choose a writable --out directory)"};

/// A name as a JSON string literal: quoted, control characters escaped.
std::string jsonQuoted(const std::string& s);
/// `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string validUtf8(const std::string& s);

/// a * b, or nullopt when that overflows 64 bits.
std::optional<std::uint64_t> checkedMul(std::uint64_t a, std::uint64_t b);

/// product(t.shape). Throws std::invalid_argument (a caller bug) for a
/// negative dimension or a byte size that does not fit a size_t.
std::uint64_t elementCount(const TensorRef& t);

/// Caller bugs, not user input: throws std::invalid_argument for duplicate or
/// reserved names, bad shapes, or a non-empty tensor without data.
void checkForWriting(const std::vector<TensorRef>& tensors);

/// `n` floats as little-endian bytes. On little-endian hosts (all we build
/// for today) this is a plain copy; the swap keeps the file format honest.
std::string floatsLE(const float* data, std::size_t n);

} // namespace hwl::detail
