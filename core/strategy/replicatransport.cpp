#include "strategy/replicatransport.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace hwl {

namespace {

std::mutex gTableMutex; ///< guards table()

/// The transports by id: the built-in ones, or what was registered in
/// their place.
std::map<Transport, TransportEntry>& table() {
    static std::map<Transport, TransportEntry> entries = [] {
        std::map<Transport, TransportEntry> builtIn;
        for (TransportEntry e : {sharedMemoryTransport(Transport::Threads),
                                 sharedMemoryTransport(Transport::Processes), mpiTransport()})
            builtIn.emplace(e.id, std::move(e));
        return builtIn;
    }();
    return entries;
}

} // namespace

TransportEntry transportEntry(Transport id) {
    const std::lock_guard<std::mutex> lock(gTableMutex);
    const auto it = table().find(id);
    if (it == table().end())
        throw std::logic_error("no transport " + std::to_string(int(id)) + " is listed");
    return it->second;
}

void registerTransport(TransportEntry entry) {
    if (!entry.make)
        throw std::logic_error(std::string("transport ") + toString(entry.id) +
                               " registered without a factory");
    const std::lock_guard<std::mutex> lock(gTableMutex);
    table().insert_or_assign(entry.id, std::move(entry));
}

std::unique_ptr<ReplicaTransport> makeTransport(const ExperimentConfig& config) {
    return transportEntry(config.transport).make(config);
}

} // namespace hwl
