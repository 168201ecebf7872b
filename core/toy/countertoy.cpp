#include "toy/countertoy.h"

#include "util/errors.h"
#include "util/limits.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace hwl {

namespace {

enum class Way { Plain, Atomic, Locked };

void addOne(Way way, float& counter, std::mutex& lock) {
    std::atomic_ref<float> c(counter);
    switch (way) {
    case Way::Plain: // the race: another worker may store between our load and store
        c.store(c.load(std::memory_order_relaxed) + 1.0f, std::memory_order_relaxed);
        break;
    case Way::Atomic:
        c.fetch_add(1.0f, std::memory_order_relaxed);
        break;
    case Way::Locked: {
        std::lock_guard<std::mutex> guard(lock);
        c.store(c.load(std::memory_order_relaxed) + 1.0f, std::memory_order_relaxed);
        break;
    }
    }
}

CounterToyResult runOne(Way way, int workers, std::int64_t increments) {
    alignas(64) float counter = 0.0f;
    std::mutex lock;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) // start together: the race needs overlap
                std::this_thread::yield();
            for (std::int64_t i = 0; i < increments; ++i)
                addOne(way, counter, lock);
        });
    while (ready.load() < workers)
        std::this_thread::yield();
    const auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& t : threads)
        t.join();
    CounterToyResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.expected = std::uint64_t(workers) * std::uint64_t(increments);
    r.final = double(counter);
    r.lost = r.expected - std::uint64_t(counter); // counter <= expected: each store adds at most 1
    switch (way) {
    case Way::Plain:
        r.way = "plain";
        r.how = "load, add 1, store";
        break;
    case Way::Atomic:
        r.way = "atomic";
        r.how = "one atomic add";
        break;
    case Way::Locked:
        r.way = "locked";
        r.how = "load, add 1, store under a mutex";
        break;
    }
    return r;
}

} // namespace

std::int64_t counterToyDefaultIncrements(int workers) {
    constexpr std::int64_t kDefault = 1000000;
    return workers < 1
               ? kDefault
               : std::min<std::int64_t>(kDefault, std::int64_t(kCounterToyMaxTotal) / workers);
}

std::string counterToyProblem(int workers, std::int64_t increments) {
    if (workers < 1 || workers > limits::kMaxWorkers)
        return "workers must be in 1.." + std::to_string(limits::kMaxWorkers) + " (got " +
               std::to_string(workers) + ")";
    if (increments < 1)
        return "increments must be at least 1 (got " + std::to_string(increments) + ")";
    if (std::uint64_t(workers) * std::uint64_t(increments) > kCounterToyMaxTotal)
        return "workers x increments = " +
               std::to_string(std::uint64_t(workers) * std::uint64_t(increments)) +
               " is more than a float counts exactly (2^24 = 16777216); use fewer increments";
    return {};
}

std::vector<CounterToyResult> runCounterToy(int workers, std::int64_t increments) {
    if (const std::string why = counterToyProblem(workers, increments); !why.empty())
        throw InputError("shared counter: " + why);
    return {runOne(Way::Plain, workers, increments), runOne(Way::Atomic, workers, increments),
            runOne(Way::Locked, workers, increments)};
}

} // namespace hwl
