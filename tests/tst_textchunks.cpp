// Tests for the text readers' chunked, parallel parse (core/data/textchunks.h):
// whatever the chunk size and the thread count, a CSV or LIBSVM file loads
// to the very arrays, or fails with the very message, of the serial parse
// with the fast path off (the careful path alone, which the readers had
// before the fast one); the first problem in file order is the one named,
// with its line, whichever chunk held it; memory stays near the dataset.
// Small chunks are forced through detail::TextParse, never by timing.
#include "data/datasourceio.h"
#include "data/datasources.h"
#include "data/textfields.h"
#include "datasetchecks.h"
#include "testutil.h"
#include "util/cancel.h"
#include "util/errors.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include <sys/prctl.h>

#if defined(__SANITIZE_ADDRESS__)
#define HWL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HWL_TEST_ASAN 1
#endif
#endif

using namespace hwl;
using detail::TextParse;
using hwl::test::gzipStored;

namespace {

/// What a load gave: the dataset, or the message.
struct Outcome {
    Dataset ds;
    std::string error;
};

Outcome load(bool csv, const std::filesystem::path& file, const TextParse& how) {
    Outcome o;
    try {
        o.ds = csv ? detail::loadCsv(file, how) : detail::loadLibsvm(file, how);
    } catch (const InputError& e) {
        o.error = e.what();
    }
    return o;
}

template <class T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
    // memcmp of an empty vector's null data() is undefined (UBSan says so).
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// "" when `a` and `b` are the same outcome, else what differs.
QString difference(const Outcome& a, const Outcome& b) {
    if (a.error != b.error)
        return QString("message \"%1\" vs \"%2\"")
            .arg(QString::fromStdString(a.error), QString::fromStdString(b.error));
    const Dataset &x = a.ds, &y = b.ds;
    if (x.rows != y.rows || x.dim != y.dim || x.numClasses != y.numClasses ||
        x.description != y.description)
        return QString("shape %1 vs %2")
            .arg(QString::fromStdString(x.description), QString::fromStdString(y.description));
    if (!sameBits(x.dense, y.dense) || !sameBits(x.labels, y.labels) ||
        !sameBits(x.offsets, y.offsets) || !sameBits(x.indices, y.indices) ||
        !sameBits(x.values, y.values))
        return "the arrays differ";
    return {};
}

/// The reference: serial, one chunk, no fast path.
const TextParse kCareful{1, std::size_t(1) << 30, false};

/// The ways to parse that must agree with the reference.
std::vector<TextParse> chunkings() {
    return {{1, 1, true},  {2, 1, true},  {2, 2, true}, {1, 7, true},
            {2, 7, false}, {2, 64, true}, {0, 0, true}};
}

/// Random CSV and LIBSVM lines: plain rows, fields only the careful path
/// reads (still good), and, where `bad`, now and then a field or a line
/// that is wrong, each in its own way.
struct RandomLines {
    std::mt19937 rng;
    bool bad = false;

    int pick(int n) { return int(rng() % std::uint32_t(n)); }
    template <std::size_t N>
    const char* any(const char* const (&list)[N]) {
        return list[pick(int(N))];
    }
    bool now(int percent) { return pick(100) < percent; }

