// MpiCollective's operations (the class: mpihub.h; meeting the peers and
// leaving: mpipeers.cpp).
#include "mpi/mpihub.h"

#include "collective/rankmean.h"
#include "mpi/mpijob.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"
#include "util/errors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include <sched.h>
#include <time.h>

namespace hwl {

namespace {
/// Every data message starts with the operation's number and a vote.
struct DataHeader {
    std::uint32_t op = 0;
    std::uint32_t vote = 0;
};
constexpr std::size_t kHeaderBytes = sizeof(DataHeader);
/// Waits look around (relays, farewells, liveness) at most this often.
constexpr std::int64_t kLookEveryNs = 1'000'000;
/// How long a wait in one of MPI's collectives goes on once the rank's
/// liveness check says no while no rank failed. A peer that left its loop
/// normally completed this same collective first (its data is on its way
/// here), so ours completes in a moment; a rank that failed never will, and
/// the wait ends at once.
constexpr std::int64_t kCollectiveGraceNs = 200'000'000;

int mpiCount(std::size_t bytes) {
    if (bytes > std::size_t(INT32_MAX))
        throw RunError("MPI collective: a message of " + std::to_string(bytes) +
                       " bytes is too large; use a smaller --bucket-mb");
    return int(bytes);
}
} // namespace

MpiCollective::MpiCollective(Telemetry& telemetry, std::uint32_t rank, std::int64_t capacity,
                             mpi::Greeting greeting, MpiReduction reduction, MPI_Comm comm)
    : t_(telemetry), rank_(rank), size_(mpi::job().size), capacity_(capacity),
      greeting_(std::move(greeting)),
      dataBytes_(kHeaderBytes + std::size_t(capacity) * sizeof(float)),
      spinNs_(mpi::job().localSize <= std::thread::hardware_concurrency() ? 5'000'000 : 0),
      comm_(comm), viaMpi_(reduction == MpiReduction::Collective && mpi::job().size > 1) {
    if (rank_ != mpi::job().rank)
        throw RunError("MPI collective: rank " + std::to_string(rank_) + " is MPI rank " +
                       std::to_string(mpi::job().rank));
    if (t_.workerCount() != size_)
        throw RunError("MPI collective: the run has " + std::to_string(t_.workerCount()) +
                       " ranks but mpirun started " + std::to_string(size_));
    int commSize = 0;
    MPI_Comm_size(comm_, &commSize);
    if (std::uint32_t(commSize) != size_)
        throw RunError("MPI collective: its communicator has " + std::to_string(commSize) +
                       " ranks, the job " + std::to_string(size_));
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    // mpirun's SIGTERM stops this run (its command word) from now on.
    mpi::watchCommand(&t_.header().command);
    inputs_.resize(size_);
    if (viaMpi_) {
        // The blocks and the means; the data goes from the caller's buffer.
        for (auto* v : {&blockCounts_, &blockStarts_, &sendCounts_, &theirCounts_, &theirStarts_})
            v->resize(size_);
        blocks_.resize(std::size_t(capacity_ / size_ + 1) * size_);
        for (auto& m : means_)
            m.resize(std::size_t(capacity_));
        dataBytes_ = kHeaderBytes;
    }
    if (rank_ == 0) {
        peers_.resize(size_);
        in_.assign(size_, std::vector<char>(dataBytes_));
        for (auto& out : out_)
            out.resize(dataBytes_);
        for (auto& requests : outRequests_)
            requests.assign(size_, MPI_REQUEST_NULL);
    } else {
        send_.resize(dataBytes_);
        for (auto& r : recv_)
            r.resize(dataBytes_);
    }
}

MpiCollective::~MpiCollective() {
    close();
    mpi::unwatchCommand(&t_.header().command);
}

bool MpiCollective::fail(KeepGoing& alive, const std::string& why) {
    broken_ = true;
    alive.fail(why);
    return false;
}

bool MpiCollective::await(MPI_Request* requests, int n, KeepGoing* alive, std::int64_t deadlineNs,
                          bool collective) {
    const std::int64_t begin = Telemetry::nowNs();
    std::int64_t deadSince = 0;
    statuses_.resize(std::size_t(std::max(n, 1)));
    while (true) {
        int done = 0;
        const int rc = MPI_Testall(n, requests, &done, statuses_.data());
        if (rc == MPI_SUCCESS && done)
            return true;
        const std::int64_t now = Telemetry::nowNs();
        bool give = rc != MPI_SUCCESS || (deadlineNs && now > deadlineNs);
        if (!give && now - lastLookNs_ >= kLookEveryNs) {
            lastLookNs_ = now;
            lookAround(now);
        }
        if (alive && !alive->alive()) {
            deadSince = deadSince ? deadSince : now;
            give = give || !collective || now - deadSince > kCollectiveGraceNs || anyRankFailed();
        }
        const std::int64_t ending = mpi::endingSince();
        if (!give && ending && now - ending > mpi::kEndingGraceNs) {
            if (alive && collective)
                nameStalledCollective(0, *alive);
            else if (alive)
                nameSilentRanks(requests, n);
            give = true;
        }
        if (rc != MPI_SUCCESS && alive && collective)
            nameStalledCollective(rc, *alive);
        else if (rc != MPI_SUCCESS && alive)
            nameLostRanks(requests, n);
        if (give) {
            for (int i = 0; i < n; ++i)
                if (requests[i] != MPI_REQUEST_NULL) {
                    (collective ? stranded_ : abandoned_).push_back(requests[i]);
                    requests[i] = MPI_REQUEST_NULL;
                }
            broken_ = true;
            return false;
        }
        // Ranks on their own cores answer within microseconds: spin a while,
        // then let others have the core (more ranks than cores, or a peer
        // that is evaluating or paused).
        if (now - begin > spinNs_) {
            if (mpi::job().localSize > std::thread::hardware_concurrency()) {
                sched_yield();
            } else {
                const timespec pause{0, 20'000};
                nanosleep(&pause, nullptr);
            }
        }
    }
}

const float* MpiCollective::hubReduce(const float* data, std::int64_t count, std::uint32_t* vote,
                                      KeepGoing& alive) {
    const std::uint32_t op = op_++;
    const std::uint32_t set = op & 1;
    const std::size_t bytes = kHeaderBytes + std::size_t(count) * sizeof(float);
    const int n = int(size_) - 1;
    requests_.assign(std::size_t(n), MPI_REQUEST_NULL);
    for (int i = 0; i < n; ++i)
        MPI_Irecv(in_[std::size_t(i) + 1].data(), mpiCount(bytes), MPI_BYTE, i + 1, mpi::kData,
                  comm_, &requests_[std::size_t(i)]);
    if (!await(requests_.data(), n, &alive))
        return nullptr;
    std::uint32_t agreed = vote ? *vote : 0;
    inputs_[0] = data;
    for (std::uint32_t r = 1; r < size_; ++r) {
        DataHeader h;
        std::memcpy(&h, in_[r].data(), kHeaderBytes);
        int got = 0;
        MPI_Get_count(&statuses_[r - 1], MPI_BYTE, &got);
        if (h.op != op || std::size_t(got) != bytes) {
            fail(alive, who(r) + " is out of step with rank 0 (operation " + std::to_string(h.op) +
                            " of " + std::to_string(got) + " bytes, expected " +
                            std::to_string(op) + " of " + std::to_string(bytes) +
                            "): please report this");
            return nullptr;
        }
        agreed = std::max(agreed, h.vote);
        inputs_[r] = reinterpret_cast<const float*>(in_[r].data() + kHeaderBytes);
    }
    // The sends of this set went out two operations ago: done by now.
    if (!await(outRequests_[set].data() + 1, n, &alive))
        return nullptr;
    char* out = out_[set].data();
    const DataHeader back{op, agreed};
    std::memcpy(out, &back, kHeaderBytes);
    auto* mean = reinterpret_cast<float*>(out + kHeaderBytes);
    meanInRankOrder(inputs_.data(), size_, 0, count, mean);
    for (int i = 0; i < n; ++i)
        MPI_Isend(out, mpiCount(bytes), MPI_BYTE, i + 1, mpi::kData, comm_,
                  &outRequests_[set][std::size_t(i) + 1]);
    if (vote)
        *vote = agreed;
    return mean;
}

const float* MpiCollective::reduce(const float* data, std::int64_t count, std::uint32_t* vote,
                                   KeepGoing& alive) {
    if (broken_ || count > capacity_)
        return nullptr;
    if (viaMpi_)
        return collectiveReduce(data, count, vote, alive);
    if (rank_ == 0)
        return hubReduce(data, count, vote, alive);
    const std::uint32_t op = op_++;
    const std::uint32_t set = op & 1;
    const std::size_t bytes = kHeaderBytes + std::size_t(count) * sizeof(float);
    const DataHeader h{op, vote ? *vote : 0};
    std::memcpy(send_.data(), &h, kHeaderBytes);
    if (count > 0)
        std::memcpy(send_.data() + kHeaderBytes, data, std::size_t(count) * sizeof(float));
    MPI_Request requests[2];
    MPI_Irecv(recv_[set].data(), mpiCount(bytes), MPI_BYTE, 0, mpi::kData, comm_, &requests[0]);
    MPI_Isend(send_.data(), mpiCount(bytes), MPI_BYTE, 0, mpi::kData, comm_, &requests[1]);
    if (!await(requests, 2, &alive))
        return nullptr;
    DataHeader back;
    std::memcpy(&back, recv_[set].data(), kHeaderBytes);
    int got = 0;
    MPI_Get_count(&statuses_[0], MPI_BYTE, &got);
    if (back.op != op || std::size_t(got) != bytes) {
        fail(alive,
             "rank " + std::to_string(rank_) + " is out of step with rank 0: please report this");
        return nullptr;
    }
    if (vote)
        setAgreedVote(back.vote);
    return reinterpret_cast<const float*>(recv_[set].data() + kHeaderBytes);
}

const float* MpiCollective::reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                                       std::uint32_t* vote) {
    if (size_ == 1)
        return count <= capacity_ ? data : nullptr;
    return reduce(data, count, vote, alive);
}

bool MpiCollective::allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                                  std::uint32_t* vote) {
    if (size_ == 1)
        return true;
    std::int64_t at = 0;
    do {
        const std::int64_t n = std::min(capacity_, count - at);
        std::uint32_t* v = at == 0 ? vote : nullptr;
        // Through MPI's collectives the mean lands in place.
        const float* mean = viaMpi_ && !broken_ ? collectiveReduce(data + at, n, v, alive,
                                                                   data ? data + at : nullptr)
                                                : reduce(data + at, n, v, alive);
        if (!mean)
            return false;
        if (n > 0 && mean != data + at)
            std::memcpy(data + at, mean, std::size_t(n) * sizeof(float));
        at += n;
    } while (at < count);
    return true;
}

