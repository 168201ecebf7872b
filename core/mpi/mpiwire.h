#pragma once
// What MPI ranks say to each other besides the collectives' data, as bytes:
// plain C++ (no MPI), so it is tested without mpirun.
//
//   Greeting (every rank > 0 to rank 0, once): its pid and host, the error
//            that kept it from starting (if any), and the facts that must
//            be the same on every rank (the experiment's fields, the
//            training data's fingerprint);
//   Welcome  (rank 0 to each, once): rank 0's clock and run start, so every
//            rank's telemetry times count from the same moment;
//   Farewell (rank 0 to each): rank 0 left without the others agreeing (a
//            rank died, the run was stopped at the epoch gate, ...);
//   Relay    (every rank > 0 to rank 0, a few times a second and when it
//            leaves): its status block and the samples since the last one,
//            which rank 0 writes into its own telemetry as that worker's.
// Readers check every length: a malformed message throws std::runtime_error.
#include "telemetry/telemetry.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hwl::mpi {

/// Message tags.
enum Tag : int { kGreeting = 11, kWelcome = 12, kFarewell = 13, kRelay = 14, kData = 15 };

/// The longest greeting, farewell or relay (a full sample ring and a status).
constexpr std::size_t kMaxGreetingBytes = 64 * 1024;
constexpr std::size_t kMaxFarewellBytes = 1024;
std::size_t maxRelayBytes();

using Facts = std::vector<std::pair<std::string, std::string>>;

struct Greeting {
    std::int32_t pid = 0;
    std::string host;
    std::string error; ///< non-empty: this rank could not start, and why
    Facts facts;       ///< name, value: what must equal rank 0's
};
std::vector<char> encode(const Greeting& g);
Greeting decodeGreeting(const char* data, std::size_t size);

/// The first fact whose value differs, or whose name is missing, as
/// "model: mlp:784-64-10 here, mlp:784-128-10 on rank 0"; empty when equal.
std::string factDifference(const Facts& mine, const Facts& rank0);

struct Welcome {
    std::int64_t rootNowNs = 0;   ///< rank 0's monotonic clock when it sent this
    std::int64_t rootStartNs = 0; ///< rank 0's run start (TelemetryHeader::startNs)
};
std::vector<char> encode(const Welcome& w);
Welcome decodeWelcome(const char* data, std::size_t size);

struct Farewell {
    WorkerState state = WorkerState::Stopped; ///< rank 0's
    std::string why;
    /// A rank died: MPI_Finalize would wait for it (mpi::markPeerLost()).
    bool peerLost = false;
};
std::vector<char> encode(const Farewell& f);
Farewell decodeFarewell(const char* data, std::size_t size);

/// A relay of worker `status` (at most a ring's worth of samples drained
/// from its ring), its times relative to `startNs`; `shown` is the state to
/// report (Paused while the rank waits out an agreed pause); with the
/// --trace slices drained from its ring, `sliceNs` long (0: none).
std::vector<char> encodeRelay(WorkerStatus& status, std::int64_t startNs, WorkerState shown,
                              std::int64_t sliceNs = 0);
/// Writes a relay into worker `rank` of `telemetry` (times back on its
/// clock; samples into its ring). Returns the relayed state. A Failed state
/// records the relayed failure text.
WorkerState applyRelay(const char* data, std::size_t size, Telemetry& telemetry,
                       std::uint32_t rank);

} // namespace hwl::mpi
