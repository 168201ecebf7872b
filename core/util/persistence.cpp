#include "util/persistence.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace hwl::persistence {

namespace {

struct Settings {
    long long crashAt = 0;
    long long failAt = 0;
    bool trace = false;
};

long long number(const char* name) {
    const char* text = std::getenv(name);
    return text ? std::atoll(text) : 0;
}

const Settings& settings() {
    static const Settings s{number("HWL_TEST_CRASH_AT"), number("HWL_TEST_FAIL_AT"),
                            number("HWL_TEST_TRACE_PERSISTENCE") != 0};
    return s;
}

std::atomic<long long> passed{0};

} // namespace

int point(const char* what) {
    const long long k = passed.fetch_add(1, std::memory_order_relaxed) + 1;
    const Settings& s = settings();
    if (s.trace)
        std::fprintf(stderr, "persistence point %lld: %s\n", k, what);
    if (k == s.crashAt) {
        std::fflush(nullptr);
        ::kill(::getpid(), SIGKILL);
        ::_exit(137); // not reached
    }
    return k == s.failAt ? ENOSPC : 0;
}

long long count() {
    return passed.load(std::memory_order_relaxed);
}

} // namespace hwl::persistence
