#pragma once
// Weight files other tools load: safetensors (read and write, safetensors.cpp)
// and NumPy .npz (write, npz.cpp). All writes go through writeFileAtomically's
// machinery (atomicfile.h): a temporary file in the same directory, renamed
// into place, so a crash never leaves half a file.
#include "io/atomicfile.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hwl {

/// A float32 tensor that lives elsewhere (the flat parameter buffer).
/// `data` holds product(shape) floats, row-major (C order).
struct TensorRef {
    std::string name;
    std::vector<std::int64_t> shape;
    const float* data = nullptr;
};

/// A float32 tensor that owns its data.
struct Tensor {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<float> data;
};

/// Writes a safetensors file (https://github.com/huggingface/safetensors):
/// 8-byte little-endian header length N, N bytes of JSON header
/// {"__metadata__": {..strings..}, "<name>": {"dtype":"F32","shape":[..],
/// "data_offsets":[begin,end]}, ...} padded with spaces to a multiple of 8,
/// then the tensors' bytes in the order given. Throws InputError when the
/// file cannot be written (naming the path and the OS reason).
void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorRef>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

/// Reads a safetensors file of F32 tensors. Checks everything before
/// trusting it: header length against the file size, JSON syntax, dtype,
/// shape x 4 == data_offsets span, offsets in bounds, non-overlapping and
/// covering the data. Throws InputError naming the file and the problem.
std::vector<Tensor> readSafetensors(const std::filesystem::path& file,
                                    std::map<std::string, std::string>* metadata = nullptr);

/// Writes a NumPy .npz (a zip of .npy v1.0 files, one per tensor, named
/// "<name>.npy", dtype '<f4', C order), readable by numpy.load. Uses libzip.
void writeNpz(const std::filesystem::path& file, const std::vector<TensorRef>& tensors);

} // namespace hwl