bool MpiCollective::agree(std::uint32_t& vote, KeepGoing& alive) {
    return allreduceMean(nullptr, 0, alive, &vote);
}

bool MpiCollective::anyRankFailed() const {
    for (std::uint32_t r = 0; r < size_; ++r)
        if (loadState(t_.worker(r).state) == WorkerState::Failed)
            return true;
    return false;
}

void MpiCollective::setAgreedVote(std::uint32_t vote) {
    if (rank_ == 0)
        return; // rank 0's own state says it
    agreedPause_ = vote == std::uint32_t(RunCommand::Pause);
    // The step this vote ends is counted after the collective returns: the
    // rank shows as paused only from then on (rank 0 must never see it
    // paused with one step fewer than itself).
    pauseFromStep_ = t_.worker(rank_).steps.load(std::memory_order_relaxed) + 1;
}

bool MpiCollective::distanceFromMean(const float* data, std::int64_t count, double& distance,
                                     KeepGoing& alive) {
    double squares = 0;
    for (std::int64_t at = 0; size_ > 1 && at < count; at += capacity_) {
        const std::int64_t n = std::min(capacity_, count - at);
        const float* mean = reduce(data + at, n, nullptr, alive);
        if (!mean)
            return false;
        for (std::int64_t i = 0; i < n; ++i) {
            const double d = double(data[at + i]) - double(mean[i]);
            squares += d * d;
        }
    }
    distance = std::sqrt(squares);
    return true;
}

