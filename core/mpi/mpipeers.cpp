// MpiCollective around its operations (the class: mpihub.h): meeting the
// peers (greetings, refusals, the welcome), the relays of telemetry to rank
// 0, rank 0's farewells, the liveness of ranks on this host, and leaving.
#include "mpi/mpihub.h"

#include "launch/waitstatus.h"
#include "mpi/mpijob.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace hwl {

namespace {
constexpr std::int64_t kRelayEveryNs = 100'000'000; ///< a few relays a second
constexpr std::int64_t kGoodbyeNs = 5'000'000'000;  ///< the most leaving waits for peers

/// Whether process `pid` of this host has ended. `status` is its waitpid()
/// status when it was caught on its way out (/proc/PID/stat's exit_code),
/// else -1: its parent (mpirun) reaps it within milliseconds.
bool processEnded(std::int32_t pid, int& status) {
    status = -1;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    std::FILE* f = std::fopen(path, "re");
    if (!f)
        return errno == ENOENT || errno == ESRCH;
    char text[1024];
    const std::size_t n = std::fread(text, 1, sizeof text - 1, f);
    std::fclose(f);
    text[n] = '\0';
    const char* p = std::strrchr(text, ')'); // the name may hold spaces and parentheses
    if (!p || p[1] != ' ')
        return false;
    const char state = p[2];
    // Fields from the state (field 3) on; exit_code is field 52.
    int field = 3;
    for (const char* c = p + 2; *c; ++c)
        if (*c == ' ' && ++field == 52) {
            const int code = std::atoi(c + 1);
            if (code != 0) {
                status = code;
                return true;
            }
            break;
        }
    return state == 'Z' || state == 'X';
}
} // namespace

std::string MpiCollective::who(std::uint32_t rank) const {
    const Peer& p = peers_[rank];
    std::string text = "rank " + std::to_string(rank) + " (pid " + std::to_string(p.pid);
    if (!p.sameHost)
        text += " on " + p.host;
    return text + ")";
}

std::uint64_t MpiCollective::stepsSoFar() const {
    return t_.worker(rank_).steps.load(std::memory_order_relaxed);
}

bool MpiCollective::open(KeepGoing& alive) {
    if (opened_ || broken_)
        return opened_;
    opened_ = rank_ == 0 ? openHub(alive) : openSpoke(alive);
    return opened_;
}

bool MpiCollective::openHub(KeepGoing& alive) {
    peers_[0].pid = std::int32_t(getpid());
    peers_[0].host = mpi::job().host;
    peers_[0].sameHost = true;
    t_.setHost(0, mpi::job().host);
    const int n = int(size_) - 1;
    greetings_.assign(size_, std::vector<char>(mpi::kMaxGreetingBytes));
    requests_.assign(std::size_t(n), MPI_REQUEST_NULL);
    for (int i = 0; i < n; ++i)
        MPI_Irecv(greetings_[std::size_t(i) + 1].data(), int(mpi::kMaxGreetingBytes), MPI_BYTE,
                  i + 1, mpi::kGreeting, comm_, &requests_[std::size_t(i)]);
    if (!await(requests_.data(), n, &alive)) {
        sendFarewells(WorkerState::Stopped, "rank 0 stopped before every rank had joined");
        return false;
    }
    std::vector<int> sizes(size_, 0);
    for (int i = 0; i < n; ++i)
        MPI_Get_count(&statuses_[std::size_t(i)], MPI_BYTE, &sizes[std::size_t(i) + 1]);
    std::string first;
    for (std::uint32_t r = 1; r < size_; ++r)
        if (const std::string why = refusal(r, greetings_[r], sizes[r]); !why.empty()) {
            t_.failWorker(r, why);
            if (first.empty())
                first = why;
        }
    if (!first.empty()) {
        sendFarewells(WorkerState::Failed, first);
        return false;
    }
    welcome_ = mpi::encode(mpi::Welcome{Telemetry::nowNs(), t_.header().startNs});
    requests_.assign(std::size_t(n), MPI_REQUEST_NULL);
    for (int i = 0; i < n; ++i)
        MPI_Isend(welcome_.data(), int(welcome_.size()), MPI_BYTE, i + 1, mpi::kWelcome, comm_,
                  &requests_[std::size_t(i)]);
    if (!await(requests_.data(), n, &alive))
        return false;
    for (std::uint32_t r = 1; r < size_; ++r)
        postRelayReceive(r);
    return true;
}

