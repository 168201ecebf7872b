// Input normalisation (--normalize, data/normalize.h): the statistics of
// each setting, computed on the training split only and applied to both
// splits; the settings refused, each with its reason; and a run's record of
// what it applied (RunInfo, the weights' metadata), in the threads mode and
// the process mode whose workers read the data from shared memory.
#include "data/datasources.h"
#include "data/normalize.h"
#include "io/tensorfile.h"
#include "testutil.h"
#include "util/errors.h"

#include <QTest>

#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace hwl;

namespace {

/// rows x 3 features: column 0 = row, column 1 = 2 * row + 5, column 2 = 7 (constant).
Dataset columns(int rows) {
    Dataset d;
    d.description = "columns";
    d.rows = rows;
    d.dim = 3;
    d.numClasses = 2;
    for (int r = 0; r < rows; ++r) {
        d.dense.insert(d.dense.end(), {float(r), float(2 * r + 5), 7.0f});
        d.labels.push_back(r % 2);
    }
    return d;
}

/// Mean and population standard deviation of column `f`.
std::pair<double, double> columnMoments(const Dataset& d, int f) {
    double sum = 0, squares = 0;
    for (std::int64_t r = 0; r < d.rows; ++r)
        sum += d.dense[std::size_t(r * d.dim + f)];
    const double mean = sum / double(d.rows);
    for (std::int64_t r = 0; r < d.rows; ++r) {
        const double x = d.dense[std::size_t(r * d.dim + f)] - mean;
        squares += x * x;
    }
    return {mean, std::sqrt(squares / double(d.rows))};
}

ExperimentConfig smallRun(const std::string& normalize) {
    ExperimentConfig c;
    c.model = "mlp:8-16-3";
    c.dataset = "teacher:600x8:3";
    c.mode = "threads";
    c.workers = 2;
    c.epochs = 1;
    c.normalize = normalize;
    return c;
}

} // namespace

class TestNormalize : public QObject {
    Q_OBJECT

private slots:
    void noneLeavesTheDataAlone() {
        Dataset d = columns(10);
        const std::vector<float> before = d.dense;
        const Normalization n = normalizationFor("none", d);
        QVERIFY(!n.applies());
        normalize(d, n);
        QCOMPARE(d.dense, before);
    }

    void globalIsOneMeanAndStdOverEveryFeature() {
        Dataset d = columns(10);
        const Normalization n = normalizationFor("global", d);
        QCOMPARE(n.mean.size(), std::size_t(1));
        const double mean = std::accumulate(d.dense.begin(), d.dense.end(), 0.0) / 30.0;
        double squares = 0;
        for (float x : d.dense)
            squares += (x - mean) * (x - mean);
        QVERIFY(std::abs(n.mean[0] - mean) < 1e-5);
        QVERIFY(std::abs(n.stddev[0] - std::sqrt(squares / 30.0)) < 1e-5);
        normalize(d, n);
        const double after = std::accumulate(d.dense.begin(), d.dense.end(), 0.0) / 30.0;
        QVERIFY2(std::abs(after) < 1e-5, qPrintable(QString::number(after)));
    }

    void perFeatureMakesEachColumnZeroMeanUnitStd() {
        Dataset d = columns(50);
        const Normalization n = normalizationFor("per-feature", d);
        QCOMPARE(n.mean.size(), std::size_t(3));
        QVERIFY(std::abs(n.mean[1] - (2 * 24.5 + 5)) < 1e-4);
        QCOMPARE(n.stddev[2], 1.0f); // a constant feature: std 1, not a division by 0
        normalize(d, n);
        for (int f : {0, 1}) {
            const auto [mean, sd] = columnMoments(d, f);
            QVERIFY2(std::abs(mean) < 1e-5 && std::abs(sd - 1) < 1e-5,
                     qPrintable(QStringLiteral("feature %1: %2, %3").arg(f).arg(mean).arg(sd)));
        }
        const auto [mean, sd] = columnMoments(d, 2);
        QCOMPARE(mean, 0.0); // 7 minus its own mean
        QCOMPARE(sd, 0.0);
    }

    void givenValuesAreAppliedAsGiven() {
        Dataset d = columns(4);
        const Normalization n = normalizationFor("0.5,2", d);
        QCOMPARE(n.mean, std::vector<float>{0.5f});
        QCOMPARE(n.stddev, std::vector<float>{2.0f});
        normalize(d, n);
        QCOMPARE(d.dense[3], (1.0f - 0.5f) / 2.0f); // row 1, feature 0
        QCOMPARE(d.dense[5], (7.0f - 0.5f) / 2.0f);
    }

