#include "launch/parentdeath.h"

#include <sys/prctl.h>
#include <unistd.h>

namespace hwl {

void tieToParent(pid_t parent, int signal, int code) {
    ::prctl(PR_SET_PDEATHSIG, signal);
    if (::getppid() != parent)
        _exit(code);
}

} // namespace hwl
