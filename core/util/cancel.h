#pragma once
// Stopping long work on request: a CancelScope on the thread that does it
// (Run::prepare) says how to tell that the user asked to stop; the loops of
// the work (reading a data file a chunk at a time, generating a synthetic
// dataset a block at a time) call throwIfCancelled(), which throws
// Cancelled. Helper threads (oneTBB's) take the scope of the thread that
// handed them the work: pass currentCancelScope() along.
#include <functional>

namespace hwl {

class CancelScope {
public:
    /// `stopRequested` may be called from any thread, often: keep it cheap.
    explicit CancelScope(std::function<bool()> stopRequested);
    ~CancelScope();
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

    bool stopRequested() const { return stopRequested_ && stopRequested_(); }

private:
    std::function<bool()> stopRequested_;
    const CancelScope* outer_;
};

/// The innermost scope of the calling thread, or null.
const CancelScope* currentCancelScope();

/// Throws Cancelled ("stopped while loading the data: nothing was started")
/// when `scope` says the user asked to stop.
void throwIfCancelled(const CancelScope* scope = currentCancelScope());

} // namespace hwl
