#pragma once
// The catalog of parallel modes: what each registered strategy declares of
// itself. Every list a user sees is made from it: the --mode values and the
// modes section of --help, the JSON and validation messages, the window's
// mode list and which of the form's fields each mode enables, and the one
// line that describes a run ("processes (forkserver, NOT shared)").
//
// A mode is found by its name and, for names with an unshared variant, by
// the experiment's `share` field: "processes" with share = false is the
// unshared-replicas pitfall. Part of the engine's public API; read-only here
// (strategies register in strategy/registry.h). Thread-safe once built.
#include "config/modes.h"
#include <functional>
#include <string>
#include <vector>

namespace hwl {

struct ExperimentConfig;

/// What a worker's divergence (telemetry, charts, summary) measures.
enum class DivergenceKind {
    None,           ///< one worker: nothing to diverge from
    Staleness,      ///< how much others changed the shared parameters under a step
    ReplicaDistance ///< L2 distance of a worker's private copy from the replicas' mean
};

struct StrategyTraits {
    std::string name;       ///< the --mode value and JSON "mode"
    bool share = true;      ///< the value of `share` that selects this one among equal names
    std::string label;      ///< the window's mode list, e.g. "processes (Hogwild)"
    std::string help;       ///< one line for --help and the mode list's tooltip
    unsigned settings = 0;  ///< StrategySetting bits
    int exactWorkers = 0;   ///< > 0: runs exactly this many workers (serial: 1)
    bool processes = false; ///< workers are processes (else threads of the run's process);
                            ///< for modes with a transport, the transport decides
    std::string workerNoun = "worker"; ///< what messages call one worker: "worker", "rank"
    DivergenceKind divergence = DivergenceKind::None;
    bool cuda = false; ///< runs on CUDA devices (its device work in one device process)
    /// Non-empty: listed (so users see it exists) but cannot run in this
    /// build, and why, e.g. "not built: no CUDA compiler was found".
    std::string unavailable;

    bool takes(StrategySetting s) const { return (settings & unsigned(s)) != 0; }
};

/// Every registered strategy, in registration order (the built-in ones first).
std::vector<const StrategyTraits*> allStrategies();
/// The strategy `name` selects with `share` (the CPU variant of a name that
/// has both), or null.
const StrategyTraits* findStrategy(const std::string& name, bool share);
/// The strategy a config selects, or null when its mode is unknown.
const StrategyTraits* findStrategy(const ExperimentConfig& config);
/// The distinct mode names, in registration order.
std::vector<std::string> modeNames();
/// The distinct names of the modes with a variant `pick` selects, in
/// registration order.
std::vector<std::string> modeNamesWhere(const std::function<bool(const StrategyTraits&)>& pick);
/// The distinct names of the modes that take setting `s`, in registration
/// order (for "applies to mode ... only", and which modes enable a field).
std::vector<std::string> modesTaking(StrategySetting s);
/// The traits of every variant of mode `name` (share, device), in
/// registration order; empty for an unknown name.
std::vector<const StrategyTraits*> variantsOf(const std::string& name);
/// Whether the config's workers are processes (its transport, for modes
/// that have one: processes and mpi).
bool workersAreProcesses(const ExperimentConfig& config);
/// Whether the config's start method applies (process workers this app
/// starts by fork, spawn or the fork server; not MPI ranks).
bool usesStartMethod(const ExperimentConfig& config);
/// Whether the config's mode serialises every update under one lock
/// (threads-locked), so that no update can be lost.
bool locksEachUpdate(const ExperimentConfig& config);
/// The mode part of a run's description: "threads", "processes (forkserver)",
/// "processes (fork, NOT shared)", "data-parallel (processes, spawn, sync every 8)".
std::string describeMode(const ExperimentConfig& config);
/// Why this build cannot use a transport ("not built: ..."), or empty.
std::string transportUnavailable(int transport);
/// The worker count the config's mode fixes (serial: 1), or 0 where the
/// user chooses it (and for an unknown mode).
int fixedWorkerCount(const ExperimentConfig& config);
/// The one rule for the worker count: unless the user chose one
/// (`userChose`: --workers, a file's "workers", a swept count), a mode that
/// fixes it gets its count. A count the user chose stays, for the validator
/// to refuse where the mode fixes another. The command line, the window's
/// form, file opening and sweeps all settle it here.
void settleWorkerCount(ExperimentConfig& config, bool userChose);

/// What a divergence of this kind means, in a few words (chart titles, help).
const char* divergenceMeaning(DivergenceKind kind);

} // namespace hwl
