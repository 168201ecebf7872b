// Tests for the file loaders of core/datasources: IDX (raw and gzip), CSV and
// LIBSVM, valid and malformed. Fixtures are written into a QTemporaryDir.
#include "config/preflight.h"
#include "data/datasources.h"
#include "datasetchecks.h"
#include "testutil.h"
#include "util/errors.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <sys/resource.h>
#include <sys/stat.h>

using namespace hwl;
using hwl::test::checkCsr;
using hwl::test::gzipStored;
using hwl::test::writeBytes;

namespace {

QByteArray be32(quint32 v) {
    QByteArray b(4, '\0');
    for (int i = 0; i < 4; ++i)
        b[i] = char((v >> (24 - 8 * i)) & 0xFF);
    return b;
}

QByteArray idxImages(quint32 n, quint32 h, quint32 w, qsizetype pixelBytes = -1) {
    QByteArray b = be32(0x803) + be32(n) + be32(h) + be32(w);
    const qsizetype count = pixelBytes >= 0 ? pixelBytes : qsizetype(n) * h * w;
    for (qsizetype i = 0; i < count; ++i)
        b.append(char((i * 37) % 256));
    return b;
}

QByteArray idxLabels(const QList<int>& labels) {
    QByteArray b = be32(0x801) + be32(quint32(labels.size()));
    for (int l : labels)
        b.append(char(l));
    return b;
}

} // namespace

class TestDatasourceFiles : public QObject, public hwl::test::Fixtures {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // --- IDX ------------------------------------------------------------------

    void idxValid_data() {
        QTest::addColumn<bool>("gzImages");
        QTest::addColumn<bool>("gzLabels");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("raw") << false << false << "";
        QTest::newRow("gzip") << true << true << ".gz";
        QTest::newRow("gzip without .gz name") << true << false << ".bin";
    }
    void idxValid() {
        QFETCH(bool, gzImages);
        QFETCH(bool, gzLabels);
        QFETCH(QString, suffix);
        const QByteArray images = idxImages(4, 2, 3);
        const QByteArray labels = idxLabels({0, 3, 12, 1});
        const auto ip = file("img" + suffix, gzImages ? gzipStored(images) : images);
        const auto lp = file("lab" + suffix, gzLabels ? gzipStored(labels) : labels);
        const Dataset ds = loadIdx(ip, lp);
        QCOMPARE(ds.rows, std::int64_t(4));
        QCOMPARE(ds.dim, std::int64_t(6));
        QCOMPARE(ds.numClasses, 13); // a label above 9: max label + 1
        QCOMPARE(ds.labels, (std::vector<std::int32_t>{0, 3, 12, 1}));
        for (int i = 0; i < 24; ++i)
            QCOMPARE(ds.dense[std::size_t(i)], float(quint8(images[16 + i])) / 255.0f);
        const Dataset ten = loadIdx(ip, file("lab10", idxLabels({0, 1, 2, 3})));
        QCOMPARE(ten.numClasses, 10);
    }

    void idxMalformed_data() {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("needle");
        const QByteArray img = idxImages(3, 2, 2), lab = idxLabels({0, 1, 2});
        QTest::newRow("images magic is labels")
            << lab << lab
            << "has magic 0x00000801, expected 0x00000803 (uint8 images, N x H x W); "
               "that is the magic of an IDX labels file";
        QTest::newRow("labels magic wrong")
            << img << (be32(0x12345678) + lab.mid(4))
            << "has magic 0x12345678, expected 0x00000801 (uint8 labels, N)";
        QTest::newRow("images truncated") << img.left(img.size() - 2) << lab
                                          << "holds 10 bytes of pixel data, header promises 12";
        QTest::newRow("images truncated gz") << gzipStored(img.left(img.size() - 2)) << lab
                                             << "holds 10 bytes of pixel data, header promises 12";
        QTest::newRow("gzip stream truncated") << gzipStored(img).left(gzipStored(img).size() - 12)
                                               << lab << "is truncated: its gzip stream ends early";
        QTest::newRow("gzip corrupt") << (gzipStored(img).left(14) + QByteArray(20, 'x')) << lab
                                      << "is not a valid gzip file";
        QTest::newRow("labels truncated")
            << img << lab.left(lab.size() - 1) << "holds 2 bytes of label data, header promises 3";
        QTest::newRow("trailing bytes") << (img + "zz") << lab << "2 trailing bytes";
        QTest::newRow("count mismatch")
            << img << idxLabels({0, 1}) << "holds 3 images but labels file";
        QTest::newRow("empty images") << QByteArray() << lab << "is empty; expected an IDX header";
        QTest::newRow("short header")
            << img.left(9) << lab << "is truncated: it holds 9 bytes, the header alone needs 16";
        QTest::newRow("zero images") << idxImages(0, 28, 28) << idxLabels({}) << "holds 0 images";
        QTest::newRow("2^32 x 2^32 pixels")
            << idxImages(1, 0xFFFFFFFFu, 0xFFFFFFFFu, 8) << idxLabels({1})
            << "holds 8 bytes of pixel data, header promises 18446744065119617025";
    }
    void idxMalformed() {
        QFETCH(QByteArray, images);
        QFETCH(QByteArray, labels);
        QFETCH(QString, needle);
        const auto ip = file("bad-images", images), lp = file("bad-labels", labels);
        HWL_VERIFY_THROWS(loadIdx(ip, lp), InputError, needle.toStdString());
        HWL_VERIFY_THROWS(loadIdx(ip, lp), InputError, "\"" + tmp_.path().toStdString());
    }

