#include "train/keepgoing.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace hwl {

KeepGoing::KeepGoing(Telemetry& telemetry, std::uint32_t rank, bool watchPeers)
    : telemetry_(telemetry), status_(telemetry.worker(rank)), rank_(rank), watchPeers_(watchPeers),
      stepGrantsSeen_(telemetry.header().stepGrants.load(std::memory_order_acquire)) {}

void KeepGoing::showState(WorkerState s) {
    storeState(status_.state, s);
}

bool KeepGoing::peerFailed() const {
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r)
        if (r != rank_ && loadState(telemetry_.worker(r).state) == WorkerState::Failed)
            return true;
    return false;
}

bool KeepGoing::peerLeft() const {
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r) {
        if (r == rank_)
            continue;
        if (hasLeftLoop(loadState(telemetry_.worker(r).state)))
            return true;
    }
    return false;
}

bool KeepGoing::alive() {
    if (reason_ == Reason::None && watchPeers_ && peerLeft())
        reason_ = Reason::PeerFailed;
    return reason_ == Reason::None;
}

bool KeepGoing::check(bool stepping) {
    if (reason_ != Reason::None)
        return false;
    auto& command = telemetry_.header().command;
    auto& grants = telemetry_.header().stepGrants;
    while (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Pause)) {
        if (idle_)
            idle_();
        if (watchPeers_ && peerFailed())
            break;
        if (const std::uint32_t g = grants.load(std::memory_order_acquire);
            stepping && g != stepGrantsSeen_) {
            stepGrantsSeen_ = g; // one step, however many were granted meanwhile
            break;
        }
        showState(WorkerState::Paused);
        futexWait(command, std::uint32_t(RunCommand::Pause), idle_ ? 50 : 200);
    }
    if (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Stop))
        reason_ = Reason::Stopped;
    else if (watchPeers_ && peerFailed())
        reason_ = Reason::PeerFailed;
    if (reason_ != Reason::None)
        return false;
    if (loadState(status_.state, std::memory_order_relaxed) != WorkerState::Running)
        showState(WorkerState::Running);
    return true;
}

void KeepGoing::pace() {
    auto& header = telemetry_.header();
    const std::uint32_t pace = header.pace.load(std::memory_order_relaxed);
    if (pace == 0) {
        nextStepNs_ = 0;
        return;
    }
    const std::int64_t interval = 1000000000 / std::int64_t(pace);
    std::int64_t now = Telemetry::nowNs();
    if (nextStepNs_ == 0 || nextStepNs_ < now - interval)
        nextStepNs_ = now; // first paced step, or a late one: no burst to catch up
    while (now < nextStepNs_) {
        const std::uint32_t command = header.command.load(std::memory_order_acquire);
        if (command != std::uint32_t(RunCommand::Run) ||
            header.pace.load(std::memory_order_relaxed) != pace)
            break; // a pause, a stop or another pace: the caller looks again
        const std::int64_t left = nextStepNs_ - now;
        if (left < 2000000) // under 2 ms: a plain sleep (the futex waits whole milliseconds)
            std::this_thread::sleep_for(std::chrono::nanoseconds(left));
        else // longer: a pause, a stop or a new pace ends the wait at once
            futexWait(header.command, command, int(std::min<std::int64_t>(100, left / 1000000)));
        now = Telemetry::nowNs();
    }
    nextStepNs_ = std::max(nextStepNs_, now) + interval;
}

bool KeepGoing::notStopped() {
    if (reason_ == Reason::None && telemetry_.header().command.load(std::memory_order_acquire) ==
                                       std::uint32_t(RunCommand::Stop))
        reason_ = Reason::Stopped;
    else if (reason_ == Reason::None && watchPeers_ && peerFailed())
        reason_ = Reason::PeerFailed;
    return reason_ == Reason::None;
}

bool KeepGoing::waitUntil(std::atomic<std::uint32_t>& word,
                          const std::function<bool(std::uint32_t)>& ready, bool pauseHere) {
    while (true) {
        const std::uint32_t seen = word.load(std::memory_order_acquire);
        if (ready(seen))
            return true;
        if (!notStopped())
            return false;
        // A pause shows here but does not hold the wait: the worker has no
        // step to take here, and one held in the pause would never see the
        // gate open, so a Step could not move it. It goes on to its next
        // step, where the pause holds it and a Step granted meanwhile lets
        // exactly that step through (beforeStep).
        if (pauseHere) {
            const bool paused = telemetry_.header().command.load(std::memory_order_acquire) ==
                                std::uint32_t(RunCommand::Pause);
            const auto shown = paused ? WorkerState::Paused : WorkerState::Running;
            if (loadState(status_.state, std::memory_order_relaxed) != shown)
                showState(shown);
        }
        if (idle_)
            idle_();
        futexWait(word, seen, idle_ ? 50 : 100);
    }
}

void KeepGoing::fail(const std::string& why) {
    telemetry_.failWorker(rank_, why);
    reason_ = Reason::Failed;
}

} // namespace hwl
