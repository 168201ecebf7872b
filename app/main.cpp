// hogwild-lab: the desktop window by default; the command line with
// --headless, which this program hands to the Qt-free engine executable
// beside it (hogwild-lab-engine, app/engine.cpp) so that a headless run and
// its workers map none of Qt; and the internal worker role for process
// workers (which the engine executable runs when it is there).
#include "cli/headless.h"
#include "run/workerrole.h"
#include "window/guiapp.h"

#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))
        return code;
    for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) // "--" ends the flags
        if (std::strcmp(argv[i], "--headless") == 0 ||
            std::strcmp(argv[i], "--list-presets") == 0 || std::strcmp(argv[i], "--compare") == 0) {
            hwl::execEngineExecutable(argv); // returns only when there is none beside this one
            return hwl::runHeadless(std::vector<std::string>(argv + 1, argv + argc));
        }
    return hwl::ui::runGui(argc, argv);
}
