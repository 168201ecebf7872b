#pragma once
// ReplicaTransport: how the data-parallel mode's replicas reach each other,
// a part the mode owns (made from the experiment's `transport`). It brings
// where the replicas run and how they start (its launcher), how many of them
// this process holds, the collective they average through, and its notes:
//   threads    replicas are threads of the run's process, over one
//              shared-memory collective (ShmCollective);
//   processes  worker processes started by the start method, over the same
//              shared-memory collective;
//   mpi        MPI ranks, on this machine or several (strategy/mpitransport.cpp,
//              over mpi/, the one folder that talks MPI): rank 0 is this
//              process's, the others mpirun's.
//
// The transports are listed by the value of `transport` they stand for
// (TransportEntry): their traits, which the catalog's queries read
// (workersAreProcesses(), usesStartMethod(), transportUnavailable()), their
// checks of an experiment, and the factory. registerTransport() puts another
// implementation in the place of one (a test plugs its own).
//
// Threading: a transport belongs to its strategy; makeCollective() may run on
// several worker threads at once and must not change the object. The table
// is thread-safe.
#include "collective/collective.h"
#include "strategy/registry.h"
#include "strategy/strategy.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace hwl {

/// What the collective of a run must hold, per rank, in floats.
struct CollectiveSize {
    std::int64_t capacity = 4096; ///< the largest operation (a bucket)
    std::int64_t gradients = 0;   ///< the dense gradient area (0: none)
};

class ReplicaTransport {
public:
    virtual ~ReplicaTransport() = default;
    /// How many replicas this process holds and launches: ranks 0 .. n-1
    /// (the others start and train elsewhere, their telemetry relayed).
    virtual std::uint32_t localRanks() const = 0;
    /// The bytes it needs in /dev/shm beyond the parameter stores (for the
    /// check made before anything is allocated).
    virtual std::size_t sharedBytes(const CollectiveSize& size) const = 0;
    /// Creates what the replicas talk through; the notes it has for the
    /// user go to run.notes.
    virtual void prepare(RunResources& run, const CollectiveSize& size) = 0;
    /// How the workers start; null: the run starts threads, or processes by
    /// the start method, as the traits say.
    virtual std::unique_ptr<Launcher> makeLauncher() const = 0;
    /// What a worker is told to open (WorkerEnvironment::collective).
    virtual std::string collectiveName() const = 0;
    /// Rank `rank`'s collective, in the process that trains it, for
    /// operations of at most `capacity` floats.
    virtual std::unique_ptr<Collective> makeCollective(const WorkerEnvironment& env,
                                                       std::uint32_t rank,
                                                       std::int64_t capacity) const = 0;
    /// Whether the replicas this process does not hold ended as one model
    /// (what their final divergence says); true when it holds them all.
    virtual bool othersIdentical(const RunSummary& /*summary*/) const { return true; }
    /// Removes the names of what prepare() made (the mappings stay valid).
    virtual void finish() {}
};

/// A transport as the catalog lists it: the value of `transport` it stands
/// for, its traits, its checks and its factory.
struct TransportEntry {
    Transport id = Transport::Threads;
    bool processes = false;   ///< replicas are processes (else threads of the run's process)
    bool startMethod = false; ///< this app starts them by the start method
    /// Ranks beyond 0 run in a job of their own, each on telemetry of its
    /// own relayed to rank 0 (a paused run cannot take single steps).
    bool remoteRanks = false;
    /// Non-empty: this build cannot use it, and why ("not built: ...").
    std::string unavailable;
    std::function<std::unique_ptr<ReplicaTransport>(const ExperimentConfig&)> make;
    /// Its checks of an experiment that picks it (after the mode's own);
    /// may be empty.
    StrategyValidator validate;
};

/// The entry of transport `id`: the built-in one, or the one registered
/// last in its place. std::logic_error when there is none.
TransportEntry transportEntry(Transport id);
/// Puts `entry` in the place of the transport of its id, for every run made
/// after (a test plugs its own; it puts the old entry back when done).
void registerTransport(TransportEntry entry);
/// The transport the experiment's `transport` names, made for it.
std::unique_ptr<ReplicaTransport> makeTransport(const ExperimentConfig& config);

/// The built-in transports, each defined with its implementation:
/// threads and processes over shared memory (strategy/shmtransport.cpp)...
TransportEntry sharedMemoryTransport(Transport id);
/// ...and MPI ranks (strategy/mpitransport.cpp, over mpi/).
TransportEntry mpiTransport();

} // namespace hwl
