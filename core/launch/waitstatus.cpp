#include "launch/waitstatus.h"

#include <cstring>

#include <sys/wait.h>

namespace hwl {

std::string describeWaitStatus(int status) {
    if (WIFSIGNALED(status)) {
        const char* abbrev = sigabbrev_np(WTERMSIG(status));
        return std::string("killed by ") + (abbrev ? "SIG" + std::string(abbrev)
                                                   : "signal " + std::to_string(WTERMSIG(status)));
    }
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 127)
            return "could not execute the worker program (exit status 127)";
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "ended (status " + std::to_string(status) + ")";
}

} // namespace hwl
