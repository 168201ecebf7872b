// hogwild-lab-engine: the engine without Qt (heaptrack_print beside
// heaptrack_gui). It runs the headless command line (with or without
// --headless: the flags of `hogwild-lab --headless`), and every process the
// engine starts from a program: spawn and fork-server workers, MPI ranks, the
// GPU modes' device process and the device probe. A cluster node or a GPU
// machine without Qt or X runs every headless mode with it, and a spawn
// worker maps only the engine's libraries. `hogwild-lab --headless` execs it.
#include "cli/headless.h"
#include "run/workerrole.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))
        return code;
    return hwl::runHeadless(std::vector<std::string>(argv + 1, argv + argc));
}
