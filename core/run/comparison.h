#pragma once
// A comparison preset's runs made one after another: the one sequence both
// monitors drive (the window's Start and `--headless --preset`). Each run is
// made whatever the last one's outcome, except that a run the user stopped
// (Stop in the window, a signal headless) ends the comparison.
#include "config/presetrun.h"

#include <cstddef>
#include <vector>

namespace hwl {

class Comparison {
public:
    explicit Comparison(std::vector<PresetRun> runs) : runs_(std::move(runs)) {}

    /// The run to make now; null once the comparison is over.
    const PresetRun* current() const { return next_ < runs_.size() ? &runs_[next_] : nullptr; }
    /// The current run's place, 0-based (size() once over).
    std::size_t index() const { return next_; }
    std::size_t size() const { return runs_.size(); }
    /// Every run of the sequence, made or not.
    const std::vector<PresetRun>& runs() const { return runs_; }
    /// The current run has ended (`stopped`: the user stopped it). Returns
    /// the run to make next, or null when the comparison is over.
    const PresetRun* ended(bool stopped) {
        if (next_ < runs_.size())
            ++next_;
        if (stopped) {
            stoppedEarly_ = next_ < runs_.size();
            next_ = runs_.size();
        }
        return current();
    }
    /// Whether a stopped run left runs unmade.
    bool stoppedEarly() const { return stoppedEarly_; }

private:
    std::vector<PresetRun> runs_;
    std::size_t next_ = 0;
    bool stoppedEarly_ = false;
};

} // namespace hwl
