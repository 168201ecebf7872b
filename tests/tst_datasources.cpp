// Tests for core/datasources: the --dataset spec, the synthetic generators,
// the split, loadDataset and Fashion-MNIST (file loaders: tst_datasourcefiles).
#include "data/datasources.h"
#include "datasetchecks.h"
#include "testutil.h"
#include "util/errors.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

using namespace hwl;
using hwl::test::checkCsr;
using hwl::test::writeBytes;

Q_DECLARE_METATYPE(hwl::DatasetSpec::Kind)

namespace {

/// A hand-made dataset whose row i is recognisable by its first value, i.
Dataset numbered(std::int64_t rows, bool sparse) {
    Dataset ds;
    ds.rows = rows;
    ds.dim = sparse ? rows + 1 : 3;
    ds.numClasses = 3;
    ds.description = "numbered (x)";
    if (sparse)
        ds.offsets.push_back(0);
    for (std::int64_t i = 0; i < rows; ++i) {
        if (sparse) {
            ds.indices.push_back(std::int32_t(i));
            ds.values.push_back(float(i));
            ds.offsets.push_back(std::int64_t(ds.indices.size()));
        } else {
            ds.dense.insert(ds.dense.end(), {float(i), float(2 * i), float(3 * i)});
        }
        ds.labels.push_back(std::int32_t(i % 3));
    }
    return ds;
}

/// The row ids (first value) of a `numbered` dataset, checking each row is intact.
std::vector<std::int64_t> rowIds(const Dataset& ds) {
    std::vector<std::int64_t> ids;
    for (std::int64_t r = 0; r < ds.rows; ++r) {
        std::int64_t id = 0;
        if (ds.isSparse()) {
            id = ds.indices[std::size_t(ds.offsets[std::size_t(r)])];
            if (ds.values[std::size_t(ds.offsets[std::size_t(r)])] != float(id))
                return {};
        } else {
            id = std::int64_t(ds.dense[std::size_t(r * 3)]);
            if (ds.dense[std::size_t(r * 3 + 2)] != float(3 * id))
                return {};
        }
        if (ds.labels[std::size_t(r)] != id % 3)
            return {};
        ids.push_back(id);
    }
    return ids;
}

bool sameData(const Dataset& a, const Dataset& b) {
    return a.rows == b.rows && a.dim == b.dim && a.numClasses == b.numClasses &&
           a.dense == b.dense && a.offsets == b.offsets && a.indices == b.indices &&
           a.values == b.values && a.labels == b.labels;
}

/// Training accuracy of a nearest-centroid classifier on a dense dataset.
double centroidAccuracy(const Dataset& ds) {
    const auto d = std::size_t(ds.dim);
    std::vector<double> mean(std::size_t(ds.numClasses) * d);
    std::vector<int> count(std::size_t(ds.numClasses));
    for (std::size_t r = 0; r < std::size_t(ds.rows); ++r) {
        const auto c = std::size_t(ds.labels[r]);
        ++count[c];
        for (std::size_t k = 0; k < d; ++k)
            mean[c * d + k] += ds.dense[r * d + k];
    }
    for (std::size_t i = 0; i < mean.size(); ++i)
        mean[i] /= std::max(1, count[i / d]);
    std::int64_t right = 0;
    for (std::size_t r = 0; r < std::size_t(ds.rows); ++r) {
        double best = -1e300;
        std::size_t bestClass = 0;
        for (std::size_t c = 0; c < std::size_t(ds.numClasses); ++c) {
            double score = 0;
            for (std::size_t k = 0; k < d; ++k)
                score -= (ds.dense[r * d + k] - mean[c * d + k]) *
                         (ds.dense[r * d + k] - mean[c * d + k]);
            if (score > best) {
                best = score;
                bestClass = c;
            }
        }
        right += bestClass == std::size_t(ds.labels[r]);
    }
    return double(right) / double(ds.rows);
}

} // namespace

class TestDatasources : public QObject, public hwl::test::Fixtures {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // --- spec -----------------------------------------------------------------

