#include "util/cancel.h"

#include "util/errors.h"

namespace hwl {

namespace {
thread_local const CancelScope* tCurrent = nullptr;
} // namespace

CancelScope::CancelScope(std::function<bool()> stopRequested)
    : stopRequested_(std::move(stopRequested)), outer_(tCurrent) {
    tCurrent = this;
}

CancelScope::~CancelScope() {
    tCurrent = outer_;
}

const CancelScope* currentCancelScope() {
    return tCurrent;
}

void throwIfCancelled(const CancelScope* scope) {
    if (scope && scope->stopRequested())
        throw Cancelled("stopped while loading the data: nothing was started");
}

} // namespace hwl