    std::string csvField(bool label) {
        static const char* const goodLabels[] = {"1.0", "+1", "-0", "007", " 2 ", "\t1", "2e0"};
        static const char* const goodValues[] = {"1e1",   "+1",  "-0",   "-2.5e-3", " 4 ", "\t5",
                                                 "1e-50", "007", "0.25", "3.",      ".5",  "1E2"};
        static const char* const badLabels[] = {"-1", "1.5", "100000", "y", "", "nan"};
        static const char* const badValues[] = {"nan",  "inf", "",     "abc",  "+-1",
                                                "0x10", "1 2", "1e60", "-inf", "1e"};
        if (bad && now(3))
            return label ? any(badLabels) : any(badValues);
        if (now(10))
            return label ? any(goodLabels) : any(goodValues);
        return label ? std::to_string(pick(3))
                     : std::to_string(pick(1000) - 500) + "." + std::to_string(pick(1000));
    }
    std::string csvLine(int columns) {
        if (now(4))
            return now(50) ? "" : " \t";
        if (bad && now(2))
            columns += now(50) ? 1 : -1;
        std::string line;
        for (int c = 0; c < columns; ++c)
            line += (c ? "," : "") + csvField(c == 0);
        return line;
    }
    std::string libsvmLine(bool binary) {
        static const char* const goodValues[] = {"+1", "1e-50", "-0", "1e1", "7", ".5"};
        static const char* const badTokens[] = {"0:1",    "x:1", ":1", "1:2:3", "2:nan", "3:inf",
                                                "4:1e60", "abc", "5:", "-3:1",  "1:1"};
        static const char* const badLabels[] = {"0.5", "x", "-2", "100000"};
        if (now(4))
            return now(50) ? "" : "# a comment";
        std::string line = bad && now(3) ? any(badLabels)
                           : binary      ? (now(50)   ? "-1"
                                            : now(50) ? "+1"
                                                      : "1")
                                         : std::to_string(pick(3));
        int index = 0;
        for (int n = pick(6); n > 0; --n) {
            index += 1 + pick(3);
            const std::string value = now(10) ? any(goodValues) : std::to_string(pick(100));
            line += (now(90) ? " " : "\t") + std::to_string(index) + ":" + value;
            if (bad && now(3))
                line += std::string(" ") + any(badTokens);
        }
        if (now(10))
            line += " # trailing";
        return line;
    }
};

/// A random file of 1 to 40 lines, "\n" or "\r\n" ended, the last one maybe
/// not; a CSV file may start with a header line.
QByteArray randomText(bool csv, RandomLines& r) {
    const int lines = 1 + r.pick(40);
    const int columns = 2 + r.pick(3);
    const bool binary = r.now(30);
    std::string text = csv && r.now(30) ? "label,x,y,z\n" : "";
    for (int i = 0; i < lines; ++i) {
        text += csv ? r.csvLine(columns) : r.libsvmLine(binary);
        if (i + 1 < lines || r.now(50))
            text += r.now(80) ? "\n" : "\r\n";
    }
    return QByteArray::fromStdString(text);
}

/// `rows` good CSV rows "label,f,f,f" (label = row % 3).
QByteArray goodCsv(int rows) {
    QByteArray text;
    for (int r = 0; r < rows; ++r)
        text += QByteArray::number(r % 3) + "," + QByteArray::number(r) + ".5,-" +
                QByteArray::number(r % 17) + ",1e-3\n";
    return text;
}

/// `rows` CSV rows all of one length, so that the row count the loader
/// estimates from the first chunks holds for the whole file.
QByteArray evenCsv(int rows) {
    QByteArray text;
    for (int r = 0; r < rows; ++r)
        text += QByteArray::number(r % 3) + "," + QByteArray::number(100000 + r % 900000) + ".5,-" +
                QByteArray::number(10 + r % 89) + ",1e-3\n";
    return text;
}

/// Resets the process's peak resident size (VmHWM) to its resident size
/// now; false where the kernel does not let it.
bool resetPeakMemory() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    const bool written = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && written;
}

/// A "Vm...:" line of /proc/self/status, in KiB; -1 if absent.
long procStatusKiB(const char* key) {
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(qsizetype(std::strlen(key))).trimmed().split(' ').value(0).toLong();
    return -1;
}

/// Replaces line `lineNo` (1-based) of `text` with `line`.
QByteArray withLine(QByteArray text, int lineNo, const QByteArray& line) {
    qsizetype start = 0;
    for (int i = 1; i < lineNo; ++i)
        start = text.indexOf('\n', start) + 1;
    const qsizetype end = text.indexOf('\n', start);
    return text.replace(start, end - start, line);
}

} // namespace

