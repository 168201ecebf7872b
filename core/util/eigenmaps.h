#pragma once
// Eigen views of the flat buffers: row-major, as PyTorch lays out tensors.
#include <Eigen/Core>

namespace hwl {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <class T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;
template <class T>
using RowVector = Eigen::Matrix<T, 1, Eigen::Dynamic>;
template <class T>
using ConstRowMap = Eigen::Map<const RowVector<T>>;

} // namespace hwl
