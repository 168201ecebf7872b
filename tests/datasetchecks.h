#pragma once
// Checks shared by the dataset tests.
#include "data/dataset.h"

#include <QTest>

#include <algorithm>

namespace hwl::test {

/// QVERIFYs that `ds` is a well-formed sparse (CSR) dataset.
inline void checkCsr(const Dataset& ds) {
    QVERIFY(ds.isSparse());
    QCOMPARE(qsizetype(ds.offsets.size()), qsizetype(ds.rows + 1));
    QCOMPARE(ds.offsets.front(), std::int64_t(0));
    QCOMPARE(ds.offsets.back(), std::int64_t(ds.indices.size()));
    QCOMPARE(ds.indices.size(), ds.values.size());
    QVERIFY(std::is_sorted(ds.offsets.begin(), ds.offsets.end()));
    for (auto i : ds.indices)
        QVERIFY(i >= 0 && i < ds.dim);
    QCOMPARE(qsizetype(ds.labels.size()), qsizetype(ds.rows));
}

} // namespace hwl::test
