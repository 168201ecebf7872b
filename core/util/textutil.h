#pragma once
// Small text helpers for parsing user input (flags, spec strings) and for
// writing messages.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwl {

/// Splits on `sep`, keeping empty parts ("a::b" -> {"a", "", "b"}).
inline std::vector<std::string> split(std::string_view text, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto pos = text.find(sep, start);
        parts.emplace_back(text.substr(start, pos - start));
        if (pos == std::string_view::npos)
            break;
        start = pos + 1;
    }
    return parts;
}

/// The whole text as a decimal integer, or nothing (no sign games, no trailing junk).
inline std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

/// The whole text as a finite double, or nothing.
inline std::optional<double> parseNumber(std::string_view text) {
    double value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !(value == value) || value > 1e308 ||
        value < -1e308)
        return std::nullopt;
    return value;
}

/// `path` in double quotes, for messages: "/data/train.csv".
inline std::string quoted(const std::filesystem::path& path) {
    // Not "\"" + path.string() + "\"": GCC 12 warns (-Wrestrict) about that, wrongly.
    std::string s = path.string();
    s.insert(s.begin(), '"');
    s.push_back('"');
    return s;
}

/// Integers as a bracketed list, for messages: "[256, 100]".
template <class Int>
std::string bracketedList(const std::vector<Int>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            text += ", ";
        text += std::to_string(values[i]);
    }
    return text + "]";
}

/// A byte count in whole MiB, rounded up: "188 MiB".
inline std::string mebibytes(long long bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

/// Rounded down: for what is free, so that "needs N MiB but only M MiB is
/// free" never shows N == M (needs rounds up).
inline std::string mebibytesDown(long long bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

} // namespace hwl
