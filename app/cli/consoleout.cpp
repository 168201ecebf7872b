#include "cli/consoleout.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>

#include <poll.h>
#include <unistd.h>

namespace hwl {

void ConsoleOut::add(const std::string& text) {
    if (pending_.empty())
        std::fflush(stdout); // what printf holds comes first
    pending_ += text;
    write(pending_.size() > kMostKept);
}

void ConsoleOut::flush() {
    write(true);
    std::fflush(stdout);
}

void ConsoleOut::write(bool wait) {
    while (!pending_.empty()) {
        if (!wait) {
            // POLLOUT on a pipe: a page is free, and a write of at most
            // PIPE_BUF bytes does not block.
            pollfd out{STDOUT_FILENO, POLLOUT, 0};
            if (poll(&out, 1, 0) != 1 || !(out.revents & POLLOUT))
                return;
        }
        const std::size_t chunk =
            wait ? pending_.size() : std::min<std::size_t>(pending_.size(), PIPE_BUF);
        const ssize_t n = ::write(STDOUT_FILENO, pending_.data(), chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) { // stdout was made non-blocking
            if (!wait)
                return;
            pollfd out{STDOUT_FILENO, POLLOUT, 0};
            poll(&out, 1, -1);
            continue;
        }
        if (n <= 0) { // closed or failing: what cannot be said is dropped
            pending_.clear();
            return;
        }
        pending_.erase(0, std::size_t(n));
    }
}

} // namespace hwl
