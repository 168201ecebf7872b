#pragma once
// MpiCollective's class, shared by its two halves: mpicollective.cpp (the
// operations) and mpipeers.cpp (meeting the peers, relays, farewells,
// liveness, leaving). Private to mpi/.
#include "mpi/mpicollective.h"
#include "mpi/mpiwire.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace hwl {

class MpiCollective final : public Collective {
public:
    MpiCollective(Telemetry& telemetry, std::uint32_t rank, std::int64_t capacity,
                  mpi::Greeting greeting, MpiReduction reduction, MPI_Comm comm);
    ~MpiCollective() override;

    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    std::int64_t capacity() const override { return capacity_; }
    bool open(KeepGoing& alive) override;
    void close() override;
    void idle() override;
    bool allreduceMean(float* data, std::int64_t count, KeepGoing& alive,
                       std::uint32_t* vote = nullptr) override;
    const float* reduceMean(const float* data, std::int64_t count, KeepGoing& alive,
                            std::uint32_t* vote = nullptr) override;
    bool broadcast(float* data, std::int64_t count, std::uint32_t root, KeepGoing& alive) override;
    bool broadcastText(std::string& text, std::uint32_t root, KeepGoing& alive) override;
    bool allgather(const std::vector<std::int64_t>& mine,
                   std::vector<std::vector<std::int64_t>>& all, KeepGoing& alive) override;
    bool agree(std::uint32_t& vote, KeepGoing& alive) override;
    bool distanceFromMean(const float* data, std::int64_t count, double& distance,
                          KeepGoing& alive) override;

private:
    /// What rank 0 knows of another rank.
    struct Peer {
        std::int32_t pid = 0;
        std::string host;
        bool sameHost = false;
        bool left = false; ///< it relayed that it left its loop
        bool lost = false; ///< it died, or never answered
        std::vector<char> relay;
        MPI_Request relayRequest = MPI_REQUEST_NULL;
        std::vector<char> farewell;
        MPI_Request farewellRequest = MPI_REQUEST_NULL;
    };

    // mpicollective.cpp: the operations.
    const float* reduce(const float* data, std::int64_t count, std::uint32_t* vote,
                        KeepGoing& alive);
    const float* hubReduce(const float* data, std::int64_t count, std::uint32_t* vote,
                           KeepGoing& alive);
    // mpireduce.cpp: the reductions through MPI's own collectives.
    /// The mean into `out` (may be `data`), else into the alternate means_.
    const float* collectiveReduce(const float* data, std::int64_t count, std::uint32_t* vote,
                                  KeepGoing& alive, float* out = nullptr);
    /// The mean of every rank's data[0..count) into `out`: each rank gets
    /// every rank's copy of its block (MPI_Ialltoallv), sums it in rank
    /// order in double (meanInRankOrder, as the hub), and MPI_Iallgatherv
    /// copies every block to every rank. `beside` (if any) is a request
    /// awaited with the exchange.
    bool reduceScatterGather(const float* data, std::int64_t count, float* out, KeepGoing& alive,
                             MPI_Request* beside);
    /// The vote beside a reduction: the largest vote, and the operation
    /// numbers' check. False (and the rank fails) when the ranks are out of step.
    bool settleVote(std::uint32_t op, std::uint32_t* vote, KeepGoing& alive);
    void setAgreedVote(std::uint32_t vote);
    /// Whether this rank's telemetry shows any rank failed (itself, a peer
    /// rank 0 saw gone, or rank 0 by its farewell).
    bool anyRankFailed() const;
    bool sendBytes(const void* data, std::size_t size, std::uint32_t to, KeepGoing& alive);
    bool receiveBytes(void* data, std::size_t room, std::size_t& size, std::uint32_t from,
                      KeepGoing& alive);
    bool broadcastBytes(char* data, std::size_t& size, std::size_t room, std::uint32_t root,
                        KeepGoing& alive);
    /// Polls `requests` until all completed. `alive` null: only until
    /// `deadlineNs` (leaving). False when they could not complete; the
    /// requests left are abandoned (cancelled at close()).
    /// `collective`: the requests are MPI collectives, which no rank can
    /// cancel or free once posted (the MPI standard); one a gone peer left
    /// pending is stranded (kept, never completed) instead of abandoned.
    bool await(MPI_Request* requests, int n, KeepGoing* alive, std::int64_t deadlineNs = 0,
               bool collective = false);
    bool fail(KeepGoing& alive, const std::string& why);

