#pragma once
// SharedDataset: a dataset's arrays in one shared-memory segment, written
// once by the parent and mapped by every worker process, so memory does not
// grow with the number of workers.
//
// Layout: a Header (magic, sizes, array offsets), then dense features or the
// CSR triple, then labels; each array starts on a 64-byte boundary.
#include "data/dataset.h"
#include "store/sharedsegment.h"

#include <string>

namespace hwl {

class SharedDataset {
public:
    SharedDataset() = default;
    /// Copies `data` into a new owned segment. Throws RunError (e.g. no space).
    static SharedDataset create(const Dataset& data);
    /// Maps an existing one by name (a worker process). Throws RunError.
    static SharedDataset open(const std::string& name);
    /// Bytes a segment for `data` needs (to check /dev/shm up front).
    static std::size_t bytesFor(const Dataset& data);

    DatasetView view() const { return view_; }
    const std::string& name() const { return segment_.name(); }
    /// Removes the segment's name; the view stays valid in this process.
    void unlink() { segment_.unlink(); }

private:
    SharedSegment segment_;
    DatasetView view_;
};

} // namespace hwl
