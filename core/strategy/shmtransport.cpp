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

/// What one machine's transports refuse: the options of the transport that
/// starts its ranks through mpirun.
void refuseMpirunOptions(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    for (const auto& [key, value] :
         {std::pair{"hostfile", &c.hostfile}, std::pair{"mpirun-args", &c.mpirunArgs}})
        if (!value->empty())
            issues.push_back({key, std::string(key) + " applies to --transport mpi only"});
    if (c.reduce != ExperimentConfig{}.reduce)
        issues.push_back({"reduce", "reduce applies to --transport mpi only (threads and "
                                    "processes always average in rank order, in double, "
                                    "as both MPI reductions do)"});
}

} // namespace

TransportEntry sharedMemoryTransport(Transport id) {
    TransportEntry e;
    e.id = id;
    e.processes = id == Transport::Processes;
    e.startMethod = e.processes;
    e.make = [](const ExperimentConfig& c) { return std::make_unique<SharedMemoryTransport>(c); };
    e.validate = &refuseMpirunOptions;
    return e;
}

} // namespace hwl
