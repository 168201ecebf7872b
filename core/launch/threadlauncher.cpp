#include "launch/launcher.h"

#include "util/errors.h"

#include <atomic>
#include <system_error>
#include <thread>

#include <unistd.h>

namespace hwl {

namespace {

class ThreadLauncher final : public Launcher {
public:
    ~ThreadLauncher() override { join(); }

    pid_t launch(std::uint32_t, const WorkerJob& job) override {
        try {
            running_.fetch_add(1);
            threads_.emplace_back([this, body = job.body] {
                body();
                running_.fetch_sub(1);
            });
        } catch (const std::system_error& e) {
            running_.fetch_sub(1);
            throw RunError("cannot create its thread: " + startFailureText(e.code().value()));
        }
        return getpid();
    }
    std::vector<Exit> reap() override { return {}; }
    std::size_t running() const override { return running_.load(); }
    void killAll() override {}
    void join() override {
        for (auto& t : threads_)
            if (t.joinable())
                t.join();
    }
    bool processes() const override { return false; }

private:
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> running_{0};
};

} // namespace

std::unique_ptr<Launcher> makeThreadLauncher() {
    return std::make_unique<ThreadLauncher>();
}

} // namespace hwl
