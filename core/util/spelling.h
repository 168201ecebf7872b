#pragma once
// "Did you mean": the known name nearest a mistyped one, for the messages
// that refuse an unknown flag (--worker), experiment-file field ("lrr") or
// swept field (--sweep worker=1,2). One rule for all of them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwl {

/// The Damerau-Levenshtein distance (optimal string alignment): insertions,
/// deletions, substitutions and swaps of two neighbours, each 1.
std::size_t editDistance(std::string_view a, std::string_view b);

/// The name of `known` nearest `typed`, if it is near enough to be a typo:
/// at most a third of `typed`'s length away (at least 1 edit allowed).
/// Ties go to the earlier name; nothing when `typed` is itself known.
std::optional<std::string> nearestName(std::string_view typed,
                                       const std::vector<std::string>& known);

} // namespace hwl
