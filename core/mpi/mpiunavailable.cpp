// The MPI job in a build without MPI: nothing can join one.
#include "mpi/mpicollective.h"
#include "mpi/mpijob.h"

#include "util/errors.h"

namespace hwl {

namespace mpi {

namespace {
std::string notBuilt() {
    return std::string("transport mpi: ") + kNotBuiltReason;
}
} // namespace

bool built() {
    return false;
}

const JobInfo& join() {
    throw RunError(notBuilt());
}

bool joined() {
    return false;
}

const JobInfo& job() {
    throw RunError(notBuilt());
}

void leave(bool) {}

void markPeerLost() {}

} // namespace mpi

std::unique_ptr<Collective> makeMpiCollective(Telemetry&, std::uint32_t, std::int64_t,
                                              mpi::Greeting, MpiReduction, int) {
    throw RunError(mpi::notBuilt());
}

} // namespace hwl
