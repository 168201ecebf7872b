#include "run/workerrole.h"

#include "backend/backend.h"
#include "config/experimentconfig.h"
#include "data/shareddataset.h"
#include "launch/forkserver.h"
#include "launch/workerargs.h"
#include "model/model.h"
#include "run/runimpl.h"
#include "store/parameterstore.h"
#include "strategy/registry.h"
#include "telemetry/telemetry.h"

#include <csignal>
#include <cstdio>
#include <exception>
#include <mutex>

#include <unistd.h>

namespace hwl {

namespace {
std::mutex gForkServerMutex;
std::shared_ptr<ForkServer> gForkServer;

/// Rebuilds the worker's run from the spec and trains. Throws what setting
/// up throws (the caller reports it through the telemetry).
void trainFromSpec(const WorkerProcessSpec& spec, Telemetry& telemetry) {
    ExperimentConfig config;
    config.mergeJson(spec.experiment, "worker experiment");
    const auto model = makeModel(config.modelSpec());
    ParameterStore params = ParameterStore::open(spec.parameters, model->layout().total());
    const SharedDataset data = SharedDataset::open(spec.data);
    const auto strategy = createStrategy(config);
    const WorkerEnvironment env{config,      *model,        cpuBackend(),   telemetry,
                                data.view(), params.data(), spec.collective};
    WorkerSetup setup = strategy->setupWorker(env, spec.rank);
    runWorker(setup);
}
} // namespace

int workerProcessMain(const std::vector<std::string>& args) {
    // Ctrl-C reaches the whole process group; the parent decides what it means.
    std::signal(SIGINT, SIG_IGN);
    WorkerProcessSpec spec;
    try {
        spec = WorkerProcessSpec::parse(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hogwild-lab worker: %s (this role is internal: the app starts it)\n",
                     e.what());
        return 2;
    }
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
    try {
        trainFromSpec(spec, telemetry);
    } catch (const std::exception& e) {
        telemetry.failWorker(spec.rank, "worker " + std::to_string(spec.rank) + " (pid " +
                                            std::to_string(getpid()) +
                                            ") could not start: " + e.what());
    }
    return workerExitCode(telemetry, spec.rank);
}

bool runWorkerRoleIfRequested(int argc, char** argv, int& exitCode) {
    if (argc < 2 || std::string(argv[1]) != kWorkerRoleFlag)
        return false;
    exitCode = workerProcessMain(std::vector<std::string>(argv + 1, argv + argc));
    return true;
}

std::string startForkServer() {
    std::lock_guard lock(gForkServerMutex);
    if (gForkServer)
        return {};
    try {
        gForkServer = ForkServer::start(&workerProcessMain);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::shared_ptr<ForkServer> processForkServer() {
    std::lock_guard lock(gForkServerMutex);
    return gForkServer;
}

} // namespace hwl
