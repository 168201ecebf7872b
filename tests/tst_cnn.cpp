// The mnist_hogwild CNN (--model cnn:mnist) end to end: from PyTorch's own
// initial weights, in file order, without dropout, serial SGD ends on the
// weights PyTorch's examples/mnist_hogwild Net reaches (tests/data/cnn-parity,
// made by make_cnn_parity.py with torch 1.13), within 1e-5; every CPU mode
// trains it; dropout draws the same units again when a run resumes; the GPU
// modes refuse it before the run; its export loads into that Net with
// load_state_dict(strict=True) when python3-torch is installed. Its gradients
// against finite differences are in tst_gradients.
#include "clitest.h"
#include "config/experimentconfig.h"
#include "enginetestutil.h"
#include "io/tensorfile.h"
#include "testpaths.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

using namespace hwl;
using namespace hwl::test;

namespace {
QString parityDir() {
    return QString::fromUtf8(kSourceDir) + "/tests/data/cnn-parity";
}

/// The small CNN run every mode below makes: the parity images, 2 epochs.
QStringList smallRun(const QString& out) {
    return {"--model",         "cnn:mnist", "--dataset", "idx:" + parityDir(),
            "--test-fraction", "0",         "--epochs",  "2",
            "--batch",         "16",        "--lr",      "0.05",
            "--quiet",         "--out",     out};
}
} // namespace