bool MpiCollective::sendBytes(const void* data, std::size_t size, std::uint32_t to,
                              KeepGoing& alive) {
    MPI_Request request;
    MPI_Isend(data, mpiCount(size), MPI_BYTE, int(to), mpi::kData, comm_, &request);
    return await(&request, 1, &alive);
}

bool MpiCollective::receiveBytes(void* data, std::size_t room, std::size_t& size,
                                 std::uint32_t from, KeepGoing& alive) {
    MPI_Request request;
    MPI_Irecv(data, mpiCount(room), MPI_BYTE, int(from), mpi::kData, comm_, &request);
    if (!await(&request, 1, &alive))
        return false;
    int got = 0;
    MPI_Get_count(&statuses_[0], MPI_BYTE, &got);
    size = std::size_t(got);
    return true;
}

bool MpiCollective::broadcastBytes(char* data, std::size_t& size, std::size_t room,
                                   std::uint32_t root, KeepGoing& alive) {
    if (broken_)
        return false;
    if (size_ == 1)
        return true;
    // From a root other than 0, through rank 0 (the hub).
    if (root != 0 && rank_ == root && !sendBytes(data, size, 0, alive))
        return false;
    if (root != 0 && rank_ == 0 && !receiveBytes(data, room, size, root, alive))
        return false;
    if (rank_ != 0)
        return rank_ == root || receiveBytes(data, room, size, 0, alive);
    requests_.assign(size_, MPI_REQUEST_NULL);
    for (std::uint32_t r = 1; r < size_; ++r)
        if (r != root)
            MPI_Isend(data, mpiCount(size), MPI_BYTE, int(r), mpi::kData, comm_, &requests_[r - 1]);
    return await(requests_.data(), int(size_) - 1, &alive);
}