std::string MpiCollective::refusal(std::uint32_t rank, const std::vector<char>& bytes, int size) {
    mpi::Greeting g;
    try {
        g = mpi::decodeGreeting(bytes.data(), std::size_t(size));
    } catch (const std::exception& e) {
        return "rank " + std::to_string(rank) + " sent a greeting this hogwild-lab cannot read (" +
               e.what() + "): run the same hogwild-lab on every host";
    }
    Peer& p = peers_[rank];
    p.pid = g.pid;
    p.host = g.host;
    p.sameHost = g.host == mpi::job().host;
    t_.worker(rank).pid.store(g.pid, std::memory_order_relaxed);
    t_.setHost(rank, g.host);
    if (!g.error.empty())
        return who(rank) + " could not start: " + g.error;
    if (const std::string diff = mpi::factDifference(g.facts, greeting_.facts); !diff.empty())
        return who(rank) + " does not run rank 0's experiment on the same data: " + diff +
               "; give every rank the same options, and every host the same files at the same "
               "paths";
    return {};
}

bool MpiCollective::openSpoke(KeepGoing& alive) {
    farewell_.resize(mpi::kMaxFarewellBytes);
    MPI_Irecv(farewell_.data(), int(farewell_.size()), MPI_BYTE, 0, mpi::kFarewell, comm_,
              &farewellRequest_);
    greetingOut_ = mpi::encode(greeting_);
    welcome_.resize(64);
    MPI_Request requests[2];
    MPI_Irecv(welcome_.data(), int(welcome_.size()), MPI_BYTE, 0, mpi::kWelcome, comm_,
              &requests[0]);
    MPI_Isend(greetingOut_.data(), int(greetingOut_.size()), MPI_BYTE, 0, mpi::kGreeting, comm_,
              &requests[1]);
    // Rank 0's farewell (it refused this rank, or left) ends the wait.
    if (!await(requests, 2, &alive))
        return false;
    int got = 0;
    MPI_Get_count(&statuses_[0], MPI_BYTE, &got);
    mpi::Welcome w;
    try {
        w = mpi::decodeWelcome(welcome_.data(), std::size_t(got));
    } catch (const std::exception& e) {
        return fail(alive, std::string("rank 0's welcome: ") + e.what());
    }
    // Count this rank's telemetry times from rank 0's run start.
    t_.header().startNs = Telemetry::nowNs() - (w.rootNowNs - w.rootStartNs);
    return true;
}

void MpiCollective::postRelayReceive(std::uint32_t rank) {
    Peer& p = peers_[rank];
    p.relay.resize(mpi::maxRelayBytes());
    MPI_Irecv(p.relay.data(), int(p.relay.size()), MPI_BYTE, int(rank), mpi::kRelay, comm_,
              &p.relayRequest);
}

void MpiCollective::sendFarewells(WorkerState state, const std::string& why) {
    farewellsSent_ = true;
    bool lost = false;
    for (std::uint32_t r = 1; r < size_; ++r)
        lost = lost || peers_[r].lost;
    for (std::uint32_t r = 1; r < size_; ++r) {
        Peer& p = peers_[r];
        if (p.left || p.lost)
            continue;
        p.farewell = mpi::encode(mpi::Farewell{state, why, lost});
        MPI_Isend(p.farewell.data(), int(p.farewell.size()), MPI_BYTE, int(r), mpi::kFarewell,
                  comm_, &p.farewellRequest);
    }
}

void MpiCollective::lookAround(std::int64_t now) {
    if (rank_ == 0) {
        pollRelays();
        checkPeersAlive();
    } else {
        checkFarewell();
        relayIfDue(now, false);
    }
}

void MpiCollective::idle() {
    if (opened_ && !closed_)
        lookAround(Telemetry::nowNs());
}

void MpiCollective::pollRelays() {
    for (std::uint32_t r = 1; r < size_; ++r) {
        Peer& p = peers_[r];
        if (p.relayRequest == MPI_REQUEST_NULL)
            continue;
        int done = 0;
        MPI_Status status;
        if (MPI_Test(&p.relayRequest, &done, &status) != MPI_SUCCESS || !done)
            continue;
        int got = 0;
        MPI_Get_count(&status, MPI_BYTE, &got);
        try {
            if (hasLeftLoop(mpi::applyRelay(p.relay.data(), std::size_t(got), t_, r)))
                p.left = true;
            else
                postRelayReceive(r);
        } catch (const std::exception& e) {
            p.lost = true;
            t_.failWorker(r, who(r) + " sent telemetry this hogwild-lab cannot read (" + e.what() +
                                 "): run the same hogwild-lab on every host");
        }
    }
}

