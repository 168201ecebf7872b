// What the MPI job needs with or without MPI: whether mpirun started this
// process, and the handler that notes mpirun ending the job.
#include "mpi/mpijob.h"

#include "mpi/launcherenv.h"

#include "telemetry/telemetry.h"

#include <csignal>
#include <cstdlib>
#include <ctime>

namespace hwl::mpi {

namespace {
std::atomic<std::atomic<std::uint32_t>*> gCommand{nullptr};
std::atomic<std::int64_t> gEndingSince{0};
std::atomic<int> gEndingSignal{0};
static_assert(std::atomic<std::int64_t>::is_always_lock_free);

void onEnding(int signo) {
    // Async-signal-safe only: lock-free atomics, clock_gettime, futex.
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    std::int64_t expected = 0;
    gEndingSince.compare_exchange_strong(expected,
                                         std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
    gEndingSignal.store(signo);
    if (auto* command = gCommand.load()) {
        command->store(std::uint32_t(RunCommand::Stop), std::memory_order_release);
        futexWakeAll(*command);
    }
}
} // namespace

bool startedByMpirun() {
    // Open MPI's or MPICH's launcher sets its variables in every rank's environment.
    return launcherRank(processEnvironment(), /*mpiLaunchersOnly=*/true).has_value();
}

void watchCommand(std::atomic<std::uint32_t>* command) {
    gCommand.store(command);
}

void unwatchCommand(std::atomic<std::uint32_t>* command) {
    gCommand.compare_exchange_strong(command, nullptr);
}

void installEndingHandler() {
    struct sigaction action {};
    action.sa_handler = &onEnding;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
}

std::int64_t endingSince() {
    return gEndingSince.load();
}

int endingSignal() {
    return gEndingSignal.load();
}

} // namespace hwl::mpi
