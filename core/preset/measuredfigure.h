#pragma once
// The figures a preset's explanation quotes from the run in front of the
// reader. A text states no fixed number as what will be seen: where it
// speaks of a measured figure it writes a token, {{lost *}} or
// {{rate hogwild / rate locked}}, that the window fills in from this run as
// it goes (and the range measured elsewhere is given beside it, its machine
// named, as context: bench/preset-claims.txt holds those ranges to what
// bench/presets.py measures).
//
// A figure is KIND RUN, or KIND RUN / KIND RUN (a ratio), as the claims
// file writes it: RUN is a comparison's run label, * every run made so far.
// The kinds:
//   rate     samples/s              acc      final test accuracy, %
//   train    training seconds       wall     seconds, start to end (*: every
//                                            run's, one after another)
//   target   training seconds to the target (none when not reached)
//   comm     share of the loop in collectives, %
//   mb       MB reduced in collectives, the workers' mean
//   startup  launch to first step, ms, every worker
//   lost     lost updates, % of the block writes
//   steps    optimizer step counts: the shared one, or each worker's
//   div      the run's staleness or replica distance: the median of its
//            step samples (the comparison verdict's figure)
// Plain C++; the window renders, the command line prints the tokens as
// "(measured by the run)".
#include "telemetry/runsummary.h"

#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// A run of a preset as its figures read it: one that ended, or the one
/// going (its summary so far).
struct MeasuredRun {
    std::string label; ///< the comparison's label; a single run's is its preset's id
    RunSummary summary;
    double divergence = -1;   ///< the median divergence of its step samples; -1: not known
    bool sharedState = false; ///< --optimizer-state shared: one step count for all
};

/// One figure's values over the runs it names (several for * or for each
/// worker's startup or steps); empty when none of them measured it yet.
struct MeasuredValue {
    std::vector<double> values;
    bool ratio = false;
    std::string kind; ///< the first term's kind
};

/// Whether `figure` is a figure of the grammar above; `why` says what is wrong.
bool parseFigure(const std::string& figure, std::string* why = nullptr);
/// The figure over `runs`.
MeasuredValue measureFigure(const std::string& figure, const std::vector<MeasuredRun>& runs);
/// Its words: "3.76%", "1.62 times", "82.9-83.4%", "2.9-4.1 ms", "9596 MB";
/// empty when not measured.
std::string figureText(const MeasuredValue& v);

/// The {{...}} tokens of an explanation, in order.
std::vector<std::string> figureTokens(const std::string& html);
/// The explanation with each token replaced: before + its words + after for
/// a measured figure, `unknown` for one not measured yet.
std::string fillFigures(const std::string& html, const std::vector<MeasuredRun>& runs,
                        const std::string& before, const std::string& after,
                        const std::string& unknown);

} // namespace hwl
