#pragma once
// The epoch lines on stdout, written so that the run never waits for them.
// Under mpirun, stdout is a pipe that mpirun stops reading while it ends the
// job (SIGCONT, then SIGTERM, then SIGKILL a second later): a rank blocked on
// a full pipe would be killed before it wrote its run.
#include <cstddef>
#include <string>

namespace hwl {

class ConsoleOut {
public:
    ConsoleOut() = default;
    ConsoleOut(const ConsoleOut&) = delete;
    ConsoleOut& operator=(const ConsoleOut&) = delete;
    ~ConsoleOut() { flush(); }

    /// Queues `text` and writes what stdout takes without waiting.
    void add(const std::string& text);
    /// Writes the rest, waiting as long as stdout needs; before anything
    /// else is printed.
    void flush();
    /// Bytes not yet written.
    std::size_t pending() const { return pending_.size(); }

    /// Beyond this, add() waits: a reader that never reads costs no more.
    static constexpr std::size_t kMostKept = std::size_t(4) << 20;

private:
    /// Writes while stdout is ready; waits when `wait`.
    void write(bool wait);
    std::string pending_;
};

} // namespace hwl
