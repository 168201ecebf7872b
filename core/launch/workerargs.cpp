#include "launch/workerargs.h"

#include "util/errors.h"
#include "util/fileio.h"
#include "util/textutil.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

namespace hwl {

std::string selfExecutable() {
    std::string path = executablePath();
    if (path.empty())
        throw RunError(std::string("spawn: cannot find this program through /proc/self/exe: ") +
                       std::strerror(errno));
    return path;
}

std::string engineExecutable() {
    const std::string self = selfExecutable();
    const std::string beside = self.substr(0, self.rfind('/') + 1) + kEngineExecutable;
    return access(beside.c_str(), X_OK) == 0 ? beside : self;
}

std::vector<char*> execArgv(std::vector<std::string>& strings) {
    std::vector<char*> argv;
    for (auto& s : strings)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    return argv;
}

std::vector<std::string> WorkerProcessSpec::toArgs() const {
    std::vector<std::string> args = {kWorkerRoleFlag,
                                     "--telemetry=" + telemetry,
                                     "--parameters=" + parameters,
                                     "--data=" + data,
                                     "--rank=" + std::to_string(rank),
                                     experimentSegment.empty()
                                         ? "--experiment=" + experiment
                                         : "--experiment-segment=" + experimentSegment};
    if (!collective.empty())
        args.push_back("--collective=" + collective);
    return args;
}

WorkerProcessSpec WorkerProcessSpec::parse(const std::vector<std::string>& args) {
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
        else if (key == "--experiment-segment")
            spec.experimentSegment = value;
        else if (key == "--collective")
            spec.collective = value;
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
        (spec.experiment.empty() && spec.experimentSegment.empty()) || !rankSeen)
        throw std::invalid_argument("a worker needs --telemetry, --parameters, --data, --rank "
                                    "and --experiment or --experiment-segment");
    return spec;
}

} // namespace hwl
