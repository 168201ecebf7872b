// The data-parallel transports of one machine: the replicas are threads of
// the run's process (threads) or worker processes started by the start
// method (processes), and talk through one shared-memory collective.
#include "collective/shmcollective.h"
#include "strategy/replicatransport.h"

#include <utility>

namespace hwl {

namespace {

class SharedMemoryTransport final : public ReplicaTransport {
public:
    explicit SharedMemoryTransport(const ExperimentConfig& config)
        : ranks_(std::uint32_t(config.workers)) {}

    std::uint32_t localRanks() const override { return ranks_; }
    std::size_t sharedBytes(const CollectiveSize& size) const override {
        return ShmCollective::bytesFor(ranks_, size.capacity, size.gradients);
    }
    void prepare(RunResources& /*run*/, const CollectiveSize& size) override {
        collective_ = ShmCollective::create(ranks_, size.capacity, size.gradients);
    }
    std::unique_ptr<Launcher> makeLauncher() const override { return nullptr; }
    std::string collectiveName() const override { return collective_.name(); }
    std::unique_ptr<Collective> makeCollective(const WorkerEnvironment& env, std::uint32_t rank,
                                               std::int64_t /*capacity*/) const override {
        return std::make_unique<ShmCollective>(env.collective, rank);
    }
    void finish() override { collective_.unlink(); }

private:
    std::uint32_t ranks_;
    SharedSegment collective_;
};

} // namespace

TransportEntry sharedMemoryTransport(Transport id) {
    TransportEntry e;
    e.id = id;
    e.processes = id == Transport::Processes;
    e.startMethod = e.processes;
    e.make = [](const ExperimentConfig& c) { return std::make_unique<SharedMemoryTransport>(c); };
    // mpirun's options (hostfile, mpirun-args, reduce) are the field
    // table's: they need --transport mpi (Field::needs).
    return e;
}

} // namespace hwl