    void testSplitTakesTheTrainingSplitsFigures() {
        DatasetSplit split = loadDataset(parseDatasetSpec("teacher:1000x4:2"), 0.2, 3);
        const Dataset test = split.test;
        const Normalization n = normalizeSplit(split, "per-feature");
        // The training split is exactly standardised; the test split is
        // shifted by the training split's means, not its own.
        QVERIFY(std::abs(columnMoments(split.train, 0).first) < 1e-5);
        QCOMPARE(split.test.dense[0], (test.dense[0] - n.mean[0]) / n.stddev[0]);
        QVERIFY(std::abs(columnMoments(split.test, 0).first) > 1e-7);
    }

    void badSettingsAreRefused_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("says");
        QTest::newRow("a typo") << "glob"
                                << "expected none, global, per-feature, or MEAN,STD";
        QTest::newRow("one number") << "0.13"
                                    << "expected none";
        QTest::newRow("std 0") << "0.1,0"
                               << "must be above 0";
        QTest::newRow("negative std") << "0.1,-2"
                                      << "must be above 0";
        QTest::newRow("not numbers") << "a,b"
                                     << "expected none";
        QTest::newRow("a trailing comma") << "0.1,0.3,"
                                          << "expected none";
        QTest::newRow("infinite") << "inf,1"
                                  << "expected none";
    }
    void badSettingsAreRefused() {
        QFETCH(QString, setting);
        QFETCH(QString, says);
        const std::string why = normalizeSettingProblem(setting.toStdString());
        QVERIFY2(QString::fromStdString(why).contains(says), why.c_str());
        // And a run refuses it before it starts, naming the field.
        const auto issues = validateExperiment(smallRun(setting.toStdString()));
        QVERIFY(std::any_of(issues.begin(), issues.end(),
                            [](const ConfigIssue& i) { return i.field == "normalize"; }));
    }

    void sparseDataIsRefused() {
        DatasetSplit split = loadDataset(parseDatasetSpec("sparse-bow:100x50:2"), 0.1, 1);
        try {
            normalizeSplit(split, "global");
            QFAIL("sparse data was normalised");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("--normalize none for sparse data"), e.what());
        }
        QCOMPARE(normalizeSplit(split, "none").applies(), false);
        // Known from the spec, it is refused with the experiment, before a
        // run loads anything (the window marks the field before Start).
        ExperimentConfig c = smallRun("per-feature");
        c.model = "embedding-bag:50-8-2";
        c.dataset = "sparse-bow:100x50:2";
        const auto issues = validateExperiment(c);
        QVERIFY(std::any_of(issues.begin(), issues.end(), [](const ConfigIssue& i) {
            return i.field == "normalize" &&
                   i.message == "sparse-bow:100x50:2 is sparse, and subtracting a mean would make "
                                "every row dense; use --normalize none for sparse data";
        }));
        c.normalize = "none";
        QVERIFY(validateExperiment(c).empty());
    }

    void aRunRecordsWhatItApplied_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("threads") << "threads";
        QTest::newRow("processes (spawn, the data in shared memory)") << "processes";
    }
    void aRunRecordsWhatItApplied() {
        QFETCH(QString, mode);
        ExperimentConfig c = smallRun("per-feature");
        c.mode = mode.toStdString();
        auto run = test::runToEnd(c);
        QCOMPARE(run->summary().state, RunState::Finished);
        QVERIFY(run->summary().evaluated && std::isfinite(run->summary().testLoss));
        const Normalization& n = run->info().normalization;
        QCOMPARE(n.setting, std::string("per-feature"));
        QCOMPARE(n.mean.size(), std::size_t(8));
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("w.safetensors").toStdString();
        run->writeWeights(file);
        std::map<std::string, std::string> metadata;
        (void)readSafetensors(file, &metadata);
        QCOMPARE(metadata["normalize"], std::string("per-feature"));
        const QString means = QString::fromStdString(metadata["normalize_mean"]);
        QVERIFY2(means.startsWith('[') && means.count(',') == 7, qPrintable(means));
    }

    void withoutNormalisationTheWeightsSayNothing() {
        auto run = test::runToEnd(smallRun("none"));
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("w.safetensors").toStdString();
        run->writeWeights(file);
        std::map<std::string, std::string> metadata;
        (void)readSafetensors(file, &metadata);
        QVERIFY(!metadata.count("normalize"));
    }
};

QTEST_MAIN(TestNormalize)
#include "tst_normalize.moc"
