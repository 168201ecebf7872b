#pragma once
// A race to a target (a comparison of "time to target") over repeats, as
// MLPerf Training times one: per entrant (a run of the comparison and its
// repeats over seeds), the training seconds to the target over the runs
// that reached it (median and range) and how many of how many did; ranked
// by that median, the entrants that no run brought to the target last. A
// place is "about as soon" as the first when the two cannot be told apart:
// its median lies within the first's range over its repeats, or, where the
// first ran once (no spread measured), within kAboutEqual of it. Part of the
// engine's public API (the CLI and the window tell the same race).
#include "io/runscompare.h"
#include "telemetry/runsummary.h"

#include <string>
#include <vector>

namespace hwl {

/// Two runs' figures within this ratio are about equal where no spread was
/// measured: repeated runs of one preset differ by about that much on the
/// 2-core VM (bench/presets.py: hogwild-vs-locked's hogwild/locked ratio
/// 1.5-1.8 over repeats, +-9% about its middle), so a smaller gap is not a
/// result to read.
constexpr double kAboutEqual = 1.10;

struct RaceEntrant {
    std::string label;
    std::vector<RunSummary> runs; ///< it and its repeats (at least one)
};

struct RacePlace {
    std::string label;
    std::size_t entrant = 0; ///< its index among the entrants given
    std::size_t runs = 0;    ///< how many ran
    /// Over the runs that reached the target (n: how many did): training
    /// seconds to it, the samples it took, and the samples per second.
    Spread seconds, samples, rate;
    /// Cannot be told from the first place (never true of the first).
    bool aboutFirst = false;
    bool reached() const { return seconds.n > 0; }
};

/// The places by their median, first first; entrants none of whose runs
/// reached the target last, in their given order.
std::vector<RacePlace> raceToTarget(const std::vector<RaceEntrant>& entrants);

} // namespace hwl
