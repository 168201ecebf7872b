// Layer lists (--model net:SHAPE:LAYERS) end to end through the CLI: a list
// with every kind of layer, from the initial weights of the nn.Sequential of
// the same layers, in file order without dropout, ends within 1e-5 of torch
// 1.13's weights (tests/data/net-parity, made by make_net_parity.py), under
// the Sequential's tensor names; cnn:mnist and mlp: train bit for bit as
// their net: spellings; every CPU mode trains a list; the GPU modes refuse
// lists by name; what does not fit is refused before the run. Parsing and
// shapes are in tst_modelspec, gradients in tst_gradients, the ONNX graph in
// tst_onnx and tst_onnxinterop.
#include "clitest.h"
#include "config/experimentconfig.h"
#include "enginetestutil.h"
#include "testpaths.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

using namespace hwl;
using namespace hwl::test;

namespace {
QString parityDir() {
    return QString::fromUtf8(kSourceDir) + "/tests/data/net-parity";
}

QJsonObject settings() {
    return QJsonDocument::fromJson(readBytes((parityDir() + "/settings.json").toStdString()))
        .object();
}

/// The parity data, `model`, 2 epochs of 16: what the mode and alias cases run.
QStringList smallRun(const QString& model, const QString& out) {
    return {"--model",
            model,
            "--dataset",
            "csv:" + parityDir() + "/data.csv",
            "--test-fraction",
            "0",
            "--epochs",
            "2",
            "--batch",
            "16",
            "--quiet",
            "--out",
            out};
}

/// The bytes of a safetensors file's tensors, without its header (the names).
QByteArray tensorBytes(const QString& file) {
    const QByteArray bytes = readBytes(file.toStdString());
    if (bytes.size() < 8)
        return {};
    quint64 header = 0;
    std::memcpy(&header, bytes.constData(), 8);
    return bytes.mid(qsizetype(8 + header));
}
} // namespace