void MpiCollective::checkPeersAlive() {
    for (std::uint32_t r = 1; r < size_; ++r) {
        Peer& p = peers_[r];
        int status = -1;
        if (!p.sameHost || p.left || p.lost || p.pid <= 0 || !processEnded(p.pid, status))
            continue;
        pollRelays(); // its last words may still be on their way
        if (p.left)
            continue;
        p.lost = true;
        mpi::markPeerLost();
        t_.failWorker(r, who(r) + " " + (status >= 0 ? describeWaitStatus(status) : "died") +
                             " after " + std::to_string(stepsSoFar()) + " steps" +
                             (status >= 0 ? "" : " (mpirun's message says how)"));
    }
}

void MpiCollective::nameSilentRanks(const MPI_Request* requests, int n) {
    if (rank_ != 0)
        return; // rank 0 speaks for the job
    const char* signal = mpi::endingSignal() == SIGINT ? "SIGINT" : "SIGTERM";
    for (int i = 0; i < n && std::uint32_t(i) + 1 < size_; ++i) {
        Peer& p = peers_[std::size_t(i) + 1];
        if (requests[i] == MPI_REQUEST_NULL || p.left || p.lost)
            continue;
        p.lost = true;
        mpi::markPeerLost();
        t_.failWorker(std::uint32_t(i) + 1,
                      who(std::uint32_t(i) + 1) + " had not answered after " +
                          std::to_string(stepsSoFar()) + " steps when mpirun ended the job (" +
                          signal + "): it most likely died; mpirun's own message says how");
    }
}

