#include "launch/workerprocess.h"

#include "config/experimentconfig.h"
#include "data/shareddataset.h"
#include "model/model.h"
#include "store/parameterstore.h"
#include "telemetry/telemetry.h"
#include "train/workerloop.h"
#include "util/textutil.h"

#include <csignal>
#include <cstdio>
#include <exception>

#include <sys/prctl.h>
#include <unistd.h>

namespace hwl {

std::vector<std::string> WorkerProcessSpec::toArgs() const {
    return {kWorkerRoleFlag,  "--telemetry=" + telemetry,       "--parameters=" + parameters,
            "--data=" + data, "--rank=" + std::to_string(rank), "--experiment=" + experiment};
}

namespace {
WorkerProcessSpec parseArgs(const std::vector<std::string>& args) {
    WorkerProcessSpec spec;
    bool rankSeen = false;
    for (const auto& arg : args) {
        if (arg == kWorkerRoleFlag)
            continue;
        const auto eq = arg.find('=');
        const std::string key = arg.substr(0, eq),
                          value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        if (key == "--telemetry")
            spec.telemetry = value;
        else if (key == "--parameters")
            spec.parameters = value;
        else if (key == "--data")
            spec.data = value;
        else if (key == "--experiment")
            spec.experiment = value;
        else if (key == "--rank") {
            const auto r = parseInteger(value);
            if (!r || *r < 0)
                throw std::invalid_argument("bad --rank " + value);
            spec.rank = std::uint32_t(*r);
            rankSeen = true;
        } else
            throw std::invalid_argument("unknown worker argument " + key);
    }
    if (spec.telemetry.empty() || spec.parameters.empty() || spec.data.empty() ||
        spec.experiment.empty() || !rankSeen)
        throw std::invalid_argument("a worker needs --telemetry, --parameters, --data, --rank "
                                    "and --experiment");
    return spec;
}
} // namespace

int workerProcessMain(const std::vector<std::string>& args) {
    // Ctrl-C reaches the whole process group; the parent decides what it means.
    std::signal(SIGINT, SIG_IGN);
    WorkerProcessSpec spec;
    try {
        spec = parseArgs(args);
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
        ExperimentConfig config;
        config.mergeJson(spec.experiment, "worker experiment");
        const auto model = makeModel(config.modelSpec());
        ParameterStore params = ParameterStore::open(spec.parameters, model->layout().total());
        const SharedDataset data = SharedDataset::open(spec.data);
        WorkerPlan plan = makeWorkerPlan(config, *model, params.data(), data.view(), telemetry);
        plan.rank = spec.rank;
        runWorker(plan);
    } catch (const std::exception& e) {
        telemetry.failWorker(spec.rank, "worker " + std::to_string(spec.rank) + " (pid " +
                                            std::to_string(getpid()) +
                                            ") could not start: " + e.what());
    }
    return telemetry.worker(spec.rank).state.load() == std::uint32_t(WorkerState::Failed) ? 1 : 0;
}

bool runWorkerRoleIfRequested(int argc, char** argv, int& exitCode) {
    if (argc < 2 || std::string(argv[1]) != kWorkerRoleFlag)
        return false;
    exitCode = workerProcessMain(std::vector<std::string>(argv + 1, argv + argc));
    return true;
}

} // namespace hwl
