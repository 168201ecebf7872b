#include "train/keepgoing.h"

namespace hwl {

KeepGoing::KeepGoing(Telemetry& telemetry, std::uint32_t rank, bool watchPeers)
    : telemetry_(telemetry), status_(telemetry.worker(rank)), rank_(rank), watchPeers_(watchPeers) {
}

void KeepGoing::showState(WorkerState s) {
    status_.state.store(std::uint32_t(s), std::memory_order_release);
}

bool KeepGoing::peerFailed() const {
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r)
        if (r != rank_ && telemetry_.worker(r).state.load(std::memory_order_acquire) ==
                              std::uint32_t(WorkerState::Failed))
            return true;
    return false;
}

bool KeepGoing::peerLeft() const {
    for (std::uint32_t r = 0; r < telemetry_.workerCount(); ++r) {
        if (r == rank_)
            continue;
        const auto s = WorkerState(telemetry_.worker(r).state.load(std::memory_order_acquire));
        if (s == WorkerState::Failed || s == WorkerState::Stopped || s == WorkerState::Finished)
            return true;
    }
    return false;
}

bool KeepGoing::alive() {
    if (reason_ == Reason::None && watchPeers_ && peerLeft())
        reason_ = Reason::PeerFailed;
    return reason_ == Reason::None;
}

bool KeepGoing::operator()() {
    if (reason_ != Reason::None)
        return false;
    auto& command = telemetry_.header().command;
    while (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Pause)) {
        if (idle_)
            idle_();
        if (watchPeers_ && peerFailed())
            break;
        showState(WorkerState::Paused);
        futexWait(command, std::uint32_t(RunCommand::Pause), idle_ ? 50 : 200);
    }
    if (command.load(std::memory_order_acquire) == std::uint32_t(RunCommand::Stop))
        reason_ = Reason::Stopped;
    else if (watchPeers_ && peerFailed())
        reason_ = Reason::PeerFailed;
    if (reason_ != Reason::None)
        return false;
    if (status_.state.load(std::memory_order_relaxed) != std::uint32_t(WorkerState::Running))
        showState(WorkerState::Running);
    return true;
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
        if (pauseHere ? !(*this)() : !notStopped())
            return false;
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