    void idxHugeHeaderFailsFast() {
        // 2^20 images of 1024 x 1024: 2^40 bytes promised, 100 delivered.
        QElapsedTimer t;
        t.start();
        for (bool gz : {false, true}) {
            const QByteArray img = idxImages(1u << 20, 1024, 1024, 100);
            const auto ip = file("huge", gz ? gzipStored(img) : img);
            const auto lp = file("huge-labels", idxLabels({0}));
            HWL_VERIFY_THROWS(loadIdx(ip, lp), InputError,
                              "holds 100 bytes of pixel data, header promises 1099511627776");
        }
        QVERIFY2(t.elapsed() < 2000, "must fail from the header, not allocate");
    }

    // A gzip bomb: 300 MB of zeros behind a header that promises 2^40
    // pixels, 300 KB on disk. Refused after at most 64 MiB inflated (it used
    // to grow to gigabytes first).
    void idxGzipBombIsBounded() {
        const QString bomb = tmp_.filePath("bomb-images.gz");
        QProcess sh;
        sh.start("/bin/bash",
                 {"-c",
                  "(printf '\\x00\\x00\\x08\\x03\\x00\\x10\\x00\\x00\\x00\\x00\\x04\\x00"
                  "\\x00\\x00\\x04\\x00'; head -c 300000000 /dev/zero) | gzip -1 > \"$0\"",
                  bomb});
        QVERIFY(sh.waitForFinished(120000) && sh.exitCode() == 0);
        rusage before{};
        getrusage(RUSAGE_SELF, &before);
        HWL_VERIFY_THROWS(loadIdx(bomb.toStdString(), file("bomb-labels", idxLabels({0}))),
                          InputError, "decompresses to more than 67108880 bytes");
        rusage after{};
        getrusage(RUSAGE_SELF, &after);
        const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
        QVERIFY2(grownMiB < 256, qPrintable(QString::number(grownMiB) + " MiB"));
    }

