// Tests for core/tensorfile: safetensors byte layout and hostile-file checks,
// .npz readable by numpy, atomic replacement of files.
#include "io/tensorfile.h"
#include "testutil.h"
#include "util/errors.h"

#include <QDir>
#include <QFile>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

using hwl::test::readBytes;
using hwl::test::writeBytes;
namespace fs = std::filesystem;

namespace {

using Shapes = QList<QList<qint64>>;

QByteArray u64le(quint64 v) {
    QByteArray out(8, '\0');
    qToLittleEndian(v, out.data());
    return out;
}

/// A safetensors file from a header text and data bytes (no padding added).
QByteArray safetensorsFile(const QByteArray& json, const QByteArray& data = {}) {
    return u64le(static_cast<quint64>(json.size())) + json + data;
}

QByteArray floatsLE(const std::vector<float>& values) {
    QByteArray out(static_cast<qsizetype>(values.size() * 4), '\0');
    for (std::size_t i = 0; i < values.size(); ++i)
        qToLittleEndian(values[i], out.data() + 4 * i);
    return out;
}

qint64 elementCount(const QList<qint64>& shape) {
    qint64 n = 1;
    for (qint64 d : shape)
        n *= d;
    return n;
}

/// Awkward values included on purpose: the round trips must be bit-exact.
std::vector<float> sampleValues(qint64 n, int seed) {
    const float special[] = {-0.0f, std::numeric_limits<float>::denorm_min(),
                             std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(), 1e-30f};
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = i < 5 && seed % 2 ? special[i] : static_cast<float>(seed) * 0.25f - float(i) / 7.0f;
    return v;
}

/// Tensors that own their data, plus the TensorRef views the writers take.
struct Fixture {
    std::vector<hwl::Tensor> tensors;
    std::vector<hwl::TensorRef> refs() const {
        std::vector<hwl::TensorRef> out;
        for (const auto& t : tensors)
            out.push_back({t.name, t.shape, t.data.data()});
        return out;
    }
};

Fixture makeFixture(const Shapes& shapes) {
    Fixture f;
    for (int i = 0; i < shapes.size(); ++i) {
        const auto& s = shapes[i];
        // Via QString: GCC 12 warns falsely (-Wrestrict) on "t" + std::to_string(i).
        std::string name =
            QStringLiteral("t%1.%2").arg(i).arg(i % 2 ? "weight" : "bias").toStdString();
        f.tensors.push_back({name, std::vector<std::int64_t>(s.begin(), s.end()),
                             sampleValues(elementCount(s), i + 1)});
    }
    return f;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

QStringList tempLeftovers(const QString& dir) {
    return QDir(dir).entryList({"*.tmp-*"}, QDir::AllEntries | QDir::Hidden);
}

quint16 u16At(const QByteArray& b, qsizetype at) {
    return qFromLittleEndian<quint16>(b.constData() + at);
}
quint32 u32At(const QByteArray& b, qsizetype at) {
    return qFromLittleEndian<quint32>(b.constData() + at);
}

/// Entries of a zip whose members are all stored (no compression), read via
/// the central directory. Fails the test on anything else.
QMap<QString, QByteArray> storedZipEntries(const QByteArray& zip) {
    QMap<QString, QByteArray> out;
    const qsizetype eocd = zip.lastIndexOf(QByteArray("PK\x05\x06", 4));
    if (eocd < 0 || eocd + 22 > zip.size())
        return out;
    const int count = u16At(zip, eocd + 10);
    qsizetype at = u32At(zip, eocd + 16);
    for (int i = 0; i < count; ++i) {
        if (zip.mid(at, 4) != QByteArray("PK\x01\x02", 4) || u16At(zip, at + 10) != 0)
            return {}; // not a central header, or compressed
        const quint32 size = u32At(zip, at + 20);
        const quint16 nameLen = u16At(zip, at + 28);
        const qsizetype local = u32At(zip, at + 42);
        const QString name = QString::fromUtf8(zip.mid(at + 46, nameLen));
        const qsizetype dataAt = local + 30 + u16At(zip, local + 26) + u16At(zip, local + 28);
        out[name] = zip.mid(dataAt, size);
        at += 46 + nameLen + u16At(zip, at + 30) + u16At(zip, at + 32);
    }
    return out;
}

constexpr const char* kSystemPython = "/usr/bin/python3";

bool systemNumpyAvailable() {
    static const bool available = [] {
        QProcess p;
        p.start(kSystemPython, {"-c", "import numpy"});
        return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit &&
               p.exitCode() == 0;
    }();
    return available;
}

/// numpy.load's view of an .npz: {name: {dtype, shape, fortran, hex}}.
QJsonObject loadWithNumpy(const QString& path) {
    static const char* script = R"(
import json, sys, numpy as np
with np.load(sys.argv[1]) as z:
    print(json.dumps({k: {"dtype": z[k].dtype.str, "shape": list(z[k].shape),
                          "fortran": bool(np.isfortran(z[k])), "hex": z[k].tobytes().hex()}
                      for k in z.files}))
)";
    QProcess p;
    p.start(kSystemPython, {"-c", script, path});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        qWarning("numpy failed: %s", p.readAllStandardError().constData());
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

/// The three writers, selectable from data-driven rows.
void writeWith(const QString& writer, const fs::path& file) {
    static const std::vector<float> data{1.0f, 2.0f, 3.0f};
    const std::vector<hwl::TensorRef> tensors{{"w", {3}, data.data()}};
    if (writer == "plain")
        hwl::writeFileAtomically(file, "new contents");
    else if (writer == "safetensors")
        hwl::writeSafetensors(file, tensors);
    else
        hwl::writeNpz(file, tensors);
}

void addWriterRows() {
    QTest::addColumn<QString>("writer");
    for (const char* w : {"plain", "safetensors", "npz"})
        QTest::newRow(w) << QString(w);
}

} // namespace

class TestTensorFile : public QObject {
    Q_OBJECT

private slots:
    void safetensorsByteLayout();
    void safetensorsRoundTrip_data();
    void safetensorsRoundTrip();
    void readsForeignLayoutInOffsetOrder();
    void rejectsMalformedFile_data();
    void rejectsMalformedFile();
    void rejectsHeaderOverLimit();
    void rejectsMissingFileAndDirectory();
    void writersRejectBadTensors();
    void npyHeaderIsAligned_data();
    void npyHeaderIsAligned();
    void npzLoadsInNumpy_data();
    void npzLoadsInNumpy();
    void emptyNpzLoadsInNumpy();
    void writeIntoMissingDirectoryLeavesNothing_data();
    void writeIntoMissingDirectoryLeavesNothing();
    void writeReplacesExistingFile_data();
    void writeReplacesExistingFile();
    void failedRenameRemovesTempFile_data();
    void failedRenameRemovesTempFile();
};

void TestTensorFile::safetensorsByteLayout() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = dir.filePath("m.safetensors").toStdString();
    const std::vector<float> a{1.0f, -2.5f};
    const std::vector<float> b{0.5f, 3.0f, -0.0f};
    hwl::writeSafetensors(file, {{"a", {2}, a.data()}, {"bb", {1, 3}, b.data()}},
                          {{"format", "pt"}});

