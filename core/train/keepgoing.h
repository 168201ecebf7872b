#pragma once
// KeepGoing: one worker's keep-going predicate (fastText's keepTraining()).
// The worker loop asks it before every step and every blocking wait polls it
// (the epoch gate, the collectives of the data-parallel modes), so
// that a stop, a pause, the worker's own failure or a dead peer can never
// leave a worker waiting.
//
// It answers false once the run is told to stop, once this worker failed
// (fail()), or, when it watches its peers, once one of them failed. While the
// run is paused it blocks, showing the worker as Paused. Owned and used by
// the worker's own thread.
#include "telemetry/telemetry.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace hwl {

class KeepGoing {
public:
    enum class Reason { None, Stopped, Failed, PeerFailed };

    /// `watchPeers`: a failed peer stops this worker too (for modes whose
    /// workers wait on each other).
    KeepGoing(Telemetry& telemetry, std::uint32_t rank, bool watchPeers = false);

    /// True while the worker should go on; blocks while the run is paused.
    bool operator()() { return check(false); }
    /// operator() before a training step: a single step granted while paused
    /// (Telemetry::grantStep()) lets this one step through.
    bool beforeStep() { return check(true); }
    /// Waits until this worker's next step is due at the run's pace (none:
    /// returns at once); returns early when the command or the pace changes.
    /// Never waits to catch up on steps a slow step made late.
    void pace();

    /// Waits until ready(word's value) holds, sleeping on `word` (a futex, so
    /// a writer's futexWakeAll ends the sleep at once) at most 100 ms at a
    /// time and asking notStopped() between sleeps. True when ready; false as
    /// soon as the worker must not go on. A pause never holds this wait (a
    /// worker held here would not see the gate open, and a Step could not
    /// move it): once ready the worker goes on to beforeStep(), where the
    /// pause holds it and a Step lets one step through. `pauseHere`: the
    /// worker shows Paused while the run is paused meanwhile; false for
    /// ranks that agree on pauses at a step (they pause nowhere else).
    bool waitUntil(std::atomic<std::uint32_t>& word,
                   const std::function<bool(std::uint32_t)>& ready, bool pauseHere = true);

    /// The check collective waits make (they must not block on a pause: the
    /// ranks agree on pauses at a step, outside any wait): false once this
    /// worker failed or, when it watches its peers, one of them left its
    /// training loop (failed, stopped or finished), so it can never arrive.
    bool alive();

    /// operator() without the pause: false once the run is stopped, this
    /// worker failed, or (watching peers) a peer failed.
    bool notStopped();

    /// Records this worker's own failure: its status becomes Failed with
    /// `why` (the first text wins), and the predicate answers false from now on.
    void fail(const std::string& why);

    /// Why the predicate answered false (None while it answers true).
    Reason reason() const { return reason_; }

    /// Called every 50 ms while the worker waits outside a collective (a
    /// pause, the epoch gate): an MPI rank 0 keeps reading its peers'
    /// relays and watching that they live meanwhile.
    void whileWaiting(std::function<void()> idle) { idle_ = std::move(idle); }

private:
    bool check(bool stepping);
    bool peerFailed() const;
    bool peerLeft() const;
    void showState(WorkerState s);

    Telemetry& telemetry_;
    WorkerStatus& status_;
    std::uint32_t rank_;
    bool watchPeers_;
    Reason reason_ = Reason::None;
    std::function<void()> idle_;
    std::uint32_t stepGrantsSeen_; ///< single steps granted so far that this worker took
    std::int64_t nextStepNs_ = 0;  ///< when the next step is due at the pace (0: now)
};

} // namespace hwl