class TestTextChunks : public QObject, public hwl::test::Fixtures {
    Q_OBJECT

    /// QVERIFYs that every chunking loads `content` as the reference does.
    void checkAgrees(bool csv, const QByteArray& content, const QString& name) {
        const auto path = file(csv ? "t.csv" : "t.svm", content);
        const Outcome reference = load(csv, path, kCareful);
        for (const TextParse& how : chunkings()) {
            const QString diff = difference(load(csv, path, how), reference);
            QVERIFY2(diff.isEmpty(), qPrintable(QString("%1, %2 thread(s), %3-byte chunks: %4")
                                                    .arg(name)
                                                    .arg(how.threads)
                                                    .arg(how.chunkBytes)
                                                    .arg(diff)));
        }
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // A file of many chunks, parsed on two threads, peaks at the dataset
    // and the chunks in flight, not at the text or at copies of the rows;
    // the arrays are reserved once (for the whole file, from its size), not
    // doubled. The peak is the kernel's (VmHWM), reset just before the load,
    // so whatever the process touched earlier does not hide or add to it.
    void memoryStaysNearTheDataset() {
        const int rows = 1200000; // about 23 MiB of text, 18 MiB of rows
        const auto path = file("big.csv", evenCsv(rows));
#ifdef HWL_TEST_ASAN
        QSKIP("AddressSanitizer's redzones and quarantine are not the loader's memory");
#endif
        // Huge pages (THP "always" on some machines) would round each
        // mapping up to 2 MiB: count the pages the loader touches.
        prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
        if (!resetPeakMemory())
            QSKIP("cannot reset the peak memory here (/proc/self/clear_refs is not writable)");
        const double startMiB = double(procStatusKiB("VmRSS:")) / 1024;
        const Dataset ds = detail::loadCsv(path, TextParse{2, 0, true});
        const double grownMiB = double(procStatusKiB("VmHWM:")) / 1024 - startMiB;
        QCOMPARE(ds.rows, std::int64_t(rows));
        const double rowsMiB = double(ds.dense.size() * 4 + ds.labels.size() * 4) / (1 << 20);
        // In flight: 2 * threads + 2 chunks of 1 MiB of text and their parsed
        // floats (1.5 MiB each); the threads' stacks, pools and malloc arenas
        // (which keep what they freed); the arrays reserved from an estimate
        // and touched only as far as filled. Beyond the rows, 6-8 MiB here
        // when calm and 13.9 MiB once on a busy 2-core CI machine: 15 MiB.
        const double inFlightMiB = (2 * 2 + 2) * 1.5 + 6;
        const double textMiB =
            double(QFileInfo(QString::fromStdString(path.string())).size()) / (1 << 20);
        QVERIFY(textMiB > 0.1 * rowsMiB + inFlightMiB); // holding the text would fail
        QVERIFY2(grownMiB < 1.1 * rowsMiB + inFlightMiB,
                 qPrintable(QString("grew %1 MiB for %2 MiB of rows").arg(grownMiB).arg(rowsMiB)));
        QVERIFY2(double(ds.dense.capacity()) < 1.25 * double(ds.dense.size()),
                 qPrintable(QString::number(ds.dense.capacity())));
        QCOMPARE(difference(Outcome{ds, {}}, load(true, path, kCareful)), QString());
    }

    void fixedFilesAgree_data() {
        QTest::addColumn<bool>("csv");
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("csv plain") << true << QByteArray("0,1.5,2\n1,3,4\n2,5,6\n");
        QTest::newRow("csv header, CRLF, blank lines")
            << true << QByteArray("\r\n\ny,x\r\n1,0.25\r\n\r\n0,-3\r\n\r\n\r\n");
        QTest::newRow("csv no final newline") << true << QByteArray("1,2\n0,3");
        QTest::newRow("csv BOM") << true
                                 << QByteArray("\xEF\xBB\xBF"
                                               "0,1,2\n1,3,4\n");
        QTest::newRow("csv gzip") << true << gzipStored(goodCsv(300));
        QTest::newRow("csv careful fields")
            << true << QByteArray(" 1 , 1e-3 , -2.5\n0,+1,3e2\n4.0,1e-60,0\n");
        QTest::newRow("csv bad late") << true << withLine(goodCsv(50), 41, "1,2,nan,4");
        QTest::newRow("csv columns late") << true << withLine(goodCsv(50), 33, "1,2,3");
        QTest::newRow("csv header only") << true << QByteArray("\n\nlabel,x\n\n");
        QTest::newRow("csv blank") << true << QByteArray("\n \r\n\n");
        QTest::newRow("csv one column late") << true << QByteArray("\n\n\n\n\n\n\n\n7\n0\n");
        QTest::newRow("svm valid")
            << false << QByteArray("# c\n1 1:0.5 3:2 # t\r\n0 2:-1\n\n2\n1\t7:1e-2");
        QTest::newRow("svm -1/+1") << false << QByteArray("-1 1:1\n+1 2:1\n-1 3:1\n1 1:2\n");
        QTest::newRow("svm -1 with 0 far apart")
            << false << QByteArray("1 1:1\n\n\n\n\n-1 1:1\n\n\n\n1 4:1\n\n\n0 2:1\n");
        QTest::newRow("svm bad late") << false << QByteArray("1 1:1\n0 2:1\n1 3:1\n1 2:1 2:1\n");
    }
    void fixedFilesAgree() {
        QFETCH(bool, csv);
        QFETCH(QByteArray, content);
        checkAgrees(csv, content, QTest::currentDataTag());
    }

    // Random files, mostly good, each bad line a different problem: every
    // chunking agrees with the careful serial parse, data or message.
    void randomFilesAgree() {
        RandomLines r{std::mt19937(20261203)};
        int loaded = 0;
        for (int i = 0; i < 600; ++i) {
            const bool csv = i % 2 == 0;
            r.bad = i % 4 >= 2;
            const QByteArray text = randomText(csv, r);
            checkAgrees(csv, text, QString("file %1: %2").arg(i).arg(QString::fromUtf8(text)));
            if (QTest::currentTestFailed())
                return;
            loaded += load(csv, tmp_.filePath(csv ? "t.csv" : "t.svm").toStdString(), kCareful)
                          .error.empty();
        }
        // Both kinds of outcome, many times over.
        QVERIFY2(loaded > 150 && loaded < 450, qPrintable(QString::number(loaded)));
    }

    // The fast float reader gives std::from_chars's float and end, bit for
    // bit, on every string it takes, and it takes most plain numbers.
    void decimalFloatIsFromChars() {
        std::mt19937 rng(7);
        const auto check = [](const std::string& s) {
            float fast = 0, slow = 0;
            const char* end = s.data() + s.size();
            const char* q = detail::text::decimalFloat(s.data(), end, fast);
            if (!q)
                return false;
            const auto [p, ec] = std::from_chars(s.data(), end, slow);
            if (ec != std::errc() || p != q || std::memcmp(&fast, &slow, sizeof fast) != 0)
                QTest::qFail(qPrintable(QString("\"%1\": %2 vs from_chars %3")
                                            .arg(QString::fromStdString(s))
                                            .arg(double(fast), 0, 'g', 12)
                                            .arg(double(slow), 0, 'g', 12)),
                             __FILE__, __LINE__);
            return true;
        };
        const char alphabet[] = "0123456789.-+eE0123456789";
        for (int i = 0; i < 200000 && !QTest::currentTestFailed(); ++i) {
            std::string s(1 + rng() % 12, '0');
            for (char& c : s)
                c = alphabet[rng() % (sizeof alphabet - 1)];
            check(s);
        }
        int taken = 0;
        std::uniform_real_distribution<double> mantissa(-10, 10);
        for (int i = 0; i < 200000 && !QTest::currentTestFailed(); ++i) {
            char buf[64];
            const double x = mantissa(rng) * std::pow(10.0, int(rng() % 25) - 12);
            std::snprintf(buf, sizeof buf, i % 2 ? "%.*g" : "%.*f", int(rng() % 10), x);
            taken += check(buf);
        }
        QVERIFY2(taken > 100000, qPrintable(QString::number(taken)));
    }

    // A problem in a later chunk is named with its own line number, and of
    // two problems in different chunks the first in the file is named.
    void laterChunkNamesItsLine() {
        const QByteArray good = goodCsv(3000); // ~40 KB: 10 chunks of 4 KiB
        const TextParse small{2, 4096, true};
        const auto one = file("one.csv", withLine(good, 2500, "1,2,oops,4"));
        HWL_VERIFY_THROWS(detail::loadCsv(one, small), InputError,
                          "one.csv\", line 2500, column 3: \"oops\" is not a number");
        const auto two = file("two.csv", withLine(withLine(good, 1200, "1,2,3"), 2900, "1,x,3,4"));
        HWL_VERIFY_THROWS(detail::loadCsv(two, small), InputError,
                          "line 1200 has 3 columns, line 1 has 4");
        const auto svm = file("late.svm", QByteArray("1 1:1\n").repeated(3000) + "0 2:1 1:1\n");
        HWL_VERIFY_THROWS(detail::loadLibsvm(svm, small), InputError,
                          "line 3001, column 7: index 1 is not greater than the previous 2");
    }

    // A reading problem (a truncated gzip stream) is named only when every
    // row before it is good: a bad row ahead of it is named instead.
    void readingProblemComesInFileOrder() {
        const TextParse small{2, 512, true};
        const QByteArray bad = gzipStored(withLine(goodCsv(200000), 100, "1,2,3,?"));
        const auto early = file("early.csv.gz", bad.left(bad.size() - 2000));
        HWL_VERIFY_THROWS(detail::loadCsv(early, small), InputError,
                          "line 100, column 4: \"?\" is not a number");
        const QByteArray good = gzipStored(goodCsv(200000));
        const auto truncated = file("truncated.csv.gz", good.left(good.size() - 2000));
        HWL_VERIFY_THROWS(detail::loadCsv(truncated, small), InputError, "is truncated");
    }

    // A stop request reaches the reading, on whichever thread it runs:
    // the load stops mid-file with Cancelled.
    void stopRequestStopsTheLoad() {
        const auto path = file("stop.csv", goodCsv(20000));
        for (const int threads : {1, 2}) {
            std::atomic<int> polls{0};
            const CancelScope scope([&] { return ++polls >= 5; });
            HWL_VERIFY_THROWS(detail::loadCsv(path, TextParse{threads, 4096, true}), Cancelled,
                              "stopped while loading the data");
            QCOMPARE(polls.load(), 5); // asked a chunk at a time, and no more once stopped
        }
    }

    // A line over 64 MiB after a few rows: named with its line number,
    // whatever the chunk size.
    void longLineAfterRows() {
        const QString path = tmp_.filePath("long.csv.gz");
        QProcess sh;
        sh.start("/bin/bash", {"-c",
                               "(printf '0,1\\n\\n1,2\\n'; head -c 70000000 /dev/zero | tr '\\0' "
                               "'7') | gzip -1 > \"$0\"",
                               path});
        QVERIFY(sh.waitForFinished(60000) && sh.exitCode() == 0);
        // Chunks smaller than the limit, and one larger (the whole file).
        for (const TextParse& how : {TextParse{2, 1 << 16, true}, kCareful})
            HWL_VERIFY_THROWS(detail::loadCsv(path.toStdString(), how), InputError,
                              "line 4 is longer than 64 MiB");
    }
};

QTEST_GUILESS_MAIN(TestTextChunks)
#include "tst_textchunks.moc"
