#pragma once
// A dataset's fingerprint: 64 bits that change when any feature, index or
// label does. MPI ranks compare theirs with rank 0's before training, so a
// host with a different copy of the data is refused by name instead of
// training on it silently. Not cryptographic; about 10 GB/s.
#include "data/dataset.h"

#include <cstdint>
#include <string>

namespace hwl {

std::uint64_t fingerprint(const DatasetView& data);
/// "60000 x 784, 10 classes, fingerprint 0123456789abcdef".
std::string describeFingerprint(const DatasetView& data);

} // namespace hwl
