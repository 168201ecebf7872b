#pragma once
// Children that must not outlive the process that started them (worker
// processes, the fork server, mpirun).
#include <sys/types.h>

namespace hwl {

/// Called in a child just forked from `parent`: the kernel sends it
/// `signal` when the parent thread that forked it ends, and it _exit()s with
/// `code` at once when the parent is already gone (before the request took
/// effect). Async-signal-safe.
void tieToParent(pid_t parent, int signal, int code = 1);

} // namespace hwl
