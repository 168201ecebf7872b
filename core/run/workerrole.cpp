#include "run/workerrole.h"

#include "backend/backend.h"
#include "config/experimentconfig.h"
#include "data/shareddataset.h"
#include "launch/devices.h"
#include "launch/forkserver.h"
#include "launch/parentdeath.h"
#include "launch/workerargs.h"
#include "model/model.h"
#include "mpi/mpilaunchers.h"
#include "run/mpirank.h"
#include "run/runimpl.h"
#include "store/parameterstore.h"
#include "store/sharedsegment.h"
#include "strategy/hostparts.h"
#include "strategy/registry.h"
#include "telemetry/telemetry.h"
#include "util/errors.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>

#include <unistd.h>

namespace hwl {

namespace {
std::mutex gForkServerMutex;
std::shared_ptr<ForkServer> gForkServer;
pid_t gForkServerOwner = 0; // a forked child of the owner must not use it
// A forked child's copy of its parent's server, never destroyed: that would
// close and kill the parent's server.
std::shared_ptr<ForkServer>* gInheritedForkServer = nullptr;

/// The experiment's JSON: from the run's segment, or the command line (MPI).
std::string experimentOf(const WorkerProcessSpec& spec) {
    if (spec.experimentSegment.empty())
        return spec.experiment;
    const SharedSegment segment = SharedSegment::open(spec.experimentSegment);
    std::uint64_t n = 0;
    if (segment.size() >= sizeof n)
        std::memcpy(&n, segment.data(), sizeof n);
    if (n > segment.size() - sizeof n)
        throw RunError("the experiment segment " + spec.experimentSegment + " is corrupt");
    return std::string(static_cast<const char*>(segment.data()) + sizeof n, n);
}

/// The parameters the worker is to train. Under --spawn-before-share no
/// segment holds them: the open fails, and the message says why and the fix.
ParameterStore openParameters(const WorkerProcessSpec& spec, const ExperimentConfig& config,
                              std::int64_t count) {
    try {
        return ParameterStore::open(spec.parameters, count, storeExtras(config));
    } catch (const RunError& e) {
        if (!config.spawnBeforeShare)
            throw;
        throw RunError(std::string(e.what()) +
                       ": the parameters were never put in shared memory before this worker "
                       "started (the pitfall --spawn-before-share: PyTorch's \"Unable to open "
                       "shared memory\"); share the parameters before starting workers: drop "
                       "--spawn-before-share, or untick the pitfall in the window");
    }
}

/// Rebuilds the worker's run from the spec and trains. Throws what setting
/// up throws (the caller reports it through the telemetry).
void trainFromSpec(const WorkerProcessSpec& spec, Telemetry& telemetry) {
    ExperimentConfig config;
    config.mergeJson(experimentOf(spec), "worker experiment");
    const auto model = makeModel(config.modelSpec());
    ParameterStore params = openParameters(spec, config, model->layout().total());
    const SharedDataset data = SharedDataset::open(spec.data);
    const auto strategy = createStrategy(config);
    const WorkerEnvironment env{config,
                                *model,
                                strategy->backend(BackendRole::Worker),
                                telemetry,
                                data.view(),
                                params.data(),
                                spec.collective,
                                params.versions(),
                                nullptr,
                                sharedStateOf(params)};
    strategy->trainWorker(env, spec.rank);
}
void trainOrReport(const WorkerProcessSpec& spec, Telemetry& telemetry) {
    try {
        trainFromSpec(spec, telemetry);
    } catch (const std::exception& e) {
        telemetry.failWorker(spec.rank, "worker " + std::to_string(spec.rank) + " (pid " +
                                            std::to_string(getpid()) +
                                            ") could not start: " + e.what());
    }
}

int mpiPeer(const WorkerProcessSpec& spec, const MpiRank& me);
int mpiRank0(const WorkerProcessSpec& spec, const MpiRank& me);

/// A rank of the job mpirun started for this machine's run: rank 0 maps the
/// run (it must be on this machine), the others train as peers.
int mpiRankMain(const WorkerProcessSpec& spec) {
    MpiRank me;
    try {
        me = joinMpiJob();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hogwild-lab rank: %s\n", e.what());
        return 2;
    }
    const int code = me.rank == 0 ? mpiRank0(spec, me) : mpiPeer(spec, me);
    leaveMpiJob(code == 0);
    return code;
}

int mpiPeer(const WorkerProcessSpec& spec, const MpiRank& me) {
    ExperimentConfig config;
    try {
        config.mergeJson(spec.experiment, "rank experiment");
        return runMpiPeer(config);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hogwild-lab rank %u on %s: error: %s\n", me.rank, me.host.c_str(),
                     e.what());
        return 2;
    }
}

int mpiRank0(const WorkerProcessSpec& spec, const MpiRank& me) {
    Telemetry telemetry;
    try {
        telemetry = Telemetry::open(spec.telemetry);
    } catch (const std::exception&) {
        std::fprintf(stderr,
                     "hogwild-lab rank 0 runs on %s, which is not the machine of the run that "
                     "started mpirun: list that machine first in the hostfile (mpirun puts rank "
                     "0 on the first host)\n",
                     me.host.c_str());
        return 2;
    }
    trainOrReport(spec, telemetry);
    return workerExitCode(telemetry, 0);
}

} // namespace

