#pragma once
// How a worker process ended, in words, from its waitpid() status.
#include <string>

namespace hwl {

/// "killed by SIGKILL", "exited with status 3", "could not execute the
/// worker program (exit status 127)", ...
std::string describeWaitStatus(int status);

} // namespace hwl