bool MpiCollective::broadcast(float* data, std::int64_t count, std::uint32_t root,
                              KeepGoing& alive) {
    for (std::int64_t at = 0; at < count; at += capacity_) {
        const std::size_t bytes = std::size_t(std::min(capacity_, count - at)) * sizeof(float);
        std::size_t size = bytes;
        if (!broadcastBytes(reinterpret_cast<char*>(data + at), size, bytes, root, alive))
            return false;
    }
    return true;
}

bool MpiCollective::broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) {
    const std::size_t room = std::size_t(capacity_) * sizeof(float) - sizeof(std::uint64_t);
    std::vector<char> bytes(room);
    std::size_t size = std::min(text.size(), room);
    if (rank_ == root)
        std::memcpy(bytes.data(), text.data(), size);
    if (!broadcastBytes(bytes.data(), size, room, root, alive))
        return false;
    text.assign(bytes.data(), size);
    return true;
}

bool MpiCollective::allgather(const std::vector<std::int64_t>& mine,
                              std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) {
    const std::size_t room = std::size_t(capacity_) / 2 - 1; // as the shared-memory collective
    if (mine.size() > room)
        throw RunError("collective: " + std::to_string(mine.size()) +
                       " integers do not fit one operation of " + std::to_string(room));
    if (broken_)
        return false;
    all.assign(size_, {});
    all[rank_] = mine;
    if (size_ == 1)
        return true;
    // Every list to rank 0; rank 0 sends the table back: per rank its count,
    // then every list in rank order.
    std::vector<std::int64_t> table;
    if (rank_ != 0) {
        if (!sendBytes(mine.data(), mine.size() * sizeof(std::int64_t), 0, alive))
            return false;
        table.resize(size_ * (room + 1));
    } else {
        std::vector<std::int64_t> theirs(room);
        for (std::uint32_t r = 1; r < size_; ++r) {
            std::size_t got = 0;
            if (!receiveBytes(theirs.data(), room * sizeof(std::int64_t), got, r, alive))
                return false;
            all[r].assign(theirs.begin(), theirs.begin() + std::ptrdiff_t(got / 8));
        }
        for (const auto& list : all)
            table.push_back(std::int64_t(list.size()));
        for (const auto& list : all)
            table.insert(table.end(), list.begin(), list.end());
    }
    std::size_t size = table.size() * sizeof(std::int64_t);
    if (!broadcastBytes(reinterpret_cast<char*>(table.data()), size, size, 0, alive))
        return false;
    if (rank_ != 0) {
        std::size_t at = size_;
        for (std::uint32_t r = 0; r < size_; ++r) {
            const auto n = std::size_t(std::clamp<std::int64_t>(table[r], 0, std::int64_t(room)));
            if ((at + n) * sizeof(std::int64_t) > size)
                return fail(alive, "rank 0 sent a malformed allgather: please report this");
            all[r].assign(table.begin() + std::ptrdiff_t(at),
                          table.begin() + std::ptrdiff_t(at + n));
            at += n;
        }
    }
    return true;
}

} // namespace hwl

namespace hwl {

std::unique_ptr<Collective> makeMpiCollective(Telemetry& telemetry, std::uint32_t rank,
                                              std::int64_t capacity, mpi::Greeting greeting,
                                              MpiReduction reduction, int communicator) {
    const MPI_Comm comm = communicator < 0 ? MPI_COMM_WORLD : MPI_Comm_f2c(MPI_Fint(communicator));
    return std::make_unique<MpiCollective>(telemetry, rank, capacity, std::move(greeting),
                                           reduction, comm);
}

} // namespace hwl
