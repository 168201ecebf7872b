// The run's coordinator thread: the gates (evaluate the test set while
// every worker waits at the epoch's end, and with --eval-every inside it),
// supervision of the workers (a dead process is reported with its rank, pid
// and cause; the failure policy decides whether the run stops), and the
// teardown.
#include "launch/waitstatus.h"
#include "run/runimpl.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

#include <sys/wait.h>

namespace hwl {

std::uint32_t Run::Impl::gateReached(std::uint32_t released) const {
    // Workers that died never arrive; the others must all wait at a gate
    // past `released`: the smallest is the one to evaluate at (a worker at
    // a later one, an epoch's end its shorter slice reached first, waits on).
    std::uint32_t gate = 0;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        if (launcher->relayed(r)) // an MPI rank elsewhere: rank 0 waits for it
            continue;
        const auto& w = telemetry.worker(r);
        if (loadState(w.state) == WorkerState::Failed)
            continue;
        const std::uint32_t at = w.gate.load(std::memory_order_acquire);
        if (at <= released)
            return 0;
        gate = gate == 0 ? at : std::min(gate, at);
    }
    return gate;
}

bool Run::Impl::allWorkersDown() const {
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r)
        if (loadState(telemetry.worker(r).state) != WorkerState::Failed)
            return false;
    return true;
}

void Run::Impl::superviseJobExit(const Launcher::Exit& exit) {
    // mpirun ended: every rank it ran is gone. A failure already reported
    // (a rank that died) says why; else a run cut short says mpirun's words.
    bool allLeft = true, anyFailure = false;
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        const auto s = loadState(telemetry.worker(r).state);
        allLeft = allLeft && hasLeftLoop(s);
        anyFailure = anyFailure || s == WorkerState::Failed;
    }
    // A rank that mpirun ended before it could say so (it ends the whole
    // job when one rank dies: rank 0 too, and the others before their last
    // relay reached rank 0) is gone all the same.
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        auto& state = telemetry.worker(r).state;
        const auto s = loadState(state);
        if (s != WorkerState::Finished && s != WorkerState::Failed)
            storeState(state, WorkerState::Stopped);
    }
    if (anyFailure || (allLeft && WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0)) {
        if (!exit.log.empty()) // a rank's death was the story; mpirun's log adds nothing
            std::remove(exit.log.c_str());
        return;
    }
    if (exit.firstRankDown >= 0 && std::uint32_t(exit.firstRankDown) < telemetry.workerCount() &&
        WIFSIGNALED(exit.firstRankStatus)) {
        // mpirun ended the job before rank 0 saw the rank go: mpirun's log
        // names it, and a rank killed by a signal is the whole story.
        const auto r = std::uint32_t(exit.firstRankDown);
        telemetry.failWorker(r, strategy->traits().workerNoun + " " + std::to_string(r) + " (pid " +
                                    std::to_string(telemetry.worker(r).pid.load()) + ") " +
                                    describeWaitStatus(exit.firstRankStatus) + " after " +
                                    std::to_string(telemetry.worker(r).steps.load()) + " steps");
        if (!exit.log.empty())
            std::remove(exit.log.c_str());
        return;
    }
    const auto steps = telemetry.worker(exit.rank).steps.load();
    std::string why = exit.what + " " + describeWaitStatus(exit.status) +
                      (steps == 0 ? std::string(" before rank 0 took a step")
                                  : " after " + std::to_string(steps) + " steps");
    if (!exit.detail.empty())
        why += ": " + exit.detail;
    if (!exit.log.empty())
        why.append(" (all of its output: ").append(exit.log).append(")");
    telemetry.failWorker(exit.rank, why);
}