    // Text is read a chunk at a time: 150 MB of blank lines behind 150 KB
    // of gzip cost the parsed rows, not the text (it used to be held whole,
    // so a 3 MB gzip CSV grew to gigabytes before it was refused).
    void textGzipBombIsStreamed_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << "csv";
        QTest::newRow("libsvm") << "libsvm";
    }
    void textGzipBombIsStreamed() {
        QFETCH(QString, format);
        const QString bomb = tmp_.filePath("bomb." + format + ".gz");
        const QString rows = format == "csv" ? "label,a,b\\n1,0.5,0.25\\n" : "1 1:0.5 2:0.25\\n";
        const QString last = format == "csv" ? "0,1,2\\n" : "0 1:1 2:2\\n";
        QProcess sh;
        sh.start("/bin/bash", {"-c",
                               "(printf \"$1\"; head -c 150000000 /dev/zero | tr '\\0' '\\n'; "
                               "printf \"$2\") | gzip -1 > \"$0\"",
                               bomb, rows, last});
        QVERIFY(sh.waitForFinished(120000) && sh.exitCode() == 0);
        rusage before{};
        getrusage(RUSAGE_SELF, &before);
        const Dataset ds =
            format == "csv" ? loadCsv(bomb.toStdString()) : loadLibsvm(bomb.toStdString());
        rusage after{};
        getrusage(RUSAGE_SELF, &after);
        QCOMPARE(ds.rows, std::int64_t(2));
        QCOMPARE(ds.labels, (std::vector<std::int32_t>{1, 0}));
        const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
        QVERIFY2(grownMiB < 64, qPrintable(QString::number(grownMiB) + " MiB"));
    }

    // A "line" of 70 MB (no newline, gzip makes it 70 KB) is refused at
    // 64 MiB, before the buffer grows further.
    void endlessLineIsRefused() {
        const QString path = tmp_.filePath("endless.csv.gz");
        QProcess sh;
        sh.start("/bin/bash",
                 {"-c", "head -c 70000000 /dev/zero | tr '\\0' '7' | gzip -1 > \"$0\"", path});
        QVERIFY(sh.waitForFinished(60000) && sh.exitCode() == 0);
        HWL_VERIFY_THROWS(loadCsv(path.toStdString()), InputError,
                          "line 1 is longer than 64 MiB; is this a text file with one row per "
                          "line?");
    }

    void idxDirectory() {
        const auto dir = subdir("idxdir");
        const auto put = [&](const char* name, const QByteArray& b) {
            writeBytes(QString::fromStdString((dir / name).string()), b);
        };
        put("train-images-idx3-ubyte", idxImages(10, 2, 2));
        put("train-labels-idx1-ubyte.gz", gzipStored(idxLabels({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})));
        DatasetSpec spec = parseDatasetSpec("idx:" + dir.string());
        const DatasetSplit noTest = loadDataset(spec, 0.3, 5);
        QCOMPARE(noTest.train.rows, std::int64_t(7));
        QCOMPARE(noTest.test.rows, std::int64_t(3));
        put("t10k-images-idx3-ubyte.gz", gzipStored(idxImages(4, 2, 2)));
        HWL_VERIFY_THROWS(loadDataset(spec, 0.3, 5), InputError,
                          "lacks t10k-labels-idx1-ubyte[.gz]");
        put("t10k-labels-idx1-ubyte", idxLabels({1, 1, 2, 11}));
        const DatasetSplit withTest = loadDataset(spec, 0.3, 5);
        QCOMPARE(withTest.train.rows, std::int64_t(10));
        QCOMPARE(withTest.test.rows, std::int64_t(4));
        QCOMPARE(withTest.train.numClasses, 12);
        QCOMPARE(withTest.test.numClasses, 12);
        QCOMPARE(QString::fromStdString(withTest.train.description),
                 QString::fromStdString("idx:" + dir.string() + " train (10 x 4, 12 classes)"));
        spec.path = dir / "nowhere";
        HWL_VERIFY_THROWS(loadDataset(spec, 0.0, 5), InputError, "nowhere\" does not exist");
        spec.path = subdir("emptyidx");
        HWL_VERIFY_THROWS(loadDataset(spec, 0.0, 5), InputError,
                          "lacks train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz]; put");
    }

    // Anything but a regular file is refused before it is read (a FIFO
    // would block forever, /dev/zero never end), naming what it is.
    void notRegularFilesAreRefused() {
        const QString fifo = tmp_.filePath("fifo");
        QCOMPARE(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const std::filesystem::path f = fifo.toStdString();
        HWL_VERIFY_THROWS(loadCsv(f), InputError,
                          "csv file \"" + f.string() +
                              "\" is a FIFO (named pipe), not a regular file; give the path of "
                              "the data file itself");
        HWL_VERIFY_THROWS(loadLibsvm(f), InputError, "is a FIFO (named pipe), not a regular file");
        HWL_VERIFY_THROWS(loadCsv("/dev/zero"), InputError,
                          "\"/dev/zero\" is a character device, not a regular file");
        HWL_VERIFY_THROWS(loadLibsvm(subdir("adir")), InputError,
                          "is a directory, not a regular file");
        const auto dir = subdir("idxfifo");
        QCOMPARE(mkfifo((dir / "train-images-idx3-ubyte").c_str(), 0600), 0);
        writeBytes(QString::fromStdString((dir / "train-labels-idx1-ubyte").string()),
                   idxLabels({0, 1}));
        HWL_VERIFY_THROWS(loadDataset(parseDatasetSpec("idx:" + dir.string()), 0.0, 5), InputError,
                          "IDX file \"" + (dir / "train-images-idx3-ubyte").string() +
                              "\" is a FIFO (named pipe), not a regular file");
    }

    // A UTF-8 byte-order mark (Windows editors write one) is skipped: the
    // first row is data, not a header.
    void byteOrderMarkIsSkipped() {
        const Dataset csv = loadCsv(file("bom.csv", "\xEF\xBB\xBF"
                                                    "0,1,2\n1,3,4\n0,5,6\n1,7,8\n"));
        QCOMPARE(csv.rows, std::int64_t(4));
        const Dataset svm = loadLibsvm(file("bom.svm", "\xEF\xBB\xBF"
                                                       "1 1:0.5\n0 2:1.5\n"));
        QCOMPARE(svm.rows, std::int64_t(2));
    }

    // --- CSV ------------------------------------------------------------------

    void csvValid_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("dim");
        QTest::addColumn<int>("classes");
        QTest::addColumn<QList<float>>("firstRow");
        QTest::addColumn<QList<int>>("labels");
        QTest::newRow("plain") << QByteArray("0,1.5,2\n1,3,4\n2,5,6\n") << 3LL << 2LL << 3
                               << QList<float>{1.5f, 2} << QList<int>{0, 1, 2};
        QTest::newRow("header") << QByteArray("label,a,b\n0,1,2\n1,3,4\n") << 2LL << 2LL << 2
                                << QList<float>{1, 2} << QList<int>{0, 1};
        QTest::newRow("crlf and trailing blank lines")
            << QByteArray("y,x\r\n1,0.25\r\n0,-3\r\n\r\n\r\n") << 2LL << 1LL << 2
            << QList<float>{0.25f} << QList<int>{1, 0};
        QTest::newRow("spaces, signs, exponents, no final newline")
            << QByteArray(" 1 , 1e-3 , -2.5\n0,+1,3e2\n4.0,1e-60,0") << 3LL << 2LL << 5
            << QList<float>{1e-3f, -2.5f} << QList<int>{1, 0, 4};
        QTest::newRow("gzip") << gzipStored("1,2\n0,3\n") << 2LL << 1LL << 2 << QList<float>{2}
                              << QList<int>{1, 0};
    }
    void csvValid() {
        QFETCH(QByteArray, content);
        QFETCH(qint64, rows);
        QFETCH(qint64, dim);
        QFETCH(int, classes);
        QFETCH(QList<float>, firstRow);
        QFETCH(QList<int>, labels);
        const Dataset ds = loadCsv(file("ok.csv", content));
        QCOMPARE(ds.rows, rows);
        QCOMPARE(ds.dim, dim);
        QCOMPARE(ds.numClasses, classes);
        QCOMPARE(qint64(ds.dense.size()), rows * dim);
        for (qsizetype i = 0; i < firstRow.size(); ++i)
            QCOMPARE(ds.dense[std::size_t(i)], firstRow[i]);
        QCOMPARE(QList<int>(ds.labels.begin(), ds.labels.end()), labels);
    }

    void csvMalformed_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("needle");
        QTest::newRow("column count")
            << QByteArray("0,1,2,3,4,5\n1,1,2,3,4,5\n0,1,2,3,4,5\n0,1,2,3,4,5\n0,1,2,3,4,5\n"
                          "0,1,2,3,4,5\n1,1,2,3,4\n")
            << "line 7 has 5 columns, line 1 has 6";
        QTest::newRow("NaN")
            << QByteArray("0,1,2\n1,3,4\n1,nan,4\n")
            << "bad.csv\", line 3, column 2: NaN is not allowed as a feature value";
        QTest::newRow("Inf") << QByteArray("0,1,-inf\n1,3,4\n")
                             << "line 1, column 3: Inf is not allowed as a feature value";
        QTest::newRow("negative label")
            << QByteArray("1,2\n-1,2\n") << "line 2, column 1: label -1 is negative";
        QTest::newRow("fractional label")
            << QByteArray("1,2\n1.5,2\n") << "line 2, column 1: label 1.5 is not an integer";
        QTest::newRow("non-numeric feature")
            << QByteArray("0,1\n1,abc\n") << "line 2, column 2: \"abc\" is not a number";
        QTest::newRow("non-numeric label")
            << QByteArray("a,b\n0,1\nx,1\n") << "line 3, column 1: label \"x\" is not a number";
        QTest::newRow("empty field")
            << QByteArray("0,,1\n") << "column 2: the feature value is empty";
        QTest::newRow("empty file") << QByteArray() << "is empty";
        QTest::newRow("blank file") << QByteArray("\n \r\n") << "is empty";
        QTest::newRow("header only") << QByteArray("label,x\n") << "has no data rows";
        QTest::newRow("one column") << QByteArray("1\n0\n") << "line 1 has 1 column";
        QTest::newRow("one class") << QByteArray("0,1\n0,2\n") << "only one class";
        QTest::newRow("float overflow")
            << QByteArray("0,1e60\n1,2\n") << "out of the range of a float";
    }
    void csvMalformed() {
        QFETCH(QByteArray, content);
        QFETCH(QString, needle);
        HWL_VERIFY_THROWS(loadCsv(file("bad.csv", content)), InputError, needle.toStdString());
    }

    // --- The header peek (the form's check before Start) -----------------------

    // What the first line tells, and for a file the loader refuses for what
    // the first lines show, the loader's very message.
    void csvHeaderPeek_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("features"); // -1: refused
        QTest::newRow("rows") << QByteArray("0,1,2,3\n1,2,3,4\n") << 3;
        QTest::newRow("header, blank line, BOM") << QByteArray("\xEF\xBB\xBFy,a,b\n\n0,1,2\n") << 2;
        QTest::newRow("gzip") << gzipStored("1,0.5\n0,2\n") << 1;
        QTest::newRow("a bad later row: the run's to find") << QByteArray("0,1\n1,2,3\n") << 1;
        QTest::newRow("blank file") << QByteArray("\n \r\n") << -1;
        QTest::newRow("header only") << QByteArray("label,x\n") << -1;
        QTest::newRow("one column") << QByteArray("\n1\n0\n") << -1;
    }
    void csvHeaderPeek() {
        QFETCH(QByteArray, content);
        QFETCH(int, features);
        const auto path = file(QString("peek-%1.csv").arg(qHash(content)), content);
        const DatasetSpec spec = parseDatasetSpec("csv:" + path.string());
        if (features >= 0) {
            QCOMPARE(peekDatasetShape(spec).dim, features);
            QCOMPARE(peekDatasetShape(spec).numClasses, -1); // only the whole file says
            return;
        }
        std::string loader;
        try {
            loadCsv(path);
        } catch (const InputError& e) {
            loader = e.what();
        }
        QVERIFY(!loader.empty());
        HWL_VERIFY_THROWS(peekDatasetShape(spec), InputError, loader);
    }

    void idxHeaderPeek() {
        const auto dir = subdir("peek-idx");
        file("peek-idx/train-images-idx3-ubyte.gz", gzipStored(idxImages(2, 3, 5)));
        file("peek-idx/train-labels-idx1-ubyte", idxLabels({1, 2}));
        const DatasetSpec spec = parseDatasetSpec("idx:" + dir.string());
        QCOMPARE(peekDatasetShape(spec).dim, 15);
        QCOMPARE(peekDatasetShape(spec).numClasses, 10); // loadIdx's least
        // A model whose output is narrower is refused before loading.
        ExperimentConfig c;
        c.model = "mlp:15-4";
        c.dataset = "idx:" + dir.string();
        const auto issues = checkBeforeLoading(c);
        QCOMPARE(issues.size(), std::size_t(1));
        QVERIFY2(issues[0].message.find("make the model's last width at least 10") !=
                     std::string::npos,
                 issues[0].message.c_str());
        // Swapped files: the loader's message.
        file("peek-idx/train-images-idx3-ubyte.gz", idxLabels({1, 2}));
        HWL_VERIFY_THROWS(peekDatasetShape(spec), InputError, "are the two files swapped?");
        QDir(QString::fromStdString(dir.string())).removeRecursively();
        subdir("peek-idx");
        HWL_VERIFY_THROWS(peekDatasetShape(spec), InputError, "lacks train-images-idx3-ubyte[.gz]");
    }

    /// The peek reads a file again only when its time or size changed:
    /// typing into the form does not re-read it at each keystroke.
    void headerPeekIsCachedByPathAndTime() {
        namespace fs = std::filesystem;
        const auto path = file("cached.csv", "0,1,23\n");
        const DatasetSpec spec = parseDatasetSpec("csv:" + path.string());
        QCOMPARE(peekDatasetShape(spec).dim, 2);
        const auto written = fs::last_write_time(path);
        file("cached.csv", "0,1,2,3"); // the same size, 3 features
        fs::last_write_time(path, written);
        QCOMPARE(peekDatasetShape(spec).dim, 2); // the cached header
        fs::last_write_time(path, written + std::chrono::seconds(2));
        QCOMPARE(peekDatasetShape(spec).dim, 3);
    }

    // --- LIBSVM ---------------------------------------------------------------

    void libsvmValid() {
        const Dataset ds = loadLibsvm(
            file("ok.svm",
                 "# comment line\n1 1:0.5 3:2 # trailing comment\r\n0 2:-1\n\n2\n1\t7:1e-2\n"));
        checkCsr(ds);
        QCOMPARE(ds.rows, std::int64_t(4));
        QCOMPARE(ds.dim, std::int64_t(7));
        QCOMPARE(ds.numClasses, 3);
        QCOMPARE(ds.offsets, (std::vector<std::int64_t>{0, 2, 3, 3, 4}));
        QCOMPARE(ds.indices, (std::vector<std::int32_t>{0, 2, 1, 6}));
        QCOMPARE(ds.values, (std::vector<float>{0.5f, 2.0f, -1.0f, 0.01f}));
        QCOMPARE(ds.labels, (std::vector<std::int32_t>{1, 0, 2, 1}));
    }

    void libsvmMinusOnePlusOne() {
        const Dataset ds = loadLibsvm(file("pm.svm", "-1 1:1\n+1 2:1\n-1 3:1\n1 1:2\n"));
        QCOMPARE(ds.labels, (std::vector<std::int32_t>{0, 1, 0, 1}));
        QCOMPARE(ds.numClasses, 2);
    }

    void libsvmMalformed_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("needle");
        QTest::newRow("index 0") << QByteArray("1 1:1\n0 2:1\n1 0:1\n")
                                 << "line 3, column 3: index 0 is not allowed";
        QTest::newRow("decreasing")
            << QByteArray("1 3:1 2:1\n")
            << "line 1, column 7: index 2 is not greater than the previous 3";
        QTest::newRow("repeated") << QByteArray("1 3:1 3:1\n") << "index 3 is not greater";
        QTest::newRow("NaN") << QByteArray("1 1:nan\n")
                             << "line 1, column 5: NaN is not allowed as a feature value";
        QTest::newRow("Inf") << QByteArray("1 1:inf\n") << "Inf is not allowed";
        QTest::newRow("bad token") << QByteArray("1 abc\n") << "token \"abc\" is not INDEX:VALUE";
        QTest::newRow("bad index") << QByteArray("1 x:1\n") << "index \"x\" is not a positive";
        QTest::newRow("bad value") << QByteArray("1 2:y\n") << "\"y\" is not a number";
        QTest::newRow("empty") << QByteArray() << "has no data rows";
        QTest::newRow("comments only") << QByteArray("# x\n\n") << "has no data rows";
        QTest::newRow("label not integer")
            << QByteArray("0.5 1:1\n") << "line 1, column 1: label 0.5 is not an integer";
        QTest::newRow("label not a number") << QByteArray("yes 1:1\n") << "is not a number";
        QTest::newRow("-1 with 0")
            << QByteArray("1 1:1\n-1 1:1\n0 2:1\n")
            << "line 2: label -1 is negative; labels must be integers >= 0, or exactly the pair "
               "-1/+1, but line 3 has label 0";
        QTest::newRow("only -1") << QByteArray("-1 1:1\n") << "every label is -1";
        QTest::newRow("-2") << QByteArray("-2 1:1\n") << "label -2 is negative";
        QTest::newRow("no features") << QByteArray("0\n1\n") << "has no features";
        QTest::newRow("one class") << QByteArray("0 1:1\n0 2:1\n") << "only one class";
    }
    void libsvmMalformed() {
        QFETCH(QByteArray, content);
        QFETCH(QString, needle);
        HWL_VERIFY_THROWS(loadLibsvm(file("bad.svm", content)), InputError, needle.toStdString());
    }
};

QTEST_GUILESS_MAIN(TestDatasourceFiles)
#include "tst_datasourcefiles.moc"
