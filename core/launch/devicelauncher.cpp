// The GPU modes' launcher: one device process (started by the run's start
// method) drives every logical worker of the run (replicas, or groups of
// thread blocks) and writes their status blocks; the workers beyond rank 0
// are relayed through it, as MPI ranks are through rank 0.
#include "launch/launcher.h"

namespace hwl {

namespace {

class DeviceLauncher final : public Launcher {
public:
    explicit DeviceLauncher(std::unique_ptr<Launcher> inner) : inner_(std::move(inner)) {}

    pid_t launch(std::uint32_t rank, const WorkerJob& job) override {
        if (rank == 0)
            pid_ = inner_->launch(0, job);
        return pid_;
    }
    std::vector<Exit> reap() override {
        std::vector<Exit> exits = inner_->reap();
        for (Exit& e : exits) // it stood for every logical worker
            e.what = "the device process (pid " + std::to_string(e.pid) + ")";
        return exits;
    }
    std::size_t running() const override { return inner_->running(); }
    void killAll() override { inner_->killAll(); }
    void join() override { inner_->join(); }
    bool processes() const override { return true; }
    bool relayed(std::uint32_t rank) const override { return rank > 0; }

private:
    std::unique_ptr<Launcher> inner_;
    pid_t pid_ = 0;
};

} // namespace

std::unique_ptr<Launcher> makeDeviceLauncher(std::unique_ptr<Launcher> inner) {
    return std::make_unique<DeviceLauncher>(std::move(inner));
}

} // namespace hwl