class TestCnn : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString dir(const QString& name) const { return tmp_.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void serialSgdMatchesPytorch() {
        const QJsonObject settings =
            QJsonDocument::fromJson(readBytes((parityDir() + "/settings.json").toStdString()))
                .object();
        QVERIFY(!settings.isEmpty());
        const Result r = runCli(parityRunArgs("cnn:mnist", "idx:" + parityDir(), settings,
                                              parityDir() + "/init.safetensors", dir("parity")) +
                                QStringList{"--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const auto ours = tensorsOf(dir("parity/weights.safetensors"));
        const auto torch = tensorsOf(parityDir() + "/expected.safetensors");
        const auto init = tensorsOf(parityDir() + "/init.safetensors");
        QCOMPARE(ours.size(), std::size_t(8));
        // Training moved the weights far more than the tolerance ...
        QVERIFY(largestDifference(torch, init) > 1e-2);
        // ... and both moved them to the same place.
        const double worst = largestDifference(ours, torch);
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    }

    void everyCpuModeTrainsIt_data() { addEveryCpuModeRows(); }
    void everyCpuModeTrainsIt() {
        QFETCH(QStringList, mode);
        if (mode.contains("mpi") && !whyMpiCannotRun().isEmpty())
            QSKIP(qPrintable("MPI: " + whyMpiCannotRun()));
        static int runs = 0;
        const QString out = dir("mode-" + QString::number(++runs));
        const Result r = runCli(smallRun(out) + mode);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QJsonObject summary = readJsonObject(out + "/summary.json");
        QVERIFY2(summary["state"].toString() == "finished", qPrintable(r.describe()));
        const auto weights = tensorsOf(out + "/weights.safetensors");
        QCOMPARE(weights.size(), std::size_t(8));
        for (const auto& [name, values] : weights)
            for (float v : values)
                QVERIFY2(std::isfinite(v), name.c_str());
    }

    void dropoutResumesItsDraws() {
        // Dropout's draws are named by the epoch and the batch's place, so
        // 2 epochs and 1 + 1 resumed end on the same bits.
        QStringList run = smallRun(dir("drop-full"));
        run << "--mode"
            << "serial"
            << "--workers"
            << "1"
            << "--momentum"
            << "0.5";
        QVERIFY(run.contains("2"));
        Result r = runCli(run);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QStringList half = run;
        half[half.indexOf("--epochs") + 1] = "1";
        half[half.indexOf("--out") + 1] = dir("drop-half");
        r = runCli(half);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        r = runCli({"--resume", dir("drop-half"), "--epochs", "2", "--out", dir("drop-resumed"),
                    "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY(readBytes(dir("drop-full/weights.safetensors").toStdString()) ==
                readBytes(dir("drop-resumed/weights.safetensors").toStdString()));
        // And the draws matter: without dropout the run ends elsewhere.
        QStringList plain = run;
        plain[plain.indexOf("--out") + 1] = dir("drop-none");
        plain << "--dropout"
              << "0";
        r = runCli(plain);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY(largestDifference(tensorsOf(dir("drop-full/weights.safetensors")),
                                  tensorsOf(dir("drop-none/weights.safetensors"))) > 1e-4);
    }

    // gpu-hogwild refuses it by name before the run, whether or not a GPU
    // is here; data-parallel on cuda takes it (tst_gpu trains it there).
    void gpuHogwildRefusesItDataParallelTakesIt() {
        ExperimentConfig c;
        c.model = "cnn:mnist";
        c.dataset = "fashion-mnist";
        c.mode = "gpu-hogwild";
        c.device = Device::Cuda;
        c.momentum = 0;
        if (const std::string why = whyGpuModeIsNotHere(c); !why.empty())
            QSKIP(why.c_str());
        bool named = false;
        for (const ConfigIssue& i : validateExperiment(c))
            named = named || (i.field == "model" &&
                              i.message.find("gpu-hogwild's blocks know the mlp and the "
                                             "embedding bag") != std::string::npos);
        QVERIFY(named);
        c.mode = "data-parallel";
        c.workers = 2;
        c.replicasPerGpu = 2;
        c.momentum = 0.5;
        for (const ConfigIssue& i : validateExperiment(c))
            QVERIFY2(i.field != "model", i.message.c_str());
    }

    void whatDoesNotFitIsRefused() {
        const Result r = runCli({"--model", "mlp:784-10", "--dropout", "0.2", "--quiet"});
        QVERIFY2(r.code == 2 && r.err.contains("dropout applies to the model's dropout layers"),
                 qPrintable(r.describe()));
        const Result shape = runCli({"--model", "cnn:mnist", "--dataset", "teacher:100x20:4"});
        QVERIFY2(shape.code == 2 && shape.err.contains("784 features"),
                 qPrintable(shape.describe()));
        const Result spec = runCli({"--model", "cnn:cifar"});
        QVERIFY2(spec.code == 2 && spec.err.contains("the one convolutional network is cnn:mnist"),
                 qPrintable(spec.describe()));
    }

    void exportLoadsIntoTheExamplesNet() {
        const QString weights = dir("parity/weights.safetensors");
        if (!QFileInfo::exists(weights))
            QSKIP("serialSgdMatchesPytorch made no weights");
        if (!pythonCan("torch"))
            QSKIP("/usr/bin/python3 cannot import torch (apt-get install python3-torch)");
        const QString script = QStringLiteral(R"PY(
import importlib.util, json, struct, sys
import torch
spec = importlib.util.spec_from_file_location('net', sys.argv[2])
net = importlib.util.module_from_spec(spec)
spec.loader.exec_module(net)
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
header = json.loads(data[8:8 + n])
header.pop('__metadata__', None)
state = {}
for name, info in header.items():
    begin, end = info['data_offsets']
    state[name] = torch.frombuffer(bytearray(data[8 + n + begin:8 + n + end]),
                                   dtype=torch.float32).reshape(info['shape'])
model = net.Net()
model.load_state_dict(state, strict=True)
model.eval()
with torch.no_grad():
    y = model(torch.zeros(2, 1, 28, 28))
assert y.shape == (2, 10)
print('ok')
)PY");
        const PyResult py = runPython(
            script, {weights, QString::fromUtf8(kSourceDir) + "/bench/mnist_hogwild_net.py"});
        QVERIFY2(py.code == 0, py.err.constData());
        QCOMPARE(py.out.trimmed(), QByteArray("ok"));
    }
};

QTEST_GUILESS_MAIN(TestCnn)
#include "strategy/validation.h"
#include "tst_cnn.moc"