    const QByteArray bytes = readBytes(file);
    QVERIFY(bytes.size() >= 8);
    const quint64 n = qFromLittleEndian<quint64>(bytes.constData());
    QCOMPARE((8 + n) % 8, quint64(0));
    QCOMPARE(quint64(bytes.size()), 8 + n + 20);

    // JSON, then only space padding (fewer than 8 bytes of it).
    const QByteArray header = bytes.mid(8, qsizetype(n));
    const qsizetype close = header.lastIndexOf('}');
    QVERIFY(header.size() - 1 - close < 8);
    QCOMPARE(header.mid(close + 1), QByteArray(header.size() - 1 - close, ' '));
    QVERIFY(header.startsWith("{\"__metadata__\":"));
    QVERIFY(header.indexOf("\"a\"") < header.indexOf("\"bb\""));

    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(header, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = doc.object();
    QCOMPARE(root.keys(), QStringList({"__metadata__", "a", "bb"}));
    QCOMPARE(root["__metadata__"].toObject(), QJsonObject({{"format", "pt"}}));
    QCOMPARE(root["a"].toObject(),
             QJsonObject(
                 {{"dtype", "F32"}, {"shape", QJsonArray{2}}, {"data_offsets", QJsonArray{0, 8}}}));
    QCOMPARE(root["bb"].toObject(), QJsonObject({{"dtype", "F32"},
                                                 {"shape", QJsonArray{1, 3}},
                                                 {"data_offsets", QJsonArray{8, 20}}}));

    // IEEE-754 float32, little-endian, spelled out byte by byte.
    const QByteArray expectedData = QByteArray::fromHex("0000803f"   // 1.0
                                                        "000020c0"   // -2.5
                                                        "0000003f"   // 0.5
                                                        "00004040"   // 3.0
                                                        "00000080"); // -0.0
    QCOMPARE(bytes.mid(8 + qsizetype(n)), expectedData);
    QCOMPARE(entries(dir.path()), QStringList{"m.safetensors"});
}

void TestTensorFile::safetensorsRoundTrip_data() {
    QTest::addColumn<Shapes>("shapes");
    QTest::addColumn<bool>("withMetadata");
    QTest::newRow("matrix and vector") << Shapes{{4, 3}, {3}} << true;
    QTest::newRow("scalar, empty, 3-D") << Shapes{{}, {0, 5}, {2, 3, 4}} << false;
    QTest::newRow("no tensors") << Shapes{} << true;
    QTest::newRow("one big") << Shapes{{256, 100}} << false;
}

void TestTensorFile::safetensorsRoundTrip() {
    QFETCH(Shapes, shapes);
    QFETCH(bool, withMetadata);
    QTemporaryDir dir;
    const fs::path file = dir.filePath("rt.safetensors").toStdString();
    const Fixture in = makeFixture(shapes);
    std::map<std::string, std::string> meta;
    if (withMetadata)
        meta = {{"format", "pt"}, {"note", "h\xc3\xa9llo \"quoted\"\n"}};
    hwl::writeSafetensors(file, in.refs(), meta);

    std::map<std::string, std::string> metaOut{{"stale", "entry"}};
    const std::vector<hwl::Tensor> out = hwl::readSafetensors(file, &metaOut);
    QCOMPARE(out.size(), in.tensors.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        QCOMPARE(out[i].name, in.tensors[i].name);
        QCOMPARE(out[i].shape, in.tensors[i].shape);
        QVERIFY2(sameBits(out[i].data, in.tensors[i].data), out[i].name.c_str());
    }
    QCOMPARE(metaOut, meta);
    QCOMPARE(tempLeftovers(dir.path()), QStringList());
}

void TestTensorFile::readsForeignLayoutInOffsetOrder() {
    // Written by hand like another tool might: JSON order differs from the
    // layout, no metadata, no padding, an empty tensor.
    QTemporaryDir dir;
    const QByteArray json = R"({"second":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},)"
                            R"("empty":{"dtype":"F32","shape":[0],"data_offsets":[8,8]},)"
                            R"("first":{"shape":[2],"data_offsets":[0,8],"dtype":"F32"}})";
    const auto file = writeBytes(dir.filePath("f.safetensors"),
                                 safetensorsFile(json, floatsLE({1.5f, 2.5f, -7.0f})));
    std::map<std::string, std::string> meta{{"stale", "entry"}};
    const auto out = hwl::readSafetensors(file, &meta);
    QCOMPARE(out.size(), std::size_t(3));
    QCOMPARE(out[0].name, std::string("first"));
    QCOMPARE(out[1].name, std::string("empty"));
    QCOMPARE(out[2].name, std::string("second"));
    QVERIFY(sameBits(out[0].data, {1.5f, 2.5f}));
    QVERIFY(out[1].data.empty());
    QCOMPARE(out[1].shape, std::vector<std::int64_t>{0});
    QVERIFY(sameBits(out[2].data, {-7.0f}));
    QVERIFY(meta.empty());
}

void TestTensorFile::rejectsMalformedFile_data() {
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("expected");
    const auto tensor = [](const char* name, const char* shape, const char* offsets) {
        return QByteArray("\"") + name + R"(":{"dtype":"F32","shape":)" + shape +
               R"(,"data_offsets":)" + offsets + "}";
    };
    const auto file = [](const QByteArray& entries, int dataBytes) {
        return safetensorsFile("{" + entries + "}", QByteArray(dataBytes, '\x01'));
    };

    QTest::newRow("empty file") << QByteArray() << "file is only 0 bytes";
    QTest::newRow("5-byte file") << QByteArray("abcde") << "file is only 5 bytes";
    QTest::newRow("header longer than file")
        << (u64le(100) + "{}") << "header claims 100 bytes but the file has only 2";
    QTest::newRow("header length 2^40")
        << (u64le(quint64(1) << 40) + "{}      ")
        << "header claims 1099511627776 bytes but the file has only 8";
    QTest::newRow("invalid JSON") << safetensorsFile(R"({"w": )")
                                  << "header is not valid JSON: [json.exception.parse_error";
    QTest::newRow("empty header") << safetensorsFile("") << "header is not valid JSON";
    QTest::newRow("invalid UTF-8") << safetensorsFile("{\"\xff\":1}") << "header is not valid JSON";
    QTest::newRow("top level array")
        << safetensorsFile("[1, 2]") << "header is a JSON array, expected an object";
    QTest::newRow("dtype F16") << file(R"("w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]})", 4)
                               << R"(tensor "w" has dtype "F16"; only F32 is supported)";
    QTest::newRow("dtype not a string")
        << file(R"("w":{"dtype":32,"shape":[1],"data_offsets":[0,4]})", 4)
        << R"(tensor "w": dtype must be a string)";
    QTest::newRow("missing shape")
        << file(R"("w":{"dtype":"F32","data_offsets":[0,4]})", 4) << R"(tensor "w" has no "shape")";
    QTest::newRow("entry not an object")
        << file(R"("w":5)", 0) << R"(tensor "w" must be an object)";
    QTest::newRow("negative dim") << file(tensor("w", "[-1]", "[0,4]"), 4)
                                  << R"(tensor "w": shape must be a list of non-negative)";
    QTest::newRow("fractional dim")
        << file(tensor("w", "[1.5]", "[0,4]"), 4) << "shape must be a list of non-negative";
    QTest::newRow("shape not a list")
        << file(tensor("w", "1", "[0,4]"), 4) << "shape must be a list of non-negative";
    QTest::newRow("dim beyond int64") << file(tensor("w", "[0,18446744073709551615]", "[0,0]"), 0)
                                      << "non-negative integers below 2^63";
    QTest::newRow("shape/offset mismatch")
        << file(tensor("w", "[2,3]", "[0,20]"), 20)
        << R"(tensor "w": shape [2, 3] needs 24 bytes but data_offsets [0, 20] span 20)";
    QTest::newRow("offsets out of bounds")
        << file(tensor("w", "[4]", "[0,16]"), 8)
        << R"(tensor "w": data_offsets [0, 16] are out of bounds: the data buffer has only 8)";
    QTest::newRow("offsets reversed")
        << file(tensor("w", "[2]", "[8,0]"), 8) << "data_offsets must be [begin, end]";
    QTest::newRow("three offsets")
        << file(tensor("w", "[2]", "[0,4,8]"), 8) << "data_offsets must be [begin, end]";
    QTest::newRow("negative offset")
        << file(tensor("w", "[1]", "[-4,0]"), 4) << "data_offsets must be [begin, end]";
    QTest::newRow("overlapping tensors")
        << file(tensor("a", "[2]", "[0,8]") + "," + tensor("b", "[2]", "[4,12]"), 12)
        << R"(tensors "a" and "b" overlap (data_offsets [0, 8] and [4, 12]))";
    QTest::newRow("same offsets twice")
        << file(tensor("a", "[1]", "[0,4]") + "," + tensor("b", "[1]", "[0,4]"), 4)
        << R"(tensors "a" and "b" overlap)";
    QTest::newRow("gap between tensors")
        << file(tensor("a", "[1]", "[0,4]") + "," + tensor("b", "[1]", "[8,12]"), 12)
        << "bytes [4, 8) of the data buffer belong to no tensor";
    QTest::newRow("uncovered tail") << file(tensor("a", "[1]", "[0,4]"), 8)
                                    << "bytes [4, 8) of the data buffer belong to no tensor";
    QTest::newRow("data but no tensors")
        << file("", 4) << "bytes [0, 4) of the data buffer belong to no tensor";
    QTest::newRow("element count overflows")
        << file(tensor("w", "[4294967296,4294967296,2]", "[0,4]"), 4)
        << R"(tensor "w": shape [4294967296, 4294967296, 2] is too large (its byte size overflows)";
    QTest::newRow("byte count overflows")
        << file(tensor("w", "[4611686018427387904]", "[0,4]"), 4) << "overflows 64 bits";
    QTest::newRow("metadata value not a string")
        << file(R"("__metadata__":{"k":1})", 0)
        << R"("__metadata__" must map strings to strings, but "k" maps to a number)";
    QTest::newRow("metadata not an object")
        << file(R"("__metadata__":"x")", 0) << R"("__metadata__" must be an object)";
    QTest::newRow("duplicate tensor name")
        << file(tensor("w", "[1]", "[0,4]") + "," + tensor("w", "[1]", "[0,4]"), 4)
        << R"(header has the key "w" twice)";
    QTest::newRow("nesting too deep")
        << file(tensor("w", "[[1]]", "[0,4]"), 4) << "header nests deeper than 3 levels";
}