class TestLayers : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString dir(const QString& name) const { return tmp_.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void everyLayerMatchesPytorchSequential() {
        const QJsonObject s = settings();
        QVERIFY(!s.isEmpty());
        RUN_CLI(r, parityRunArgs(s["model"].toString(), "csv:" + parityDir() + "/data.csv", s,
                                 parityDir() + "/init.safetensors", dir("parity")));
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const auto ours = tensorsOf(dir("parity/weights.safetensors"));
        const auto torch = tensorsOf(parityDir() + "/expected.safetensors");
        const auto init = tensorsOf(parityDir() + "/init.safetensors");
        // The Sequential's state_dict names, every one: 0 conv, 3 conv, 8 fc, 11 fc.
        std::vector<std::string> names;
        for (const auto& [name, values] : ours)
            names.push_back(name);
        QCOMPARE(names, (std::vector<std::string>{"0.bias", "0.weight", "11.bias", "11.weight",
                                                  "3.bias", "3.weight", "8.bias", "8.weight"}));
        QCOMPARE(torch.size(), ours.size());
        QVERIFY(largestDifference(torch, init) > 1e-2); // training moved them ...
        const double worst = largestDifference(ours, torch);
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst))); // ... to the same place
    }

    void aliasesTrainBitForBit_data() {
        QTest::addColumn<QString>("alias");
        QTest::addColumn<QString>("net");
        QTest::addColumn<QStringList>("extra");
        const QString mnist = "net:1x28x28:conv10k5,maxpool2,relu,conv20k5,dropout2d,maxpool2,"
                              "relu,flatten,fc50,relu,dropout,fc10";
        const QStringList images = {"--dataset", "teacher:600x784:10"};
        QTest::newRow("cnn:mnist, dropout 0.5") << "cnn:mnist" << mnist << images;
        QTest::newRow("cnn:mnist, dropout 0.3, threads-locked")
            << "cnn:mnist" << mnist
            << (images +
                QStringList{"--dropout", "0.3", "--mode", "threads-locked", "--workers", "1"});
        QTest::newRow("cnn:mnist, adam")
            << "cnn:mnist" << mnist << (images + QStringList{"--optimizer", "adam"});
        QTest::newRow("mlp relu") << "mlp:128-16-4"
                                  << "net:128:fc16,relu,fc4" << QStringList{};
        QTest::newRow("mlp tanh, two hidden") << "mlp:128-16-8-4:tanh"
                                              << "net:128:fc16,tanh,fc8,tanh,fc4" << QStringList{};
        QTest::newRow("mlp sigmoid") << "mlp:128-12-4:sigmoid"
                                     << "net:128:fc12,sigmoid,fc4" << QStringList{};
        QTest::newRow("logistic regression") << "mlp:128-4"
                                             << "net:128:fc4" << QStringList{};
    }
    void aliasesTrainBitForBit() {
        QFETCH(QString, alias);
        QFETCH(QString, net);
        QFETCH(QStringList, extra);
        const QString tag = QTest::currentDataTag();
        QStringList weights;
        for (const QString& model : {alias, net}) {
            const QString out = dir("alias " + tag + " " + model.left(4));
            QStringList args =
                smallRun(model, out) + QStringList{"--mode", "serial", "--workers", "1"};
            args += extra; // the later flags win
            RUN_CLI(r, args);
            QVERIFY2(r.code == 0, qPrintable(r.describe()));
            weights << out + "/weights.safetensors";
        }
        const QByteArray a = tensorBytes(weights[0]), b = tensorBytes(weights[1]);
        QVERIFY(!a.isEmpty());
        QVERIFY2(a == b, "the alias and its net: spelling trained different weights");
        // Each under its own names: mnist_hogwild's Net's or the Sequential's.
        const auto named = tensorsOf(weights[1]);
        QVERIFY(named.count("0.weight"));
        QCOMPARE(tensorsOf(weights[0]).count("conv1.weight"), std::size_t(alias == "cnn:mnist"));
    }

    void everyCpuModeTrainsAList_data() { addEveryCpuModeRows(); }
    void everyCpuModeTrainsAList() {
        QFETCH(QStringList, mode);
        if (mode.contains("mpi") && !whyMpiCannotRun().isEmpty())
            QSKIP(qPrintable("MPI: " + whyMpiCannotRun()));
        static int runs = 0;
        const QString out = dir("mode-" + QString::number(++runs));
        RUN_CLI(r, smallRun("net:2x8x8:conv4k3p1,relu,maxpool2,dropout2d0.2,flatten,fc8,gelu,"
                            "dropout,fc4",
                            out) +
                       mode);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QJsonObject summary = readJsonObject(out + "/summary.json");
        QVERIFY2(summary["state"].toString() == "finished", qPrintable(r.describe()));
        const auto weights = tensorsOf(out + "/weights.safetensors");
        QCOMPARE(weights.size(), std::size_t(6)); // the conv (0) and the two fc (5, 8)
        QVERIFY(weights.count("0.weight") && weights.count("5.weight") && weights.count("8.bias"));
        for (const auto& [name, values] : weights)
            for (float v : values)
                QVERIFY2(std::isfinite(v), name.c_str());
    }

    void gpuModesRefuseAListByName_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("words");
        QTest::newRow("a convolution") << "net:1x28x28:conv4k3,relu,flatten,fc10"
                                       << "its layer 1 (conv4k3) is not one of theirs";
        QTest::newRow("gelu") << "net:784:fc32,gelu,fc10"
                              << "its layer 2 (gelu)";
        QTest::newRow("an mlp spelled as a list") << "net:784:fc32,tanh,fc10"
                                                  << "this network is mlp:784-32-10:tanh";
        QTest::newRow("cnn:mnist spelled as a list")
            << "net:1x28x28:conv10k5,maxpool2,relu,conv20k5,dropout2d,maxpool2,relu,flatten,fc50,"
               "relu,dropout,fc10"
            << "write cnn:mnist";
    }
    void gpuModesRefuseAListByName() {
        QFETCH(QString, model);
        QFETCH(QString, words);
        ExperimentConfig c;
        c.model = model.toStdString();
        c.dataset = "fashion-mnist";
        c.device = Device::Cuda;
        c.momentum = 0;
        c.workers = 2;
        for (const char* mode : {"gpu-hogwild", "data-parallel"}) {
            c.mode = mode;
            if (const std::string why = whyGpuModeIsNotHere(c); !why.empty())
                QSKIP(why.c_str());
            bool named = false;
            for (const ConfigIssue& i : validateExperiment(c))
                named = named ||
                        (i.field == "model" && QString::fromStdString(i.message).contains(words) &&
                         i.message.find("not a net: layer list") != std::string::npos);
            QVERIFY2(named, mode);
        }
    }

    void whatDoesNotFitIsRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        QTest::newRow("fc on an image")
            << QStringList{"--model", "net:1x28x28:conv4k3,fc10"}
            << "layer 2 (fc10) takes a vector, but its input is the image 4x26x26: put flatten "
               "before it";
        QTest::newRow("a convolution on a vector")
            << QStringList{"--model", "net:784:conv4k3,flatten,fc10"}
            << "layer 1 (conv4k3) needs an image";
        QTest::newRow("a kernel larger than the image")
            << QStringList{"--model", "net:1x28x28:maxpool2,maxpool2,maxpool2,conv4k5,flatten,fc10"}
            << "layer 4 (conv4k5) has a kernel of 5 but its input is 1x3x3";
        QTest::newRow("an unknown layer") << QStringList{"--model", "net:784:fc10,softmax,fc10"}
                                          << "layer 2 (softmax) is not a layer";
        QTest::newRow("no classes at the end")
            << QStringList{"--model", "net:784:fc10,relu"} << "must end with fcN";
        QTest::newRow("a bad dropout probability")
            << QStringList{"--model", "net:784:fc10,dropout1.5,fc10"}
            << "layer 2 (dropout1.5) has a probability outside [0, 1)";
        QTest::newRow("a bad shape") << QStringList{"--model", "net:28x28:fc10"} << "is not CxHxW";
        QTest::newRow("too many parameters")
            << QStringList{"--model", "net:1x1000x1000:flatten,fc4000,fc10"}
            << "more than the limit of 2147483648";
        QTest::newRow("the dataset's width")
            << QStringList{"--model", "net:3x32x32:conv4k3,flatten,fc10", "--dataset",
                           "teacher:100x784:10"}
            << "reads images of 3x32x32 (3072 features) but the dataset has 784 features";
        QTest::newRow("sparse data")
            << QStringList{"--model", "net:500:fc10,relu,fc4", "--dataset", "sparse-bow:100x500:4"}
            << "needs dense 500 features, but this dataset is sparse";
        QTest::newRow("--dropout without a dropout layer")
            << QStringList{"--model", "net:784:fc10,dropout0.2,fc10", "--dropout", "0.3"}
            << "dropout applies to the model's dropout layers";
    }
    void whatDoesNotFitIsRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        RUN_CLI(r, args + QStringList{"--quiet", "--epochs", "1"});
        QVERIFY2(r.code == 2 && r.err.contains(words), qPrintable(r.describe()));
    }
};

QTEST_GUILESS_MAIN(TestLayers)
#include "strategy/validation.h"
#include "tst_layers.moc"
