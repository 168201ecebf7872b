#pragma once
// Children that must not outlive the process that started them (worker
// processes, the fork server, mpirun).
#include <csignal>

#include <sys/types.h>

namespace hwl {

/// The signal a worker process gets when its parent (the run, or the fork
/// server) dies: caught by onParentDeathUnlinkSegments()'s handler.
constexpr int kParentDeathSignal = SIGUSR2;

/// Called in a child just forked from `parent`: the kernel sends it
/// `signal` when the parent thread that forked it ends, and it _exit()s with
/// `code` at once when the parent is already gone (before the request took
/// effect). Async-signal-safe.
void tieToParent(pid_t parent, int signal, int code = 1);

/// fork() for a child that must not outlive this process: stdio is flushed
/// first (nothing buffered is printed twice), and the child is tied to this
/// process with `deathSignal`. Returns fork()'s value (0 in the child);
/// RunError when fork fails.
pid_t forkTiedChild(int deathSignal);

/// Signals sent to the whole process group (Ctrl-C's SIGINT, timeout's
/// SIGTERM, a closed terminal's SIGHUP) and SIGPIPE are the parent's to act
/// on: it stops the run in order. The run's children (workers, the fork
/// server) ignore them; they die with the parent or when it kills them.
void ignoreGroupSignals();

/// In a worker process tied to its parent with kParentDeathSignal: when
/// that signal comes and the parent is really gone (getppid() changed), the
/// names of the run's shared-memory segments are unlinked and the worker
/// _exit()s, so that /dev/shm holds nothing of a run killed with SIGKILL
/// once its last process is gone. The signal from anyone else while the
/// parent lives is ignored.
void onParentDeathUnlinkSegments();

} // namespace hwl
