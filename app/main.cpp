// hogwild-lab: the desktop window by default, the command line with
// --headless, and the internal worker role for process workers.
#include "cli/headless.h"
#include "guiapp.h"
#include "run/workerrole.h"

#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    // Process workers started by spawn or the fork server re-enter here.
    if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))
        return code;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--headless") == 0 || std::strcmp(argv[i], "--list-presets") == 0)
            return hwl::runHeadless(std::vector<std::string>(argv + 1, argv + argc));
    return hwl::ui::runGui(argc, argv);
}