    void parseValid_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<DatasetSpec::Kind>("kind");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("dim");
        QTest::addColumn<int>("classes");
        QTest::addColumn<qint64>("extra"); // hidden or tokens
        QTest::addColumn<QString>("path");
        using K = DatasetSpec::Kind;
        QTest::newRow("random") << "random:10000x100:10"
                                << "random:10000x100:10" << K::Random << 10000LL << 100LL << 10
                                << 0LL << "";
        QTest::newRow("random bounds") << "random:100000000x21:100000"
                                       << "random:100000000x21:100000" << K::Random << 100000000LL
                                       << 21LL << 100000 << 0LL << "";
        QTest::newRow("random max dim")
            << "random:1x10000000:2"
            << "random:1x10000000:2" << K::Random << 1LL << 10000000LL << 2 << 0LL << "";
        QTest::newRow("teacher default hidden")
            << "teacher:500x20:3"
            << "teacher:500x20:3:32" << K::Teacher << 500LL << 20LL << 3 << 32LL << "";
        QTest::newRow("teacher hidden")
            << "teacher:500x20:3:100000"
            << "teacher:500x20:3:100000" << K::Teacher << 500LL << 20LL << 3 << 100000LL << "";
        QTest::newRow("sparse-bow default tokens")
            << "sparse-bow:1000x5000:4"
            << "sparse-bow:1000x5000:4:20" << K::SparseBow << 1000LL << 5000LL << 4 << 20LL << "";
        QTest::newRow("sparse-bow big, not dense-bounded")
            << "sparse-bow:100000000x10000000:2:1"
            << "sparse-bow:100000000x10000000:2:1" << K::SparseBow << 100000000LL << 10000000LL << 2
            << 1LL << "";
        QTest::newRow("fashion-mnist")
            << "fashion-mnist"
            << "fashion-mnist" << K::FashionMnist << 10000LL << 100LL << 10 << 0LL << "";
        QTest::newRow("idx") << "idx:/data/mnist"
                             << "idx:/data/mnist" << K::Idx << 10000LL << 100LL << 10 << 0LL
                             << "/data/mnist";
        QTest::newRow("csv with colon")
            << "csv:a:b.csv"
            << "csv:a:b.csv" << K::Csv << 10000LL << 100LL << 10 << 0LL << "a:b.csv";
        QTest::newRow("libsvm") << "libsvm:/tmp/x.svm"
                                << "libsvm:/tmp/x.svm" << K::Libsvm << 10000LL << 100LL << 10 << 0LL
                                << "/tmp/x.svm";
    }
    void parseValid() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QFETCH(DatasetSpec::Kind, kind);
        QFETCH(qint64, rows);
        QFETCH(qint64, dim);
        QFETCH(int, classes);
        QFETCH(qint64, extra);
        QFETCH(QString, path);
        const DatasetSpec s = parseDatasetSpec(text.toStdString());
        QCOMPARE(s.kind, kind);
        QCOMPARE(s.rows, rows);
        QCOMPARE(s.dim, dim);
        QCOMPARE(s.classes, classes);
        if (kind == DatasetSpec::Kind::Teacher)
            QCOMPARE(s.hidden, extra);
        if (kind == DatasetSpec::Kind::SparseBow)
            QCOMPARE(s.tokens, extra);
        QCOMPARE(QString::fromStdString(s.path.string()), path);
        QCOMPARE(QString::fromStdString(toString(s)), canonical);
        QVERIFY(parseDatasetSpec(toString(s)) == s);
    }

    void parseInvalid_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("needle");
        QTest::newRow("brief example")
            << "random:10x"
            << "dataset: \"random:10x\" is not valid: expected random:ROWSxDIM:CLASSES, e.g. "
               "random:10000x100:10";
        QTest::newRow("empty") << ""
                               << "dataset: the value is empty; expected one of random:";
        QTest::newRow("unknown kind")
            << "foo:1"
            << "dataset: \"foo:1\" is not valid: unknown kind \"foo\"; expected one of "
               "random:ROWSxDIM:CLASSES, teacher:ROWSxDIM:CLASSES[:HIDDEN], "
               "sparse-bow:ROWSxVOCAB:CLASSES[:TOKENS], fashion-mnist, idx:DIR, csv:FILE, "
               "libsvm:FILE";
        QTest::newRow("kind is case-sensitive") << "Random:1x1:2"
                                                << "unknown kind \"Random\"";
        QTest::newRow("bare random") << "random"
                                     << "expected random:ROWSxDIM:CLASSES";
        QTest::newRow("random extra field") << "random:10x10:10:5"
                                            << "is not valid: expected random:ROWSxDIM:CLASSES";
        QTest::newRow("no x") << "random:100:10"
                              << "is not valid: expected random:";
        QTest::newRow("rows 0") << "random:0x10:10"
                                << "ROWS must be from 1 to 100000000 (got 0); expected "
                                   "random:ROWSxDIM:CLASSES, e.g. random:10000x100:10";
        QTest::newRow("rows too many") << "random:100000001x1:2"
                                       << "ROWS must be from 1 to 100000000 (got 100000001)";
        QTest::newRow("rows overflow") << "random:99999999999999999999x1:2"
                                       << "ROWS must be from 1 to 100000000";
        QTest::newRow("rows negative") << "random:-5x10:2"
                                       << "ROWS \"-5\" is not a positive integer";
        QTest::newRow("rows float") << "random:1e3x10:2"
                                    << "ROWS \"1e3\" is not a positive";
        QTest::newRow("dim 0") << "random:10x0:10"
                               << "DIM must be from 1 to 10000000 (got 0)";
        QTest::newRow("dim too big") << "teacher:1x10000001:2"
                                     << "DIM must be from 1 to 10000000";
        QTest::newRow("classes 1") << "random:10x10:1"
                                   << "CLASSES must be from 2 to 100000 (got 1)";
        QTest::newRow("classes too many") << "random:10x10:100001"
                                          << "CLASSES must be from 2 to 100000 (got 100001)";
        QTest::newRow("dense too big") << "random:100000x100000:2"
                                       << "ROWS x DIM = 10000000000 is more than 2147483648 values";
        QTest::newRow("teacher dense too big") << "teacher:2147484x1000:2"
                                               << "is more than 2147483648 values";
        QTest::newRow("hidden 0") << "teacher:10x10:2:0"
                                  << "HIDDEN must be from 1 to 100000";
        QTest::newRow("hidden big") << "teacher:10x10:2:100001"
                                    << "HIDDEN must be from 1 to";
        QTest::newRow("hidden empty") << "teacher:10x10:2:"
                                      << "HIDDEN \"\" is not a positive";
        QTest::newRow("vocab 0") << "sparse-bow:10x0:2"
                                 << "VOCAB must be from 1 to 10000000";
        QTest::newRow("tokens 0") << "sparse-bow:10x10:2:0"
                                  << "TOKENS must be from 1 to 100000";
        QTest::newRow("tokens big") << "sparse-bow:10x10:2:100001"
                                    << "TOKENS must be from 1 to";
        QTest::newRow("fashion args") << "fashion-mnist:x"
                                      << "fashion-mnist takes no arguments";
        QTest::newRow("csv no file") << "csv:"
                                     << "the file name is missing; expected csv:FILE";
        QTest::newRow("libsvm no file") << "libsvm"
                                        << "expected libsvm:FILE, e.g.";
        QTest::newRow("idx no dir") << "idx:"
                                    << "the directory is missing; expected idx:DIR";
    }
    void parseInvalid() {
        QFETCH(QString, text);
        QFETCH(QString, needle);
        HWL_VERIFY_THROWS(parseDatasetSpec(text.toStdString()), InputError, needle.toStdString());
    }

    // --- synthetic ------------------------------------------------------------

    void syntheticDeterministic_data() {
        QTest::addColumn<QString>("spec");
        QTest::newRow("random") << "random:3000x7:4";
        QTest::newRow("teacher") << "teacher:3000x7:4:5";
        QTest::newRow("sparse-bow") << "sparse-bow:3000x500:4:9";
    }
    void syntheticDeterministic() {
        QFETCH(QString, spec);
        const DatasetSpec s = parseDatasetSpec(spec.toStdString());
        const DatasetSplit a = loadDataset(s, 0.0, 42);
        const DatasetSplit b = loadDataset(s, 0.0, 42);
        const DatasetSplit c = loadDataset(s, 0.0, 43);
        QVERIFY(sameData(a.train, b.train));
        QVERIFY(!sameData(a.train, c.train));
        QCOMPARE(a.train.rows, std::int64_t(3000));
        QCOMPARE(a.train.numClasses, 4);
        QCOMPARE(a.test.rows, std::int64_t(0));
        for (auto l : a.train.labels)
            QVERIFY(l >= 0 && l < 4);
        // The same with a test split: deterministic too.
        const DatasetSplit d = loadDataset(s, 0.25, 42);
        const DatasetSplit e = loadDataset(s, 0.25, 42);
        QVERIFY(sameData(d.train, e.train) && sameData(d.test, e.test));
        QCOMPARE(d.test.rows, std::int64_t(750));
    }

    void randomShapeAndDistribution() {
        const Dataset ds = makeRandom(20000, 10, 5, 7);
        QCOMPARE(ds.rows, std::int64_t(20000));
        QCOMPARE(ds.dim, std::int64_t(10));
        QCOMPARE(ds.numClasses, 5);
        QVERIFY(!ds.isSparse());
        QCOMPARE(ds.dense.size(), std::size_t(200000));
        double sum = 0, sq = 0;
        for (float v : ds.dense) {
            sum += v;
            sq += double(v) * v;
        }
        const double mean = sum / 200000, var = sq / 200000 - mean * mean;
        QVERIFY2(std::abs(mean) < 0.02, qPrintable(QString::number(mean)));
        QVERIFY2(std::abs(var - 1.0) < 0.03, qPrintable(QString::number(var)));
        std::vector<int> counts(5);
        for (auto l : ds.labels)
            ++counts[std::size_t(l)];
        for (int c : counts)
            QVERIFY2(c > 3600 && c < 4400, qPrintable(QString::number(c)));
        QCOMPARE(QString::fromStdString(ds.description),
                 QStringLiteral("random:20000x10:5 (20000 x 10, 5 classes)"));
    }

    void teacherLabelsLearnable() {
        const Dataset ds = makeTeacher(10000, 20, 10, 32, 1);
        QCOMPARE(ds.dense.size(), std::size_t(200000));
        std::vector<int> counts(10);
        for (auto l : ds.labels) {
            QVERIFY(l >= 0 && l < 10);
            ++counts[std::size_t(l)];
        }
        const int distinct =
            int(std::count_if(counts.begin(), counts.end(), [](int c) { return c > 0; }));
        QVERIFY2(distinct >= 5, qPrintable(QString::number(distinct)));
        QVERIFY(*std::max_element(counts.begin(), counts.end()) < 9000);
        // Learnable: even nearest-centroid (a weak linear model) beats chance
        // by far on the teacher's labels, and not on random labels.
        const double teacherAcc = centroidAccuracy(ds);
        const double randomAcc = centroidAccuracy(makeRandom(10000, 20, 10, 1));
        qInfo("nearest-centroid accuracy: teacher %.3f, random %.3f", teacherAcc, randomAcc);
        QVERIFY(teacherAcc > 0.5);
        QVERIFY(randomAcc < 0.2);
        QVERIFY(makeTeacher(10000, 20, 10, 32, 2).labels != ds.labels);
    }

    void sparseBowWellFormed() {
        const std::int64_t rows = 4000, vocab = 2000, tokens = 15;
        const Dataset ds = makeSparseBow(rows, vocab, 4, tokens, 3);
        checkCsr(ds);
        QCOMPARE(ds.dim, vocab);
        QCOMPARE(ds.numClasses, 4);
        for (std::int64_t r = 0; r < rows; ++r)
            QCOMPARE(ds.offsets[std::size_t(r + 1)] - ds.offsets[std::size_t(r)], tokens);
        QVERIFY(std::all_of(ds.values.begin(), ds.values.end(), [](float v) { return v == 1.0f; }));
        // Each class concentrates on its own tokens: its 5% most frequent
        // tokens carry most of its mass, and differ between classes.
        std::vector<std::vector<int>> hist(4, std::vector<int>(std::size_t(vocab)));
        for (std::int64_t r = 0; r < rows; ++r)
            for (auto k = ds.offsets[std::size_t(r)]; k < ds.offsets[std::size_t(r + 1)]; ++k)
                ++hist[std::size_t(ds.labels[std::size_t(r)])]
                      [std::size_t(ds.indices[std::size_t(k)])];
        std::vector<std::set<int>> top(4);
        for (int c = 0; c < 4; ++c) {
            std::vector<int> order(static_cast<std::size_t>(vocab));
            std::iota(order.begin(), order.end(), 0);
            std::sort(order.begin(), order.end(), [&](int a, int b) {
                return hist[std::size_t(c)][std::size_t(a)] > hist[std::size_t(c)][std::size_t(b)];
            });
            long topMass = 0, all = 0;
            for (std::size_t i = 0; i < order.size(); ++i) {
                all += hist[std::size_t(c)][std::size_t(order[i])];
                if (i < std::size_t(vocab / 20)) {
                    topMass += hist[std::size_t(c)][std::size_t(order[i])];
                    top[std::size_t(c)].insert(order[i]);
                }
            }
            QVERIFY2(topMass > all / 2,
                     qPrintable(QStringLiteral("%1 of %2").arg(topMass).arg(all)));
        }
        QVERIFY(top[0] != top[1]);
    }

    void syntheticTooBigRefused() {
        HWL_VERIFY_THROWS(makeRandom(100000000, 10000000, 2, 1), InputError,
                          "GiB of memory, more than the 8.0 GiB limit");
        HWL_VERIFY_THROWS(makeSparseBow(100000000, 1000, 2, 100000, 1), InputError,
                          "more than the 8.0 GiB limit; use fewer rows or fewer tokens");
        HWL_VERIFY_THROWS(makeRandom(10, 10, 1, 1), InputError, "classes must be at least 2");
    }

    // --- split and loadDataset ------------------------------------------------

    void splitSizes_data() {
        QTest::addColumn<bool>("sparse");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<qint64>("testRows");
        for (bool sparse : {false, true}) {
            const char* kind = sparse ? "sparse " : "dense ";
            QTest::addRow("%s100 x 0.2", kind) << sparse << 100LL << 0.2 << 20LL;
            QTest::addRow("%s100 x 0", kind) << sparse << 100LL << 0.0 << 0LL;
            QTest::addRow("%s10 x 0.99", kind) << sparse << 10LL << 0.99 << 9LL;
            QTest::addRow("%s7 x 0.5 (floor)", kind) << sparse << 7LL << 0.5 << 3LL;
            QTest::addRow("%s1 x 0.5", kind) << sparse << 1LL << 0.5 << 0LL;
        }
    }
    void splitSizes() {
        QFETCH(bool, sparse);
        QFETCH(qint64, rows);
        QFETCH(double, fraction);
        QFETCH(qint64, testRows);
        const DatasetSplit s = splitTrainTest(numbered(rows, sparse), fraction, 9);
        QCOMPARE(s.test.rows, testRows);
        QCOMPARE(s.train.rows, rows - testRows);
        for (const Dataset* part : {&s.train, &s.test}) {
            QCOMPARE(part->dim, sparse ? rows + 1 : 3);
            QCOMPARE(part->numClasses, 3);
            QCOMPARE(qint64(part->labels.size()), part->rows);
            if (sparse)
                checkCsr(*part);
            else
                QCOMPARE(qint64(part->dense.size()), part->rows * 3);
        }
        // Every row lands in exactly one part, intact.
        std::vector<std::int64_t> train = rowIds(s.train), test = rowIds(s.test);
        QCOMPARE(qint64(train.size()), s.train.rows);
        QCOMPARE(qint64(test.size()), s.test.rows);
        std::vector<std::int64_t> all = train;
        all.insert(all.end(), test.begin(), test.end());
        std::sort(all.begin(), all.end());
        std::vector<std::int64_t> expected(static_cast<std::size_t>(rows));
        std::iota(expected.begin(), expected.end(), 0);
        QCOMPARE(all, expected);
        QVERIFY(QString::fromStdString(s.train.description).startsWith("numbered train ("));
        QVERIFY(QString::fromStdString(s.test.description).startsWith("numbered test ("));
    }

    void splitDeterministic() {
        for (bool sparse : {false, true}) {
            const auto a = rowIds(splitTrainTest(numbered(200, sparse), 0.3, 1).test);
            const auto b = rowIds(splitTrainTest(numbered(200, sparse), 0.3, 1).test);
            const auto c = rowIds(splitTrainTest(numbered(200, sparse), 0.3, 2).test);
            QCOMPARE(a, b);
            QVERIFY(a != c);
            // Dense and sparse data see the same shuffle, train rows too.
            QCOMPARE(a, rowIds(splitTrainTest(numbered(200, !sparse), 0.3, 1).test));
            QCOMPARE(rowIds(splitTrainTest(numbered(200, sparse), 0.3, 1).train),
                     rowIds(splitTrainTest(numbered(200, !sparse), 0.3, 1).train));
            // Shuffled: the test rows are not simply the last ones.
            QVERIFY(*std::min_element(a.begin(), a.end()) < 140);
        }
    }

    void splitInvalidFraction_data() {
        QTest::addColumn<double>("fraction");
        QTest::newRow("negative") << -0.1;
        QTest::newRow("one") << 1.0;
        QTest::newRow("above one") << 1.5;
        QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
    }
    void splitInvalidFraction() {
        QFETCH(double, fraction);
        HWL_VERIFY_THROWS(splitTrainTest(numbered(10, false), fraction, 1), InputError,
                          "test-fraction: ");
        HWL_VERIFY_THROWS(splitTrainTest(numbered(10, false), fraction, 1), InputError,
                          "expected a number in [0, 1)");
        HWL_VERIFY_THROWS(loadDataset(parseDatasetSpec("random:10x2:2"), fraction, 1), InputError,
                          "test-fraction: ");
    }

    void loadDatasetSynthetic() {
        const DatasetSplit s = loadDataset(parseDatasetSpec("random:1000x10:5"), 0.2, 3);
        QCOMPARE(QString::fromStdString(s.train.description),
                 QStringLiteral("random:1000x10:5 train (800 x 10, 5 classes)"));
        QCOMPARE(QString::fromStdString(s.test.description),
                 QStringLiteral("random:1000x10:5 test (200 x 10, 5 classes)"));
        const DatasetSplit b = loadDataset(parseDatasetSpec("sparse-bow:100x50:3:4"), 0.1, 3);
        QCOMPARE(QString::fromStdString(b.test.description),
                 QStringLiteral("sparse-bow:100x50:3:4 test (10 x 50, 3 classes, sparse)"));
        checkCsr(b.train);
        checkCsr(b.test);
        // An empty dataset cannot give training rows.
        Dataset empty;
        empty.offsets = {0};
        HWL_VERIFY_THROWS(splitTrainTest(empty, 0.5, 1), InputError, "leaves no rows for training");
    }

    void loadDatasetTextFiles() {
        const auto csv = file("split.csv", "y,a\n0,1\n1,2\n0,3\n1,4\n");
        const DatasetSplit c = loadDataset(parseDatasetSpec("csv:" + csv.string()), 0.5, 1);
        QCOMPARE(c.train.rows, std::int64_t(2));
        QCOMPARE(c.test.rows, std::int64_t(2));
        QCOMPARE(QString::fromStdString(c.train.description),
                 QString::fromStdString("csv:" + csv.string() + " train (2 x 1, 2 classes)"));
        const auto svm = file("split.svm", "0 1:1\n1 2:1\n");
        const DatasetSplit l = loadDataset(parseDatasetSpec("libsvm:" + svm.string()), 0.0, 1);
        QCOMPARE(l.train.rows, std::int64_t(2));
        QCOMPARE(l.test.rows, std::int64_t(0));
        checkCsr(l.train);
        checkCsr(l.test);
        HWL_VERIFY_THROWS(
            loadDataset(parseDatasetSpec("csv:" + tmp_.filePath("none.csv").toStdString()), 0.1, 1),
            InputError, "none.csv\" cannot be read: No such file or directory");
    }

    void fashionMnistMissing() {
        const QByteArray saved = qgetenv("HWL_FASHION_MNIST_DIR");
        const bool wasSet = qEnvironmentVariableIsSet("HWL_FASHION_MNIST_DIR");
        const auto empty = subdir("no-fashion");
        qputenv("HWL_FASHION_MNIST_DIR", QByteArray::fromStdString(empty.string()));
        QCOMPARE(fashionMnistDir(), empty);
        QVERIFY(!fashionMnistAvailable());
        bool ok = true;
        try {
            loadDataset(parseDatasetSpec("fashion-mnist"), 0.0, 1);
            ok = false;
        } catch (const InputError& e) {
            const std::string what = e.what();
            ok = what.find(empty.string()) != std::string::npos &&
                 what.find("apt-get install dataset-fashion-mnist, or set HWL_FASHION_MNIST_DIR") !=
                     std::string::npos;
            if (!ok)
                qWarning("%s", e.what());
        }
        if (wasSet)
            qputenv("HWL_FASHION_MNIST_DIR", saved);
        else
            qunsetenv("HWL_FASHION_MNIST_DIR");
        QVERIFY(ok);
        if (!wasSet)
            QCOMPARE(fashionMnistDir(), std::filesystem::path("/usr/share/datasets/fashion-mnist"));
    }

    void fashionMnistReal() {
        if (!fashionMnistAvailable())
            QSKIP(qPrintable("Fashion-MNIST is not in " +
                             QString::fromStdString(fashionMnistDir().string()) +
                             " (apt-get install dataset-fashion-mnist)"));
        QElapsedTimer t;
        t.start();
        const DatasetSplit s = loadDataset(parseDatasetSpec("fashion-mnist"), 0.5, 1);
        const qint64 ms = t.elapsed();
        qInfo("Fashion-MNIST loaded in %lld ms", ms);
        QVERIFY2(ms < 5000, qPrintable(QString::number(ms)));
        QCOMPARE(s.train.rows, std::int64_t(60000));
        QCOMPARE(s.train.dim, std::int64_t(784));
        QCOMPARE(s.test.rows, std::int64_t(10000)); // its own test set: 0.5 is ignored
        QCOMPARE(s.test.dim, std::int64_t(784));
        QCOMPARE(s.train.numClasses, 10);
        QCOMPARE(QString::fromStdString(s.train.description),
                 QStringLiteral("fashion-mnist train (60000 x 784, 10 classes)"));
        for (const Dataset* part : {&s.train, &s.test}) {
            const auto [lo, hi] = std::minmax_element(part->dense.begin(), part->dense.end());
            QCOMPARE(*lo, 0.0f);
            QCOMPARE(*hi, 1.0f);
            std::vector<int> counts(10);
            for (auto l : part->labels)
                ++counts[std::size_t(l)];
            QCOMPARE(counts, std::vector<int>(10, int(part->rows / 10)));
        }
    }
};

QTEST_GUILESS_MAIN(TestDatasources)
#include "tst_datasources.moc"
