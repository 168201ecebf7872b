// The ranks beyond 0 of a data-parallel run over MPI, and the public face of
// the MPI job (run/mpirank.h).
#include "run/mpirank.h"

#include "backend/backend.h"
#include "launch/workerargs.h"
#include "model/model.h"
#include "mpi/launcherenv.h"
#include "mpi/mpicollective.h"
#include "mpi/mpijob.h"
#include "mpi/mpilaunchers.h"
#include "run/run.h"
#include "run/trainingdata.h"
#include "strategy/registry.h"
#include "strategy/validation.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"
#include "train/workerloop.h"
#include "util/alignedvector.h"
#include "util/errors.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <unistd.h>

namespace hwl {

namespace {

/// What a peer builds before it can train; any throw is its start error.
struct PeerRun {
    DatasetSplit data;
    std::unique_ptr<Model> model;
    std::unique_ptr<Strategy> strategy;
    AlignedVector<float> params;
};

std::unique_ptr<PeerRun> preparePeer(const ExperimentConfig& config) {
    auto p = std::make_unique<PeerRun>();
    Normalization normalization; // the same on every rank: the same training rows
    p->data = loadTrainingData(config, normalization);
    p->model = makeModel(config.modelSpec());
    checkModelFits(*p->model, p->data, config);
    p->strategy = createStrategy(config);
    // Filled by rank 0's broadcast before the first step.
    p->params.assign(std::size_t(p->model->layout().total()), 0.0f);
    return p;
}

/// Tells rank 0 why this rank cannot train; true when rank 0 heard it.
bool tellRank0(Telemetry& telemetry, std::uint32_t rank, const std::string& why) {
    mpi::Greeting g;
    g.pid = std::int32_t(getpid());
    g.host = mpi::job().host;
    g.error = why;
    auto collective = makeMpiCollective(telemetry, rank, 4096, std::move(g));
    KeepGoing alive(telemetry, rank, /*watchPeers=*/true);
    collective->open(alive); // ends with rank 0's farewell
    collective->close();
    return hasLeftLoop(loadState(telemetry.worker(0).state));
}

} // namespace

bool startedByMpirun() {
    return mpi::startedByMpirun();
}

bool startedAsRank(const ExperimentConfig& config) {
    return startedByMpirun() ||
           (config.transport == Transport::Mpi && mpi::launcherRank(mpi::processEnvironment()));
}

int mpirunRankFromEnvironment() {
    try {
        const auto launcher = mpi::launcherRank(mpi::processEnvironment());
        return launcher ? int(launcher->rank) : -1;
    } catch (const InputError&) { // said when the rank is taken
        return -1;
    }
}

MpiRank joinMpiJob() {
    const mpi::JobInfo& job = mpi::join();
    return {job.rank, job.size, job.host};
}

bool inMpiJob() {
    return mpi::joined();
}

int mpiEndingSignal() {
    return mpi::endingSignal();
}

void leaveMpiJob(bool clean) {
    mpi::leave(clean);
}

int runMpiPeer(const ExperimentConfig& config) {
    const std::int64_t launchNs = Telemetry::nowNs();
    const mpi::JobInfo& job = mpi::job();
    validateExperimentOrThrow(config); // rank 0 reports the same problems
    // This rank's own telemetry: rank 0 relays it into the run's.
    Telemetry telemetry = Telemetry::create(job.size, std::uint32_t(config.epochs));
    telemetry.unlink();
    telemetry.header().startNs = launchNs;
    telemetry.header().epochGate = 0; // rank 0's collective holds this rank at epoch ends
    // Where this rank's time goes, relayed to rank 0 for its --trace (rank 0
    // keeps the slices only when it traces, in slices of this length): the
    // step's clock read is the telemetry's, the slices three additions.
    telemetry.header().traceSliceNs = Run::kTraceSliceNs;
    telemetry.worker(job.rank).launchNs.store(launchNs);
    mpi::watchCommand(&telemetry.header().command);
    struct Unwatch {
        Telemetry& t;
        ~Unwatch() { mpi::unwatchCommand(&t.header().command); }
    } unwatch{telemetry};
    std::unique_ptr<PeerRun> peer;
    std::string error;
    try {
        peer = preparePeer(config);
        const WorkerEnvironment env{config,
                                    *peer->model,
                                    peer->strategy->backend(BackendRole::Worker),
                                    telemetry,
                                    peer->data.train.view(),
                                    peer->params.data(),
                                    kMpiCollective};
        WorkerSetup setup = peer->strategy->setupWorker(env, job.rank);
        runWorker(setup); // its failures travel to rank 0 in its relays
        return 0;
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (tellRank0(telemetry, job.rank, error))
        return 0;
    std::fprintf(stderr, "hogwild-lab rank %u on %s: error: %s\n", job.rank, job.host.c_str(),
                 error.c_str());
    return 2;
}

namespace {

/// The ranks are mpirun's: options that would name others are refused.
void takeMpirunRanks(ExperimentConfig& config, bool workersGiven, std::uint32_t size) {
    if (workersGiven && config.workers != int(size))
        throw InputError("workers: --workers " + std::to_string(config.workers) +
                         " but mpirun started " + std::to_string(size) + " ranks (-np " +
                         std::to_string(size) +
                         "); under mpirun the ranks are mpirun's: drop --workers, or make the "
                         "two equal");
    for (const auto& [key, value] :
         {std::pair{"hostfile", &config.hostfile}, std::pair{"mpirun-args", &config.mpirunArgs}})
        if (!value->empty())
            throw InputError(std::string(key) +
                             ": this process was started by mpirun: give mpirun its options "
                             "itself (--" +
                             key + " is for runs that hogwild-lab starts mpirun for)");
    config.workers = int(size);
}

/// torchrun's and srun's processes are not always one MPI job: each may
/// have made a job of its own (MPI_Init without an MPI launcher), which
/// the launcher's rank and size, read before joining, give away.
void checkLauncherAgrees(const std::optional<mpi::LauncherRank>& launcher, const MpiRank& me) {
    if (launcher && launcher->size && (*launcher->size != me.size || launcher->rank != me.rank))
        throw InputError("transport: " + launcher->variables + " (" + launcher->launcher +
                         "), but MPI made this process rank " + std::to_string(me.rank) + " of " +
                         std::to_string(me.size) +
                         ": the launcher's processes are "
                         "not one MPI job; start the ranks with mpirun or mpiexec (or srun "
                         "--mpi=pmix)");
}

} // namespace

int runMpiRank(ExperimentConfig& config, bool workersGiven, const std::function<int()>& rankZero) {
    if (config.transport != Transport::Mpi)
        throw InputError("transport: this process was started by mpirun, but the experiment "
                         "does not use it: add --mode data-parallel --transport mpi (or run "
                         "hogwild-lab without mpirun)");
    // Read before joining: MPI_Init without a launcher sets Open MPI's own.
    const auto launcher = mpi::launcherRank(mpi::processEnvironment());
    const MpiRank me = joinMpiJob();
    int code = 2;
    try {
        checkLauncherAgrees(launcher, me);
        takeMpirunRanks(config, workersGiven, me.size);
        code = me.rank == 0 ? rankZero() : runMpiPeer(config);
    } catch (...) {
        leaveMpiJob(false);
        throw;
    }
    leaveMpiJob(code == 0);
    return code;
}

} // namespace hwl