int workerProcessMain(const std::vector<std::string>& args) {
    // Ctrl-C, timeout's SIGTERM and SIGHUP reach the whole process group;
    // the parent decides what they mean. When the parent dies (even by
    // SIGKILL), the worker unlinks the run's segments and ends.
    ignoreGroupSignals();
    onParentDeathUnlinkSegments();
    WorkerProcessSpec spec;
    try {
        spec = WorkerProcessSpec::parse(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hogwild-lab worker: %s (this role is internal: the app starts it)\n",
                     e.what());
        return 2;
    }
    if (spec.collective == kMpiCollective)
        return mpiRankMain(spec);
    // Telemetry first, so that any later failure can be reported through it.
    Telemetry telemetry;
    try {
        telemetry = Telemetry::open(spec.telemetry);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hogwild-lab worker %u: %s\n", spec.rank, e.what());
        return 1;
    }
    if (spec.rank >= telemetry.workerCount()) {
        std::fprintf(stderr, "hogwild-lab worker: rank %u out of range\n", spec.rank);
        return 2;
    }
    trainOrReport(spec, telemetry);
    return workerExitCode(telemetry, spec.rank);
}

void execEngineExecutable(char** argv) {
    std::string engine, self;
    try {
        engine = engineExecutable();
        self = selfExecutable();
    } catch (const std::exception&) {
        return;
    }
    if (engine == self)
        return;
    argv[0] = engine.data();
    execv(engine.c_str(), argv); // returns only when it failed: run here instead
}

bool runWorkerRoleIfRequested(int argc, char** argv, int& exitCode) {
    if (runDeviceProbeIfRequested(argc, argv, exitCode))
        return true;
    if (argc < 2 || std::string(argv[1]) != kWorkerRoleFlag)
        return false;
    exitCode = workerProcessMain(std::vector<std::string>(argv + 1, argv + argc));
    return true;
}

std::string startForkServer() {
    std::lock_guard lock(gForkServerMutex);
    if (gForkServer && gForkServerOwner == getpid())
        return {};
    if (gForkServer)
        gInheritedForkServer = new std::shared_ptr<ForkServer>(std::move(gForkServer));
    try {
        gForkServer = ForkServer::start(&workerProcessMain);
        gForkServerOwner = getpid();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::shared_ptr<ForkServer> processForkServer() {
    std::lock_guard lock(gForkServerMutex);
    // A process forked from the one that started it would share its socket:
    // its workers would be the other process's, and not die with this one.
    return gForkServerOwner == getpid() ? gForkServer : nullptr;
}

} // namespace hwl
