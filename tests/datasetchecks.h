#pragma once
// Checks and fixtures shared by the dataset tests.
#include "data/dataset.h"

#include <QByteArray>
#include <QTest>

#include <algorithm>

namespace hwl::test {

inline quint32 crc32(const QByteArray& data) {
    static quint32 table[256] = {};
    if (table[1] == 0)
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    quint32 crc = 0xFFFFFFFFu;
    for (char ch : data)
        crc = table[(crc ^ quint8(ch)) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

inline void appendLe(QByteArray& out, quint32 v, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.append(char((v >> (8 * i)) & 0xFF));
}

/// A valid gzip file holding `data` in stored (uncompressed) deflate blocks,
/// so the tests need neither zlib nor a gzip binary.
inline QByteArray gzipStored(const QByteArray& data) {
    QByteArray out = QByteArray::fromHex("1f8b08000000000000ff");
    qsizetype pos = 0;
    do {
        const qsizetype n = std::min<qsizetype>(65535, data.size() - pos);
        const bool last = pos + n == data.size();
        out.append(char(last ? 1 : 0));
        appendLe(out, quint32(n), 2);
        appendLe(out, quint32(~n & 0xFFFF), 2);
        out.append(data.mid(pos, n));
        pos += n;
    } while (pos < data.size());
    appendLe(out, crc32(data), 4);
    appendLe(out, quint32(data.size()), 4);
    return out;
}

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
