// The data-parallel transport over MPI: every replica is an MPI rank, on this
// machine or several. Rank 0 is this process's (a thread of it under mpirun,
// or the worker role of the mpirun this process starts); the other ranks are
// mpirun's, hold their own replicas and relay their telemetry to rank 0.
#include "config/fields.h"
#include "data/fingerprint.h"
#include "mpi/mpicollective.h"
#include "mpi/mpijob.h"
#include "mpi/mpilaunchers.h"
#include "strategy/replicatransport.h"

#include <filesystem>
#include <string_view>

#include <unistd.h>

namespace hwl {

namespace {

/// What an MPI rank says of itself: what must equal rank 0's (every
/// experiment field but the ones only rank 0 uses, the training data, the
/// program's version).
mpi::Greeting greetingOf(const WorkerEnvironment& env) {
    mpi::Greeting g;
    g.pid = std::int32_t(getpid());
    g.host = mpi::job().host;
    for (const Field& f : experimentFields())
        if (std::string_view key = f.key;
            !f.output && key != "init" && key != "hostfile" && key != "mpirun-args")
            g.facts.emplace_back(f.key, f.valueText(env.config));
    g.facts.emplace_back("training data", describeFingerprint(env.train));
    g.facts.emplace_back("hogwild-lab", HWL_VERSION);
    return g;
}

MpirunCommand mpirunCommand(const ExperimentConfig& c) {
    std::string error;
    return {std::uint32_t(c.workers), c.hostfile, splitMpirunArgs(c.mpirunArgs, error)};
}

/// The checks of an experiment on MPI ranks that this app starts mpirun for.
void validate(const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
    std::string error;
    splitMpirunArgs(c.mpirunArgs, error);
    if (!error.empty())
        issues.push_back({"mpirun-args", "mpirun-args \"" + c.mpirunArgs + "\" refused: " + error});
    std::error_code ec;
    if (!c.hostfile.empty() && !std::filesystem::is_regular_file(c.hostfile, ec))
        issues.push_back({"hostfile", "hostfile \"" + c.hostfile + "\" is not a file" +
                                          " (one host per line, e.g. \"node1 slots=4\"; this "
                                          "machine first, where rank 0 runs)"});
}

class MpiTransport final : public ReplicaTransport {
public:
    explicit MpiTransport(const ExperimentConfig& config) : config_(config) {}

    /// Rank 0 only: the other replicas live in mpirun's ranks.
    std::uint32_t localRanks() const override { return 1; }
    std::size_t sharedBytes(const CollectiveSize& /*size*/) const override { return 0; }
    void prepare(RunResources& run, const CollectiveSize& /*size*/) override {
        if (!mpi::joined())
            for (const auto& [arg, why] : automaticMpirunArgs(mpirunCommand(config_)))
                run.notes.push_back("mpirun gets " + arg + ": " + why);
    }
    std::unique_ptr<Launcher> makeLauncher() const override {
        // Under mpirun this process is rank 0; else it starts mpirun.
        return mpi::joined() ? makeMpiRankLauncher() : makeMpirunLauncher(mpirunCommand(config_));
    }
    std::string collectiveName() const override { return kMpiCollective; }
    std::unique_ptr<Collective> makeCollective(const WorkerEnvironment& env, std::uint32_t rank,
                                               std::int64_t capacity) const override {
        return makeMpiCollective(env.telemetry, rank, capacity, greetingOf(env),
                                 env.config.reduce == Reduce::Exact ? MpiReduction::Hub
                                                                    : MpiReduction::Collective);
    }
    /// The ranks are compared by the distance from their mean each measured
    /// after its last step: exactly 0 only when every rank holds the same bits.
    bool othersIdentical(const RunSummary& summary) const override {
        for (const double d : summary.divergence)
            if (d != 0.0)
                return false;
        return true;
    }

private:
    const ExperimentConfig& config_; ///< the owning strategy's
};

} // namespace

TransportEntry mpiTransport() {
    TransportEntry e;
    e.id = Transport::Mpi;
    e.processes = true;
    e.remoteRanks = true;
    if (!mpi::built())
        e.unavailable = mpi::kNotBuiltReason;
    e.make = [](const ExperimentConfig& c) { return std::make_unique<MpiTransport>(c); };
    e.validate = &validate;
    return e;
}

} // namespace hwl