void TestTensorFile::rejectsMalformedFile() {
    QFETCH(QByteArray, contents);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const auto file = writeBytes(dir.filePath("bad.safetensors"), contents);
    std::map<std::string, std::string> meta{{"keep", "me"}};
    HWL_VERIFY_THROWS(hwl::readSafetensors(file, &meta), hwl::InputError, expected.toStdString());
    HWL_VERIFY_THROWS(hwl::readSafetensors(file), hwl::InputError,
                      "weights file \"" + file.string() + "\": ");
    QCOMPARE(meta.size(), std::size_t(1)); // untouched on failure
}

void TestTensorFile::rejectsHeaderOverLimit() {
    // Sparse file: the length claim fits the file, but not the 100 MB cap.
    QTemporaryDir dir;
    const QString path = dir.filePath("huge.safetensors");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(u64le(100'000'001));
    QVERIFY(f.resize(100'000'016));
    f.close();
    HWL_VERIFY_THROWS(hwl::readSafetensors(path.toStdString()), hwl::InputError,
                      "header claims 100000001 bytes, more than the limit of 100000000");
}

void TestTensorFile::rejectsMissingFileAndDirectory() {
    QTemporaryDir dir;
    const std::string missing = dir.filePath("nope.safetensors").toStdString();
    HWL_VERIFY_THROWS(hwl::readSafetensors(missing), hwl::InputError,
                      "weights file \"" + missing +
                          "\": cannot open it: No such file or directory");
    HWL_VERIFY_THROWS(hwl::readSafetensors(dir.path().toStdString()), hwl::InputError,
                      "is a directory, not a regular file");
    // A FIFO (--init from a pipe) is refused at once, never waited on.
    const QString fifo = dir.filePath("w.safetensors");
    QCOMPARE(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    HWL_VERIFY_THROWS(hwl::readSafetensors(fifo.toStdString()), hwl::InputError,
                      "weights file \"" + fifo.toStdString() +
                          "\": is a FIFO (named pipe), not a regular file");
}

void TestTensorFile::writersRejectBadTensors() {
    QTemporaryDir dir;
    const fs::path st = dir.filePath("x.safetensors").toStdString();
    const fs::path npz = dir.filePath("x.npz").toStdString();
    const float one = 1.0f;
    const std::vector<hwl::TensorRef> duplicate{{"w", {1}, &one}, {"w", {1}, &one}};
    HWL_VERIFY_THROWS(hwl::writeSafetensors(st, duplicate), std::invalid_argument, "twice");
    HWL_VERIFY_THROWS(hwl::writeNpz(npz, duplicate), std::invalid_argument, "twice");
    HWL_VERIFY_THROWS(hwl::writeSafetensors(st, {{"__metadata__", {1}, &one}}),
                      std::invalid_argument, "reserved");
    HWL_VERIFY_THROWS(hwl::writeSafetensors(st, {{"w", {-1}, &one}}), std::invalid_argument,
                      "negative dimension");
    HWL_VERIFY_THROWS(hwl::writeNpz(npz, {{"w", {2}, nullptr}}), std::invalid_argument, "no data");
    QCOMPARE(entries(dir.path()), QStringList());
}

void TestTensorFile::npyHeaderIsAligned_data() {
    QTest::addColumn<QList<qint64>>("shape");
    QTest::addColumn<QByteArray>("dict");
    QTest::newRow("0-D") << QList<qint64>{} << QByteArray("()");
    QTest::newRow("1-D") << QList<qint64>{10} << QByteArray("(10,)");
    QTest::newRow("2-D") << QList<qint64>{256, 100} << QByteArray("(256, 100)");
    QTest::newRow("4-D with zero") << QList<qint64>{2, 0, 3, 1} << QByteArray("(2, 0, 3, 1)");
}

void TestTensorFile::npyHeaderIsAligned() {
    QFETCH(QList<qint64>, shape);
    QFETCH(QByteArray, dict);
    QTemporaryDir dir;
    const fs::path file = dir.filePath("w.npz").toStdString();
    const std::vector<float> data = sampleValues(elementCount(shape), 3);
    hwl::writeNpz(file, {{"w", {shape.begin(), shape.end()}, data.data()}});

    const auto members = storedZipEntries(readBytes(file));
    QCOMPARE(members.keys(), QStringList{"w.npy"});
    const QByteArray npy = members["w.npy"];
    QCOMPARE(npy.left(8), QByteArray("\x93NUMPY\x01\x00", 8));
    const quint16 hlen = u16At(npy, 8);
    QCOMPARE((10 + hlen) % 64, 0);
    const QByteArray header = npy.mid(10, hlen);
    const QByteArray literal = "{'descr': '<f4', 'fortran_order': False, 'shape': " + dict + ", }";
    QVERIFY2(header.startsWith(literal), header.constData());
    QVERIFY(header.endsWith('\n'));
    QCOMPARE(header.mid(literal.size()).chopped(1), QByteArray(hlen - literal.size() - 1, ' '));
    QCOMPARE(npy.mid(10 + hlen), floatsLE(data));
}

void TestTensorFile::npzLoadsInNumpy_data() {
    QTest::addColumn<Shapes>("shapes");
    QTest::newRow("matrix and bias") << Shapes{{256, 100}, {100}};
    QTest::newRow("scalar and 3-D") << Shapes{{}, {2, 3, 4}};
    QTest::newRow("empty tensor") << Shapes{{0, 7}, {1}};
}

void TestTensorFile::npzLoadsInNumpy() {
    QFETCH(Shapes, shapes);
    if (!systemNumpyAvailable())
        QSKIP("/usr/bin/python3 cannot import numpy (install python3-numpy)");
    QTemporaryDir dir;
    const QString path = dir.filePath("weights.npz");
    const Fixture in = makeFixture(shapes);
    hwl::writeNpz(path.toStdString(), in.refs());
    QCOMPARE(entries(dir.path()), QStringList{"weights.npz"});

    const QJsonObject loaded = loadWithNumpy(path);
    QCOMPARE(loaded.size(), qsizetype(in.tensors.size()));
    for (const hwl::Tensor& t : in.tensors) {
        const QJsonObject a = loaded[QString::fromStdString(t.name)].toObject();
        QCOMPARE(a["dtype"].toString(), QString("<f4"));
        QCOMPARE(a["fortran"].toBool(), false);
        QJsonArray shape;
        for (std::int64_t d : t.shape)
            shape.append(qint64(d));
        QCOMPARE(a["shape"].toArray(), shape);
        QCOMPARE(a["hex"].toString().toLatin1(), floatsLE(t.data).toHex());
    }
}

void TestTensorFile::emptyNpzLoadsInNumpy() {
    if (!systemNumpyAvailable())
        QSKIP("/usr/bin/python3 cannot import numpy (install python3-numpy)");
    QTemporaryDir dir;
    const QString path = dir.filePath("none.npz");
    hwl::writeNpz(path.toStdString(), {});
    QVERIFY(QFile::exists(path));
    QCOMPARE(loadWithNumpy(path), QJsonObject());
}

void TestTensorFile::writeIntoMissingDirectoryLeavesNothing_data() {
    addWriterRows();
}

void TestTensorFile::writeIntoMissingDirectoryLeavesNothing() {
    QFETCH(QString, writer);
    QTemporaryDir dir;
    const fs::path file = dir.filePath("missing/out.bin").toStdString();
    HWL_VERIFY_THROWS(writeWith(writer, file), hwl::InputError, "\"" + file.string() + "\"");
    HWL_VERIFY_THROWS(writeWith(writer, file), hwl::InputError, "No such file or directory");
    if (writer != "plain")
        HWL_VERIFY_THROWS(writeWith(writer, file), hwl::InputError,
                          "cannot write weights file \"" + file.string() + "\": ");
    QCOMPARE(entries(dir.path()), QStringList());
}

void TestTensorFile::writeReplacesExistingFile_data() {
    addWriterRows();
}

void TestTensorFile::writeReplacesExistingFile() {
    QFETCH(QString, writer);
    QTemporaryDir dir;
    const fs::path fresh = dir.filePath("fresh").toStdString();
    writeWith(writer, fresh);
    const fs::path target = writeBytes(dir.filePath("target"), QByteArray(8192, 'x'));
    writeWith(writer, target);

    const QByteArray expected = readBytes(fresh);
    const QByteArray actual = readBytes(target);
    QCOMPARE(actual.size(), expected.size());
    if (writer == "npz") { // zip timestamps may differ by a second: compare members
        QCOMPARE(storedZipEntries(actual).keys(), QStringList{"w.npy"});
        QCOMPARE(storedZipEntries(actual), storedZipEntries(expected));
    } else {
        QCOMPARE(actual, expected);
    }
    QCOMPARE(entries(dir.path()), QStringList({"fresh", "target"}));
}

void TestTensorFile::failedRenameRemovesTempFile_data() {
    addWriterRows();
}

void TestTensorFile::failedRenameRemovesTempFile() {
    // The target is a non-empty directory: everything succeeds up to the
    // rename, which must then clean up its temporary file.
    QFETCH(QString, writer);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("target/inside"));
    const fs::path target = dir.filePath("target").toStdString();
    HWL_VERIFY_THROWS(writeWith(writer, target), hwl::InputError, "\"" + target.string() + "\"");
    QCOMPARE(entries(dir.path()), QStringList{"target"});
    QCOMPARE(entries(dir.filePath("target")), QStringList{"inside"});
}

QTEST_GUILESS_MAIN(TestTensorFile)
#include "tst_tensorfile.moc"
