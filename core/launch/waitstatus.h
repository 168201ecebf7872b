#pragma once
// A waitpid() status in words, for messages about processes that ended.
#include <string>

namespace hwl {

/// How a process ended, from its waitpid() status: "killed by SIGKILL"
/// ("killed by signal 64" for a signal without an abbreviation), "exited
/// with status 3", "could not execute the worker program (exit status 127)"
/// (127 is what a child exits with when its exec fails), or "ended (status N)"
/// for anything else.
std::string describeWaitStatus(int status);

} // namespace hwl
