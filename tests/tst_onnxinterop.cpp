// An exported model.onnx run by other runtimes agrees with the engine: for
// each model kind, a short run's model.onnx (Run::writeWeights, as --out and
// the window write it) is checked by onnx.checker, evaluated node by node with
// numpy (onnx 1.12 has no reference evaluator) and run by OpenCV's DNN module
// (cv2.dnn.readNetFromONNX) on the run's test set, and each one's logits
// must be the engine's own forward pass's (ModelKernel::forwardLogits) within
// 1e-4. tests/onnx/check-onnx does the Python side. SKIPPED, with what is
// missing, without a /usr/bin/python3 that imports numpy, onnx and cv2
// (apt install python3-numpy python3-onnx python3-opencv).
#include "testpaths.h"
#include "testutil.h"

#include "backend/cpu/modelkernel.h"
#include "data/datasources.h"
#include "data/normalize.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <fstream>

using namespace hwl;

namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr double kTolerance = 1e-4;

/// A .npy v1.0 file of `shape` with `descr` ("<f4", "<i8") elements.
void writeNpy(const QString& path, const char* descr, const std::vector<std::int64_t>& shape,
              const void* data, std::size_t bytes) {
    std::string dims;
    for (const auto d : shape)
        dims += std::to_string(d) + ",";
    std::string header = std::string("{'descr': '") + descr +
                         "', 'fortran_order': False, 'shape': (" + dims + "), }";
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << "\x93NUMPY" << '\x01' << '\x00' << char(header.size() & 0xFF) << char(header.size() >> 8)
        << header;
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

template <class T>
void writeNpy(const QString& path, const char* descr, const std::vector<std::int64_t>& shape,
              const std::vector<T>& values) {
    writeNpy(path, descr, shape, values.data(), values.size() * sizeof(T));
}

/// Bags that sparse-bow never makes: empty ones, repeated tokens, lengths
/// from 0 to 6, weights other than 1 (some negative).
Dataset raggedBags(std::int64_t vocab) {
    Dataset d;
    d.rows = 40;
    d.dim = vocab;
    d.numClasses = 1;
    d.offsets.push_back(0);
    for (std::int64_t r = 0; r < d.rows; ++r) {
        const std::int64_t length = r % 7;
        const std::size_t first = d.indices.size();
        for (std::int64_t k = 0; k < length; ++k) {
            d.indices.push_back(k == 3 ? d.indices[first] // the bag's first token again
                                       : std::int32_t((r * 13 + k * k * 7) % vocab));
            d.values.push_back(float(k % 4) * 0.75f - 0.5f);
        }
        d.offsets.push_back(std::int64_t(d.indices.size()));
    }
    d.labels.assign(std::size_t(d.rows), 0);
    return d;
}

/// The graph's inputs for `data`'s rows, as the engine sees them: the
/// dense rows (a layer list's over an image as [n, C, H, W]), or the bags as CSR.
QJsonObject writeInputs(const QString& dir, const Dataset& data, const TensorShape& sample) {
    if (!data.isSparse()) {
        const std::vector<std::int64_t> shape =
            sample.image()
                ? std::vector<std::int64_t>{data.rows, sample.channels, sample.height, sample.width}
                : std::vector<std::int64_t>{data.rows, data.dim};
        writeNpy(dir + "/input.npy", "<f4", shape, data.dense);
        return {{"input", "input.npy"}};
    }
    const std::vector<std::int64_t> indices(data.indices.begin(), data.indices.end());
    writeNpy(dir + "/indices.npy", "<i8", {std::int64_t(indices.size())}, indices);
    writeNpy(dir + "/offsets.npy", "<i8", {data.rows + 1}, data.offsets);
    writeNpy(dir + "/weights.npy", "<f4", {std::int64_t(data.values.size())}, data.values);
    return {{"indices", "indices.npy"}, {"offsets", "offsets.npy"}, {"weights", "weights.npy"}};
}

} // namespace

