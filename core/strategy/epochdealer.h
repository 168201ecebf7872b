#pragma once
// EpochDealer: the device's replicas' rows of each epoch (replicaRows),
// dealt on host threads ahead of the device. At hundreds of replicas a GPU
// step takes microseconds and an epoch of a million rows about 10 ms, while
// one host thread needs 20 ms or more to shuffle and deal it: dealt one
// epoch ahead, the device would wait for the host every epoch. So up to
// `ahead` epochs are dealt at once, each on its own thread, and the time the
// device still waits for rows is measured, so a run can say so.
//
// Threading: used by one thread (the device process's driver thread); the
// dealing threads only run replicaRows() on the shared, immutable plan.
#include "train/epochplan.h"

#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <vector>

namespace hwl {

class EpochDealer {
public:
    using Rows = std::vector<std::vector<std::int32_t>>;
    /// Starts dealing epochs 1 .. min(ahead, epochs) of `replicas` ranks.
    EpochDealer(std::shared_ptr<const EpochPlan> plan, std::uint32_t replicas, int epochs,
                int ahead);
    /// Waits for the dealing threads still running.
    ~EpochDealer();
    EpochDealer(const EpochDealer&) = delete;
    EpochDealer& operator=(const EpochDealer&) = delete;

    /// The next epoch's rows (epochs come in order, from 1), waiting for
    /// them where they are not dealt yet, and starts the epoch `ahead`
    /// later. Throws std::logic_error past the last epoch.
    Rows next();
    /// Seconds the last next() waited for its epoch's rows (the first
    /// epoch's wait comes before training starts; a later one's is time the
    /// device stood idle).
    double lastWaitSeconds() const { return lastWait_; }
    int ahead() const { return ahead_; }

    /// How many epochs to deal at once on a machine with `threads` hardware
    /// threads, for epochs of `samplesPerEpoch` rows: half the threads (the
    /// device's driver thread and the collectives need theirs), 2 to 8, and
    /// no more than fit in 512 MiB of dealt rows.
    static int aheadFor(std::uint64_t samplesPerEpoch, unsigned threads);

private:
    void dealNext();

    std::shared_ptr<const EpochPlan> plan_;
    std::uint32_t replicas_;
    int epochs_, ahead_;
    int dealt_ = 0; ///< epochs started
    std::deque<std::future<Rows>> pending_;
    double lastWait_ = 0;
};

} // namespace hwl