void Run::Impl::superviseWorkers() {
    for (const auto& exit : launcher->reap()) {
        if (!exit.what.empty()) {
            superviseJobExit(exit);
            continue;
        }
        auto& w = telemetry.worker(exit.rank);
        const auto state = loadState(w.state);
        const bool clean = WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 0 &&
                           (state == WorkerState::Finished || state == WorkerState::Stopped);
        if (clean)
            continue;
        if (killedStuck && WIFSIGNALED(exit.status) && WTERMSIG(exit.status) == SIGKILL &&
            state != WorkerState::Failed) {
            // Ours: it ignored the stop. What it trained is in the parameters.
            storeState(w.state, WorkerState::Stopped);
            stuckWorkers.push_back(
                strategy->traits().workerNoun + " " + std::to_string(exit.rank) + " (pid " +
                std::to_string(exit.pid) + ") had not stopped 10 s after " +
                "the run asked it to, so it was killed; what was trained " + "is kept");
            continue;
        }
        std::string why = strategy->traits().workerNoun + " " + std::to_string(exit.rank) +
                          " (pid " + std::to_string(exit.pid) + ") " +
                          describeWaitStatus(exit.status) + " after " +
                          std::to_string(w.steps.load()) + " steps";
        if (state == WorkerState::Failed && !telemetry.failureText(exit.rank).empty())
            why += ": " + telemetry.failureText(exit.rank);
        telemetry.failWorker(exit.rank, why);
    }
    // Report each failure once and apply the policy.
    for (std::uint32_t r = 0; r < telemetry.workerCount(); ++r) {
        const std::string text = telemetry.failureText(r);
        if (text.empty() ||
            std::find(workerFailures.begin(), workerFailures.end(), text) != workerFailures.end())
            continue;
        workerFailures.push_back(text);
        if (config.onWorkerFailure == FailurePolicy::Stop)
            telemetry.setCommand(RunCommand::Stop);
    }
}

void Run::Impl::coordinate() {
    auto& header = telemetry.header();
    auto lastDivergence = Telemetry::nowNs();
    const std::uint32_t last = gates::endOf(std::uint32_t(config.epochs));
    for (std::uint32_t released = 0; released < last;) {
        std::uint32_t gate = 0;
        while (true) {
            const auto a = header.arrivals.load(std::memory_order_acquire);
            superviseWorkers();
            if ((gate = gateReached(released)) != 0)
                break;
            if (telemetry.command() == RunCommand::Stop || allWorkersDown())
                break;
            if (Telemetry::nowNs() - lastDivergence > 100'000'000) {
                strategy->measureDivergence(telemetry);
                lastDivergence = Telemetry::nowNs();
            }
            futexWait(header.arrivals, a, 50);
        }
        if (gate == 0)
            break;
        strategy->measureDivergence(telemetry);
        evaluate(gate);
        if (stopsAtTarget())
            break; // the workers, parked at the gate, are told to stop (endRun)
        released = gate;
        header.released.store(released, std::memory_order_release);
        futexWakeAll(header.released);
    }
    endRun();
}

void Run::Impl::endRun() {
    finishWorkers();
    // Every worker is gone: the segments' names go now (the parent's mappings
    // stay valid, so the summary, the monitor and exports still read them).
    telemetry.unlink();
    strategy->finish();
    summarise();
}

void Run::Impl::finishWorkers() {
    // Every worker leaves after its current step once told to stop; a process
    // that does not within 10 s is killed, so the parent never hangs.
    if (launcher->running() > 0 && telemetry.command() != RunCommand::Stop &&
        telemetry.header().released.load() < gates::endOf(std::uint32_t(config.epochs)))
        telemetry.setCommand(RunCommand::Stop);
    const auto deadline = Telemetry::nowNs() + 10'000'000'000ll;
    while (launcher->running() > 0) {
        superviseWorkers();
        if (Telemetry::nowNs() > deadline) {
            killedStuck = true;
            launcher->killAll();
        }
        // Workers are exiting (a few ms at most): poll finely so the wall
        // time does not carry the polling period.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    launcher->join();
    superviseWorkers();
}

} // namespace hwl
