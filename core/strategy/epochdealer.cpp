#include "strategy/epochdealer.h"

#include "strategy/devicestrategy.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

namespace hwl {

EpochDealer::EpochDealer(std::shared_ptr<const EpochPlan> plan, std::uint32_t replicas, int epochs,
                         int ahead)
    : plan_(std::move(plan)), replicas_(replicas), epochs_(epochs), ahead_(std::max(1, ahead)) {
    while (dealt_ < std::min(ahead_, epochs_))
        dealNext();
}

EpochDealer::~EpochDealer() {
    for (auto& f : pending_)
        if (f.valid())
            f.wait();
}

void EpochDealer::dealNext() {
    const int epoch = ++dealt_;
    pending_.push_back(std::async(std::launch::async, [plan = plan_, replicas = replicas_, epoch] {
        return replicaRows(*plan, epoch, replicas);
    }));
}

EpochDealer::Rows EpochDealer::next() {
    if (pending_.empty())
        throw std::logic_error("EpochDealer: all " + std::to_string(epochs_) +
                               " epochs were dealt already");
    const auto start = std::chrono::steady_clock::now();
    Rows rows = pending_.front().get();
    lastWait_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    pending_.pop_front();
    if (dealt_ < epochs_)
        dealNext();
    return rows;
}

int EpochDealer::aheadFor(std::uint64_t samplesPerEpoch, unsigned threads) {
    // A dealt epoch holds its rows twice while it is made (64-bit, then 32).
    const double bytes = double(std::max<std::uint64_t>(samplesPerEpoch, 1)) * 12;
    const int fit = int(std::max(1.0, 512.0 * 1024 * 1024 / bytes));
    return std::min(std::clamp(int(threads / 2), 2, 8), fit);
}

} // namespace hwl
