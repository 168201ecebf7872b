// hogwild-lab: the app's entry point. Until the desktop window lands it runs
// the headless engine for every invocation (--headless is accepted).
#include "headless.h"
#include "workerprocess.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    // Process workers started by spawn or the fork server re-enter here.
    if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))
        return code;
    return hwl::runHeadless(std::vector<std::string>(argv + 1, argv + argc));
}
