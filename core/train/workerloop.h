#pragma once
// The step loop every worker runs, whatever launched it (a thread now,
// a process later): sample a batch -> loss and gradient -> update (racy,
// locked) -> telemetry. Workers never throw and never wait on the monitor;
// they report through their WorkerStatus block and sample ring.
#include "config/experimentconfig.h"
#include "data/dataset.h"
#include "model/model.h"
#include "optim/hogwild.h"
#include "telemetry/telemetry.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace hwl {

struct WorkerPlan {
    const Model* model = nullptr;
    float* params = nullptr; ///< the shared flat buffer (layout().total() floats)
    DatasetView train;
    Telemetry* telemetry = nullptr;
    std::uint32_t rank = 0;
    std::uint32_t workers = 1;
    int epochs = 1;
    int batch = 32;
    DataSplit split = DataSplit::Shard;
    bool shuffle = true;
    std::uint64_t seed = 0;
    SgdSettings sgd;
    std::mutex* updateLock = nullptr; ///< non-null: locked mode (one mutex around each update)
    bool measureStaleness = true;     ///< shared modes with more than one worker
    bool replica = false; ///< params is this worker's private copy (not-shared pitfall): its
                          ///< divergence comes from the coordinator (WorkerStatus::replicaDistance)
};

/// The rows worker `rank` visits in `epoch` (1-based), in order.
///   shard:     one permutation of all rows per epoch (same for every worker),
///              worker r takes the r-th of `workers` contiguous slices;
///   replicate: every worker walks all rows in its own order (the blog's recipe).
/// Without shuffle the order is 0, 1, 2, ... (for exact comparisons).
void epochRows(std::int64_t rows, int epoch, std::uint32_t rank, std::uint32_t workers,
               DataSplit split, bool shuffle, std::uint64_t seed, std::vector<std::int64_t>& out);

/// The plan every worker of `config` shares (rank 0, no update lock).
WorkerPlan makeWorkerPlan(const ExperimentConfig& config, const Model& model, float* params,
                          const DatasetView& train, Telemetry& telemetry);

/// Runs all epochs for one worker. Returns when done, stopped, or failed.
void runWorker(const WorkerPlan& plan);

/// How often (in steps) a worker measures staleness: often enough for a
/// live chart, rarely enough to cost well under 1% of throughput.
std::uint64_t stalenessInterval(std::int64_t parameterCount);

} // namespace hwl
