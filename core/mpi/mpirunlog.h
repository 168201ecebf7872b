#pragma once
// Reading mpirun's log (Open MPI's words), for the run's failure report.

#include <string>
#include <utility>

namespace hwl {

/// What mpirun said, on one line: what it printed before its first boxed
/// message (other programs' words, such as ssh's) and that message's first
/// two paragraphs (Open MPI puts the cause first; the rest is advice and
/// aborting ranks echoing it), else its last lines. At most about 320
/// characters.
std::string mpirunWords(const std::string& text);

/// Which rank mpirun saw end first and how, as a wait status: Open MPI
/// says "mpirun noticed that process rank 1 with PID 0 on node vm exited
/// on signal 9 (Killed)." for a signal, and "Process name: [[4711,1],2]"
/// then "Exit code: 3" for an exit code. {-1, 0} when it says neither.
std::pair<int, int> firstRankDown(const std::string& text);

} // namespace hwl
