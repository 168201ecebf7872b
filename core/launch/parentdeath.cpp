#include "launch/parentdeath.h"

#include "store/sharedsegment.h"
#include "util/errors.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <initializer_list>

namespace hwl {

void ignoreGroupSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        ::sigaction(sig, &ignore, nullptr);
}

namespace {

volatile sig_atomic_t gParent = 0;

void parentDied(int) {
    if (::getppid() == pid_t(gParent))
        return; // not from the kernel: the parent lives
    SharedSegment::unlinkAllNow();
    _exit(1);
}

} // namespace

void onParentDeathUnlinkSegments() {
    gParent = ::getppid();
    struct sigaction act {};
    act.sa_handler = parentDied;
    sigemptyset(&act.sa_mask);
    ::sigaction(kParentDeathSignal, &act, nullptr);
}

void tieToParent(pid_t parent, int signal, int code) {
    ::prctl(PR_SET_PDEATHSIG, signal);
    if (::getppid() != parent)
        _exit(code);
}

pid_t forkTiedChild(int deathSignal) {
    const pid_t parent = ::getpid();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw RunError("fork failed: " + startFailureText(errno));
    if (pid == 0)
        tieToParent(parent, deathSignal);
    return pid;
}

} // namespace hwl
