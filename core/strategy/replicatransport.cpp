#include "strategy/replicatransport.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace hwl {

namespace {

/// The transports by id: the built-in ones first, then what was registered.
struct TransportTable {
    TransportTable() {
        for (TransportEntry e : {sharedMemoryTransport(Transport::Threads),
                                 sharedMemoryTransport(Transport::Processes), mpiTransport()})
            entries.emplace(e.id, std::move(e));
    }
    std::mutex mutex;
    std::map<Transport, TransportEntry> entries;
};

TransportTable& table() {
    static TransportTable t;
    return t;
}

} // namespace

TransportEntry transportEntry(Transport id) {
    TransportTable& t = table();
    const std::lock_guard<std::mutex> lock(t.mutex);
    const auto it = t.entries.find(id);
    if (it == t.entries.end())
        throw std::logic_error("no transport " + std::to_string(int(id)) + " is listed");
    return it->second;
}

void registerTransport(TransportEntry entry) {
    if (!entry.make)
        throw std::logic_error(std::string("transport ") + toString(entry.id) +
                               " registered without a factory");
    TransportTable& t = table();
    const std::lock_guard<std::mutex> lock(t.mutex);
    t.entries.insert_or_assign(entry.id, std::move(entry));
}

std::unique_ptr<ReplicaTransport> makeTransport(const ExperimentConfig& config) {
    return transportEntry(config.transport).make(config);
}

} // namespace hwl