void MpiCollective::nameLostRanks(const MPI_Request* requests, int n) {
    if (rank_ != 0)
        return;
    // A broken connection is most often a rank that died: give this host's
    // ranks a moment to be seen gone.
    const std::int64_t until = Telemetry::nowNs() + 500'000'000;
    bool named = false;
    while (!named && Telemetry::nowNs() < until) {
        checkPeersAlive();
        for (std::uint32_t r = 1; r < size_; ++r)
            named = named || peers_[r].lost;
        if (!named)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (int i = 0; !named && i < n && std::uint32_t(i) + 1 < size_; ++i) {
        const int error = statuses_[std::size_t(i)].MPI_ERROR;
        Peer& p = peers_[std::size_t(i) + 1];
        if (requests[i] == MPI_REQUEST_NULL || error == MPI_SUCCESS || p.left || p.lost)
            continue;
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        MPI_Error_string(error, text, &length);
        p.lost = true;
        mpi::markPeerLost();
        t_.failWorker(std::uint32_t(i) + 1, who(std::uint32_t(i) + 1) + " was lost after " +
                                                std::to_string(stepsSoFar()) +
                                                " steps: MPI reported " + text);
    }
}

void MpiCollective::nameStalledCollective(int rc, KeepGoing& alive) {
    if (rank_ != 0)
        return; // rank 0 speaks for the job
    // A rank of this host that is gone names itself by its pid: after an
    // error give it a moment to be seen gone (after mpirun's SIGTERM there
    // is none left: mpirun's SIGKILL follows within a second).
    const std::int64_t until = Telemetry::nowNs() + (rc == MPI_SUCCESS ? 0 : 500'000'000);
    while (true) {
        checkPeersAlive();
        for (std::uint32_t r = 1; r < size_; ++r)
            if (peers_[r].lost)
                return;
        if (Telemetry::nowNs() >= until)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::string what;
    if (rc == MPI_SUCCESS) {
        what = std::string("had not completed when mpirun ended the job (") +
               (mpi::endingSignal() == SIGINT ? "SIGINT" : "SIGTERM") +
               "): a rank most likely died; mpirun's own message says which";
    } else {
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        MPI_Error_string(rc, text, &length);
        what = std::string("failed: MPI reported ") + text + " (a rank was most likely lost)";
    }
    alive.fail("the ranks' reduction after " + std::to_string(stepsSoFar()) + " steps " + what);
}

void MpiCollective::checkFarewell() {
    if (farewellRequest_ == MPI_REQUEST_NULL)
        return;
    int done = 0;
    MPI_Status status;
    if (MPI_Test(&farewellRequest_, &done, &status) != MPI_SUCCESS || !done)
        return;
    farewellSeen_ = true;
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    mpi::Farewell f;
    try {
        f = mpi::decodeFarewell(farewell_.data(), std::size_t(got));
    } catch (const std::exception&) {
        f = {WorkerState::Stopped, {}, true};
    }
    if (f.peerLost)
        mpi::markPeerLost();
    // Rank 0 has left: this rank's waits end (KeepGoing watches its peers).
    if (f.state == WorkerState::Failed)
        t_.failWorker(0, f.why.empty() ? "rank 0 left" : f.why);
    else
        storeState(t_.worker(0).state, f.state);
}

void MpiCollective::relayIfDue(std::int64_t now, bool last) {
    if (relayRequest_ != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&relayRequest_, &done, MPI_STATUS_IGNORE);
        if (!done && (!last || !await(&relayRequest_, 1, nullptr, now + kGoodbyeNs)))
            return;
    }
    WorkerStatus& w = t_.worker(rank_);
    const auto state = loadState(w.state);
    const std::uint64_t steps = w.steps.load(std::memory_order_relaxed);
    // While it waits out an agreed pause, this rank shows as paused.
    const WorkerState shown =
        agreedPause_ && state == WorkerState::Running && steps >= pauseFromStep_
            ? WorkerState::Paused
            : state;
    if (!last && (now - lastRelayNs_ < kRelayEveryNs ||
                  (steps == relayedSteps_ && std::uint32_t(shown) == relayedState_)))
        return;
    relayOut_ = mpi::encodeRelay(w, t_.header().startNs, shown, t_.header().traceSliceNs);
    MPI_Isend(relayOut_.data(), int(relayOut_.size()), MPI_BYTE, 0, mpi::kRelay, comm_,
              &relayRequest_);
    lastRelayNs_ = now;
    relayedSteps_ = steps;
    relayedState_ = std::uint32_t(shown);
    if (last)
        await(&relayRequest_, 1, nullptr, now + kGoodbyeNs);
}

void MpiCollective::close() {
    if (closed_)
        return;
    closed_ = true;
    if (rank_ == 0)
        closeHub();
    else
        closeSpoke();
    releaseAbandoned();
}

void MpiCollective::closeSpoke() {
    if (opened_)
        relayIfDue(Telemetry::nowNs(), true); // the last relay: how this rank left
    if (farewellRequest_ != MPI_REQUEST_NULL) {
        MPI_Cancel(&farewellRequest_);
        MPI_Wait(&farewellRequest_, MPI_STATUS_IGNORE);
    }
}

void MpiCollective::closeHub() {
    const std::int64_t deadline = Telemetry::nowNs() + kGoodbyeNs;
    if (!farewellsSent_) {
        const auto state = loadState(t_.worker(0).state);
        sendFarewells(state, t_.failureText(0));
    }
    // Results still on their way: to ranks that live (a send to one that
    // died may never complete).
    for (auto& requests : outRequests_)
        for (std::uint32_t r = 1; r < size_; ++r)
            if (requests[r] != MPI_REQUEST_NULL) {
                if (peers_[r].lost) {
                    abandoned_.push_back(requests[r]);
                    requests[r] = MPI_REQUEST_NULL;
                } else {
                    await(&requests[r], 1, nullptr, deadline);
                }
            }
    // Every rank's last relay says how it left (or it is gone).
    while (opened_ && Telemetry::nowNs() < deadline) {
        pollRelays();
        checkPeersAlive();
        bool waiting = false;
        for (std::uint32_t r = 1; r < size_; ++r)
            waiting = waiting || (!peers_[r].left && !peers_[r].lost);
        const std::int64_t ending = mpi::endingSince();
        if (!waiting || (ending && Telemetry::nowNs() - ending > mpi::kEndingGraceNs))
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (std::uint32_t r = 1; r < size_; ++r) {
        Peer& p = peers_[r];
        if (p.farewellRequest != MPI_REQUEST_NULL)
            await(&p.farewellRequest, 1, nullptr, deadline);
        if (p.relayRequest != MPI_REQUEST_NULL) {
            MPI_Cancel(&p.relayRequest);
            MPI_Wait(&p.relayRequest, MPI_STATUS_IGNORE);
        }
    }
}

void MpiCollective::releaseAbandoned() {
    for (MPI_Request& r : abandoned_) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
    }
    abandoned_.clear();
}

} // namespace hwl