class TestOnnxInterop : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        if (!QFileInfo::exists(kPython))
            QSKIP("/usr/bin/python3 is not installed");
        QStringList missing;
        for (const char* module : {"numpy", "onnx", "cv2"}) {
            QProcess p;
            p.start(kPython, {"-c", QStringLiteral("import %1").arg(module)});
            if (!p.waitForFinished(60000) || p.exitCode() != 0)
                missing << module;
        }
        if (!missing.isEmpty())
            QSKIP(qPrintable("/usr/bin/python3 cannot import " + missing.join(", ") +
                             " (apt install python3-numpy python3-onnx python3-opencv)"));
    }

    void runtimesAgreeWithTheEngine_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<bool>("ragged");           // the bags of raggedBags(), not the test set
        QTest::addColumn<bool>("openCvMayRefuse");  // a graph OpenCV 4.6 is known not to import
        QTest::addColumn<QString>("normalize");     // --normalize (the graph's Sub and Div)
        QTest::addColumn<bool>("normalizedInputs"); // --onnx-normalized-inputs
        QTest::newRow("mlp relu") << "mlp:20-32-4"
                                  << "teacher:600x20:4" << false << false << "none" << false;
        QTest::newRow("mlp tanh") << "mlp:20-16-8-4:tanh"
                                  << "teacher:600x20:4" << false << false << "none" << false;
        QTest::newRow("mlp sigmoid") << "mlp:20-16-4:sigmoid"
                                     << "teacher:600x20:4" << false << false << "none" << false;
        QTest::newRow("logistic") << "mlp:20-4"
                                  << "teacher:600x20:4" << false << false << "none" << false;
        QTest::newRow("cnn") << "cnn:mnist"
                             << "random:400x784:10" << false << false << "none" << false;
        QTest::newRow("layer list") << "net:2x8x8:conv4k3s2p1,gelu,maxpool2,dropout2d,avgpool2s1,"
                                       "tanh,flatten,fc6,sigmoid,dropout,fc3"
                                    << "teacher:400x128:3" << false << false << "none" << false;
        QTest::newRow("layer list, 3 channels")
            << "net:3x6x6:conv5k3p1,relu,conv4k2s2,maxpool3s1,flatten,fc4"
            << "teacher:400x108:4" << false << false << "none" << false;
        // OpenCV 4.6's importer takes neither Shape of a dynamic input nor a
        // Gather whose indices are not constants: the skip quotes its words.
        QTest::newRow("embedding bag")
            << "embedding-bag:200-8-4"
            << "sparse-bow:600x200:4:12" << false << true << "none" << false;
        QTest::newRow("embedding bag, ragged")
            << "embedding-bag:200-8-4"
            << "sparse-bow:600x200:4:12" << true << true << "none" << false;
        // Issue 50, point 10: the normalisation was not in the graph, so raw
        // inputs scored 26.9% where the run scored 52.0%. The graph now takes
        // the raw features, normalised by its Sub and Div, for each setting;
        // --onnx-normalized-inputs leaves them out for normalised inputs.
        QTest::newRow("mlp, per-feature")
            << "mlp:20-32-4"
            << "teacher:600x20:4" << false << false << "per-feature" << false;
        QTest::newRow("cnn, given")
            << "cnn:mnist"
            << "random:400x784:10" << false << false << "0.2860,0.3530" << false;
        QTest::newRow("layer list, global")
            << "net:2x8x8:conv4k3s2p1,relu,flatten,fc3"
            << "teacher:400x128:3" << false << false << "global" << false;
        QTest::newRow("layer list, per-feature")
            << "net:2x8x8:conv4k3s2p1,relu,flatten,fc3"
            << "teacher:400x128:3" << false << false << "per-feature" << false;
        QTest::newRow("mlp, per-feature, normalized inputs")
            << "mlp:20-32-4"
            << "teacher:600x20:4" << false << false << "per-feature" << true;
    }

    void runtimesAgreeWithTheEngine() {
        QFETCH(QString, model);
        QFETCH(QString, dataset);
        QFETCH(bool, ragged);
        QFETCH(bool, openCvMayRefuse);
        QFETCH(QString, normalize);
        QFETCH(bool, normalizedInputs);
        ExperimentConfig c;
        c.normalize = normalize.toStdString();
        c.onnxNormalizedInputs = normalizedInputs;
        c.mode = modes::serial;
        c.workers = 1;
        c.model = model.toStdString();
        c.dataset = dataset.toStdString();
        c.epochs = 1;
        c.testFraction = 0.5;
        const auto run = test::runToEnd(c);
        QCOMPARE(run->summary().state, RunState::Finished);
        const QString dir = tmp_.filePath(QTest::currentDataTag());
        QVERIFY(QDir().mkpath(dir));
        run->writeWeights((dir + "/model.onnx").toStdString());

        DatasetSplit split = loadDataset(c.datasetSpec(), c.testFraction, c.seed);
        const Dataset raw = split.test;     // the features as the dataset holds them
        normalizeSplit(split, c.normalize); // as the run trained and tested
        const Dataset data = ragged ? raggedBags(200) : split.test;
        const auto m = makeModel(c.modelSpec());
        const std::vector<float> params = run->parameters();
        const std::int64_t classes = m->spec().outputWidth();
        std::vector<float> logits(std::size_t(data.rows * classes));
        Workspace<float> ws;
        makeModelKernel(*m)->forwardLogits(params.data(), data.view(), 0, data.rows, logits.data(),
                                           ws);
        if (!ragged) // the logits are those the run scored its test set by
            QCOMPARE(run->summary().testAccuracy, accuracyOf(logits, data, classes));
        writeNpy(dir + "/logits.npy", "<f4", {data.rows, classes}, logits);
        // The graph takes the raw features, unless written for normalised ones.
        const QJsonObject inputs =
            writeInputs(dir, ragged || normalizedInputs ? data : raw, m->spec().input);
        const std::vector<std::int64_t> labels(data.labels.begin(), data.labels.end());
        writeNpy(dir + "/labels.npy", "<i8", {data.rows}, labels);
        QFile caseFile(dir + "/case.json");
        QVERIFY(caseFile.open(QIODevice::WriteOnly));
        caseFile.write(
            QJsonDocument(QJsonObject{{"inputs", inputs}, {"labels", "labels.npy"}}).toJson());
        caseFile.close();

        const QJsonObject report = check(dir);
        QCOMPARE(report.value("checker").toString(), QStringLiteral("ok"));
        const QJsonValue reference = report.value("reference").toObject().value("max_abs_diff");
        QVERIFY2(
            reference.isDouble() && reference.toDouble() <= kTolerance,
            qPrintable("numpy's evaluation of the graph: " + reference.toVariant().toString()));
        const QJsonObject cv = report.value("opencv").toObject();
        if (cv.contains("refused")) {
            const QString why = cv.value("refused").toString();
            if (!openCvMayRefuse)
                QFAIL(qPrintable("OpenCV refused the model: " + why));
            QSKIP(qPrintable("checker and numpy agree; OpenCV 4.6's DNN cannot run this graph: " +
                             why));
        }
        const QJsonValue diff = cv.value("max_abs_diff");
        qInfo("largest |logit - engine's|: numpy %.3g, OpenCV %.3g over %lld rows",
              reference.toDouble(), diff.toDouble(), static_cast<long long>(data.rows));
        QVERIFY2(diff.isDouble() && diff.toDouble() <= kTolerance,
                 qPrintable("OpenCV: " + diff.toVariant().toString()));
        if (!ragged) // OpenCV on the file's inputs scores what the run scored
            QCOMPARE(cv.value("accuracy").toDouble(), run->summary().testAccuracy);
    }

private:
    static double accuracyOf(const std::vector<float>& logits, const Dataset& data,
                             std::int64_t classes) {
        std::int64_t correct = 0;
        for (std::int64_t r = 0; r < data.rows; ++r) {
            const float* z = logits.data() + r * classes;
            correct += std::max_element(z, z + classes) - z == data.labels[std::size_t(r)];
        }
        return double(correct) / double(data.rows);
    }

    /// tests/onnx/check-onnx's report on the case in `dir`.
    static QJsonObject check(const QString& dir) {
        QProcess p;
        p.start(kPython, {QString::fromLatin1(test::kSourceDir) + "/tests/onnx/check-onnx", dir});
        if (!p.waitForFinished(180000)) {
            p.kill();
            p.waitForFinished(5000);
        }
        const QByteArray out = p.readAllStandardOutput();
        if (p.exitCode() != 0 || out.isEmpty())
            qWarning("check-onnx: %s", p.readAllStandardError().constData());
        return QJsonDocument::fromJson(out).object();
    }
};

QTEST_GUILESS_MAIN(TestOnnxInterop)
#include "tst_onnxinterop.moc"