    // mpipeers.cpp: everything around the operations.
    bool openHub(KeepGoing& alive);
    bool openSpoke(KeepGoing& alive);
    std::string refusal(std::uint32_t rank, const std::vector<char>& bytes, int size);
    void sendFarewells(WorkerState state, const std::string& why);
    void closeHub();
    void closeSpoke();
    /// Cancels and frees what await() abandoned.
    void releaseAbandoned();
    /// While waiting: relays, farewells, liveness.
    void lookAround(std::int64_t now);
    void pollRelays();
    void postRelayReceive(std::uint32_t rank);
    void checkPeersAlive();
    void relayIfDue(std::int64_t now, bool last);
    void checkFarewell();
    /// After mpirun's SIGTERM: the ranks that had not answered `requests`.
    void nameSilentRanks(const MPI_Request* requests, int n);
    /// After MPI reported an error on `requests` (a connection broke): the
    /// rank on this host that is gone, else the ranks whose requests failed.
    void nameLostRanks(const MPI_Request* requests, int n);
    /// The same inside one of MPI's collectives, where no request names a
    /// rank: a rank seen gone on this host, else what MPI said (`rc`, or
    /// 0 after mpirun's SIGTERM).
    void nameStalledCollective(int rc, KeepGoing& alive);
    std::string who(std::uint32_t rank) const;
    std::uint64_t stepsSoFar() const;

    Telemetry& t_;
    std::uint32_t rank_, size_;
    std::int64_t capacity_;
    mpi::Greeting greeting_;
    std::size_t dataBytes_; ///< the largest data message: header + capacity floats
    std::int64_t spinNs_;   ///< how long a wait spins before it yields
    bool opened_ = false, closed_ = false, broken_ = false, farewellsSent_ = false;
    std::uint32_t op_ = 0; ///< operations so far (checked against the hub's)
    std::int64_t lastLookNs_ = 0;
    std::vector<MPI_Status> statuses_;
    std::vector<MPI_Request> abandoned_;
    std::vector<MPI_Request> stranded_; ///< collectives a gone peer left pending
    MPI_Comm comm_;                     ///< every message of this collective
    bool viaMpi_;                       ///< reductions through MPI's collectives
    std::vector<const float*> inputs_;

    // Reductions through MPI's collectives (viaMpi_).
    std::vector<int> blockCounts_, blockStarts_;    ///< each rank's block of the current reduction
    std::vector<int> sendCounts_;                   ///< blockCounts_, but none to itself
    std::vector<int> theirCounts_, theirStarts_;    ///< every rank's copy of this rank's block
    std::vector<float> blocks_;                     ///< ... received here, in rank order
    std::vector<float> means_[2];                   ///< alternate results
    std::int64_t voteIn_[3] = {}, voteOut_[3] = {}; ///< vote, op, -op (MPI_MAX of each)

    // Rank 0.
    std::vector<Peer> peers_;                 ///< by rank (0 unused)
    std::vector<std::vector<char>> in_;       ///< by rank: its contribution
    std::vector<char> out_[2];                ///< alternate results
    std::vector<MPI_Request> outRequests_[2]; ///< their sends, one per rank
    std::vector<MPI_Request> requests_;
    std::vector<std::vector<char>> greetings_; ///< by rank, as received

    // Ranks > 0.
    std::vector<char> send_, recv_[2], farewell_, relayOut_, greetingOut_, welcome_;
    MPI_Request farewellRequest_ = MPI_REQUEST_NULL, relayRequest_ = MPI_REQUEST_NULL;
    bool farewellSeen_ = false, agreedPause_ = false;
    std::uint64_t pauseFromStep_ = 0; ///< an agreed pause shows from this step count on
    std::int64_t lastRelayNs_ = 0;
    std::uint64_t relayedSteps_ = ~0ull;
    std::uint32_t relayedState_ = ~0u;
};

} // namespace hwl
