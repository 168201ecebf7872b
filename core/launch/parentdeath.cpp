#include "launch/parentdeath.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <initializer_list>

namespace hwl {

void ignoreGroupSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        ::sigaction(sig, &ignore, nullptr);
}

void tieToParent(pid_t parent, int signal, int code) {
    ::prctl(PR_SET_PDEATHSIG, signal);
    if (::getppid() != parent)
        _exit(code);
}

} // namespace hwl
