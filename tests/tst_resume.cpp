// --out keeps the optimizer's state (optimizer.safetensors: the momentum
// buffers under torch.optim.SGD's state names, each worker's place in the
// data) and --resume DIR continues from it: a serial run of 10 epochs and
// one of 5 resumed for 5 more end bit for bit equal; a run stopped in the
// middle of an epoch resumes at the step it stopped, its cosine schedule
// too; Hogwild threads resume with each worker's momentum; PyTorch's SGD,
// given the weights and the state, goes on as the resumed run does (when
// python3-torch is installed). And every way a resume can be wrong is
// refused before training, by name.
#include "clitest.h"
#include "config/experimentconfig.h"
#include "enginetestutil.h"
#include "io/metricslog.h"
#include "io/optimizerstate.h"
#include "io/tensorfile.h"
#include "util/errors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <filesystem>

using namespace hwl;
using namespace hwl::test;

namespace {
const QStringList kRun = {"--model",        "mlp:20-16-4", "--dataset", "teacher:4000x20:4:16",
                          "--momentum",     "0.9",         "--lr",      "0.05",
                          "--warmup-steps", "30",          "--quiet"};

QByteArray bytesOf(const QString& file) {
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ExperimentConfig smallSerial() {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:4000x20:4:16";
    c.mode = "serial";
    c.workers = 1;
    c.epochs = 6;
    c.batch = 32;
    c.lr = 0.05;
    c.momentum = 0.9;
    c.lrSchedule = "cosine";
    return c;
}
} // namespace

namespace {
/// torch.optim.SGD continued from a run's folder (argv 1: weights and
/// optimizer.safetensors loaded by their names, param_groups as written) for
/// the epochs a resumed run made (to argv 4, in file order over the idx
/// rows of argv 3); prints the largest distance to that run's weights
/// (argv 2), with the momentum buffers and, as a control, without them.
const char* kTorchContinues = R"PY(
import json, struct, sys
import torch, torch.nn as nn, torch.nn.functional as F
def load(path):
    data = open(path, 'rb').read()
    (n,) = struct.unpack('<Q', data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop('__metadata__', {})
    return {k: torch.frombuffer(bytearray(data[8 + n + v['data_offsets'][0]:
                                               8 + n + v['data_offsets'][1]]),
                                dtype=torch.float32).reshape(v['shape'])
            for k, v in header.items()}, meta
first, second, rowsDir, lastEpoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
weights, _ = load(first + '/weights.safetensors')
state, meta = load(first + '/optimizer.safetensors')
expected, _ = load(second + '/weights.safetensors')
images = open(rowsDir + '/train-images-idx3-ubyte', 'rb').read()
labels = open(rowsDir + '/train-labels-idx1-ubyte', 'rb').read()
rows = struct.unpack('>I', labels[4:8])[0]
x = torch.tensor(list(images[16:]), dtype=torch.uint8).float().div(255).view(rows, 784)
y = torch.tensor(list(labels[8:]), dtype=torch.long)
groups = json.loads(meta['param_groups'])
done = json.loads(meta['workers'])[0]['epochs_done']
batch = int(sys.argv[5])
torch.set_num_threads(1)
def distance(momentum):
    model = nn.Sequential(nn.Linear(784, 16), nn.ReLU(), nn.Linear(16, 10))
    model.load_state_dict(weights, strict=True)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    buffers = {i: {'momentum_buffer': state['state.%d.momentum_buffer' % i].clone()}
               for i in groups[0]['params']}
    opt.load_state_dict({'state': buffers if momentum else {}, 'param_groups': groups})
    for _ in range(lastEpoch - done):
        for start in range(0, rows, batch):
            opt.zero_grad()
            F.cross_entropy(model(x[start:start + batch]), y[start:start + batch]).backward()
            opt.step()
    return max((model.state_dict()[k] - expected[k]).abs().max().item() for k in expected)
print(distance(True), distance(False))
)PY";
} // namespace

class TestResume : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;

    QString dir(const char* name) const { return tmp_.filePath(name); }

    /// Runs the CLI; its status must be 0.
    void train(const QStringList& args) {
        const Result r = runCli(args);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
    }

    /// The epochs of a run folder's metrics.csv's epoch rows, checking that
    /// time and samples never go back.
    static QList<quint32> epochsIn(const QString& folder) {
        const hwl::MetricsLog log =
            hwl::MetricsLog::fromCsv((folder + "/metrics.csv").toStdString());
        QList<quint32> epochs;
        double time = 0;
        std::uint64_t samples = 0;
        bool forward = true;
        log.forEach([&](const hwl::Sample& s) {
            if (s.kind != hwl::Sample::EpochEnd)
                return;
            epochs << s.epoch;
            forward = forward && s.time >= time && s.samples > samples;
            time = s.time;
            samples = s.samples;
        });
        return forward ? epochs : QList<quint32>{};
    }

    /// The CLI's refusal of `args`: status 2, nothing trained, `message` said.
    void refused(const QStringList& args, const QString& message) {
        const Result r = runCli(args);
        QVERIFY2(r.code == 2 && r.err.contains(message) && !r.out.contains("summary:"),
                 qPrintable(message + "\n" + r.describe()));
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void tenEpochsEqualFivePlusFive() {
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "10"
                                << "--out" << dir("full"));
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "5"
                                << "--out" << dir("half"));
        // The state after 5 epochs: PyTorch's names, one buffer per tensor.
        std::map<std::string, std::string> meta;
        const auto half = tensorsOf(dir("half/optimizer.safetensors"), &meta);
        QCOMPARE(int(half.size()), 4);
        QCOMPARE(int(half.at("state.0.momentum_buffer").size()), 16 * 20);
        QCOMPARE(int(half.at("state.3.momentum_buffer").size()), 4);
        const QJsonArray workers =
            QJsonDocument::fromJson(QByteArray::fromStdString(meta.at("workers"))).array();
        QCOMPARE(workers.size(), 1);
        QCOMPARE(workers[0].toObject()["epochs_done"].toInt(), 5);
        QCOMPARE(workers[0].toObject()["steps_in_epoch"].toInt(), 0);
        QVERIFY(meta.at("param_groups").find("\"momentum\":0.9") != std::string::npos);
        // Resumed from its folder alone: the experiment comes from there.
        train({"--resume", dir("half"), "--epochs", "10", "--out", dir("resumed"), "--quiet"});
        const QByteArray full = bytesOf(dir("full/weights.safetensors"));
        QVERIFY(!full.isEmpty());
        QVERIFY2(full == bytesOf(dir("resumed/weights.safetensors")),
                 "10 epochs and 5 + 5 resumed differ");
        QCOMPARE(tensorsOf(dir("resumed/optimizer.safetensors")),
                 tensorsOf(dir("full/optimizer.safetensors")));
        // Without the momentum it would not be the same run: the buffers matter.
        QVERIFY(half.at("state.0.momentum_buffer") != std::vector<float>(16 * 20, 0.0f));
        // metrics.csv keeps the first run's epochs, then counts on.
        QCOMPARE(epochsIn(dir("resumed")), (QList<quint32>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        // The same in place (--resume DIR writing into DIR), where the
        // earlier rows used to be dropped.
        // Its TensorBoard run goes on in the same folder, a second event file.
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "2"
                                << "--out" << dir("inplace") << "--tensorboard" << dir("tb"));
        const QString run =
            readJsonObject(dir("inplace/summary.json"))["tensorboard_run"].toString();
        QVERIFY(!run.isEmpty());
        train({"--resume", dir("inplace"), "--epochs", "4", "--quiet", "--tensorboard", dir("tb")});
        QCOMPARE(epochsIn(dir("inplace")), (QList<quint32>{1, 2, 3, 4}));
        QCOMPARE(QDir(dir("tb")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{run});
        QCOMPARE(QDir(dir("tb") + "/" + run).entryList({"events.out.tfevents.*"}).size(), 2);
        QCOMPARE(readJsonObject(dir("inplace/summary.json"))["tensorboard_run"].toString(), run);
        // Resumed into another folder it is another run: a TensorBoard run of its own.
        train({"--resume", dir("inplace"), "--epochs", "5", "--quiet", "--tensorboard", dir("tb"),
               "--out", dir("forked")});
        QCOMPARE(QDir(dir("tb")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 2);
        QCOMPARE(QDir(dir("tb") + "/" + run).entryList({"events.out.tfevents.*"}).size(), 2);
    }

    // Each optimizer's state (its buffers under torch's state keys, the
    // step count Adam's bias correction and Adagrad's decay take) comes
    // back bit for bit: 4 epochs equal 2 + 2 resumed, weights and state.
    // Resumed with another optimizer (one that takes the same fields), the
    // state is refused by name.
    void eachOptimizerResumesBitForBit_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QStringList>("keys");
        QTest::addColumn<QString>("other");
        QTest::newRow("sgd nesterov")
            << QStringList{"--optimizer", "sgd", "--nesterov", "--weight-decay", "0.001"}
            << QStringList{"momentum_buffer"} << "";
        QTest::newRow("adam") << QStringList{"--optimizer", "adam", "--weight-decay", "0.01"}
                              << QStringList{"exp_avg", "exp_avg_sq"} << "adamw";
        QTest::newRow("adamw") << QStringList{"--optimizer", "adamw", "--weight-decay", "0.01"}
                               << QStringList{"exp_avg", "exp_avg_sq"} << "adam";
        QTest::newRow("rmsprop") << QStringList{"--optimizer", "rmsprop", "--weight-decay", "0.01"}
                                 << QStringList{"square_avg"} << "adagrad";
        QTest::newRow("adagrad")
            << QStringList{"--optimizer",           "adagrad", "--lr-decay", "0.01",
                           "--initial-accumulator", "0.1"}
            << QStringList{"sum"} << "";
    }
    void eachOptimizerResumesBitForBit() {
        QFETCH(QStringList, flags);
        QFETCH(QStringList, keys);
        QFETCH(QString, other);
        const QString name = flags.at(1) + QString::number(flags.size());
        const QStringList run =
            QStringList{"--model", "mlp:20-16-4", "--dataset", "teacher:2000x20:4:16",
                        "--lr",    "0.01",        "--mode",    "serial",
                        "--quiet"}
            << flags;
        train(QStringList(run) << "--epochs"
                               << "4"
                               << "--out" << dir(qPrintable(name + "4")));
        train(QStringList(run) << "--epochs"
                               << "2"
                               << "--out" << dir(qPrintable(name + "2")));
        const QString half = dir(qPrintable(name + "2"));
        std::map<std::string, std::string> meta;
        const auto state = tensorsOf(half + "/optimizer.safetensors", &meta);
        QCOMPARE(meta.at("optimizer"), flags.at(1).toStdString());
        QCOMPARE(int(state.size()), 4 * int(keys.size()));
        for (const QString& key : keys) {
            const auto& buffer = state.at("state.0." + key.toStdString());
            QCOMPARE(int(buffer.size()), 16 * 20);
            QVERIFY(buffer != std::vector<float>(buffer.size(), 0.0f));
        }
        const QString resumed = dir(qPrintable(name + "2+2"));
        train({"--resume", half, "--epochs", "4", "--out", resumed, "--quiet"});
        const QByteArray full = bytesOf(dir(qPrintable(name + "4/weights.safetensors")));
        QVERIFY(!full.isEmpty());
        QVERIFY2(full == bytesOf(resumed + "/weights.safetensors"),
                 "4 epochs and 2 + 2 resumed differ");
        QCOMPARE(tensorsOf(resumed + "/optimizer.safetensors"),
                 tensorsOf(dir(qPrintable(name + "4/optimizer.safetensors"))));
        if (other.isEmpty()) // its own fields would be refused first, for another optimizer
            return;
        refused({"--resume", half, "--epochs", "4", "--optimizer", other},
                "holds the state of optimizer " + flags.at(1) + ", and this run has --optimizer " +
                    other + ": resume with --optimizer " + flags.at(1));
    }

    // Stopped in the middle of an epoch (here some 40 steps into epoch 2,
    // of 113 per epoch, of a 6-epoch cosine schedule): resumed at that step, it ends
    // where the uninterrupted run ends; Adam's step count with it.
    void aRunStoppedMidEpochResumesAtItsStep_data() {
        QTest::addColumn<int>("optimizer");
        QTest::newRow("sgd") << int(OptimizerKind::Sgd);
        QTest::newRow("adam") << int(OptimizerKind::Adam);
    }
    void aRunStoppedMidEpochResumesAtItsStep() {
        QFETCH(int, optimizer);
        ExperimentConfig c = smallSerial();
        c.optimizer = OptimizerKind(optimizer);
        if (c.optimizer != OptimizerKind::Sgd)
            c.lr = 0.003;
        const auto whole = runToEnd(c);
        QCOMPARE(whole->summary().state, RunState::Finished);
        const std::filesystem::path folder =
            dir(qPrintable("cut-" + QString(toString(c.optimizer)))).toStdString();
        std::filesystem::create_directories(folder);
        // A steady pace of 1000 steps a second, stopped 37 steps past epoch
        // 1's end: the stop lands mid-epoch unless the machine stalls ~76 ms,
        // and a stop that lands on an epoch's end anyway is made again.
        QJsonObject at;
        for (int attempt = 0; attempt < 5 && at["steps_in_epoch"].toInt() == 0; ++attempt) {
            Run cut(c);
            cut.setPace(1000);
            cut.start();
            while (cut.telemetry().worker(0).steps < 150 && !cut.finished())
                QTest::qWait(1);
            cut.stop();
            QVERIFY(cut.wait(std::chrono::seconds(60)));
            QCOMPARE(cut.summary().state, RunState::Stopped);
            cut.writeWeights(folder / "weights.safetensors");
            cut.writeOptimizerState(folder / "optimizer.safetensors");
            std::map<std::string, std::string> meta;
            readSafetensors(folder / "optimizer.safetensors", &meta);
            at = QJsonDocument::fromJson(QByteArray::fromStdString(meta["workers"]))
                     .array()[0]
                     .toObject();
        }
        QVERIFY2(at["steps_in_epoch"].toInt() > 0, // mid-epoch
                 QJsonDocument(at).toJson().constData());
        ExperimentConfig resumed = c;
        resumed.resume = folder.string();
        const auto rest = runToEnd(resumed);
        QCOMPARE(rest->summary().state, RunState::Finished);
        QCOMPARE(rest->summary().epochsCompleted, c.epochs);
        QVERIFY2(rest->parameters() == whole->parameters(), "the resumed run ended elsewhere");
        // Mid-epoch, the updates skipped are counted in the stored stream:
        // a run that changes it is refused by the field's name.
        const auto refusedWith = [&](ExperimentConfig changed, const QString& why) {
            try {
                Run r(changed);
                r.start();
                r.stop();
                r.wait(std::chrono::seconds(60));
                QFAIL(qPrintable("not refused: " + why));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(why), e.what());
                QVERIFY2(QString(e.what()).contains("stopped "), e.what());
            }
        };
        ExperimentConfig other = resumed;
        other.batch = 64;
        refusedWith(other, "with batch 32, and this run has batch 64");
        other = resumed;
        other.accumulate = 2;
        refusedWith(other, "with accumulate 1, and this run has accumulate 2");
        other = resumed;
        other.shuffle = false;
        refusedWith(other, "with shuffle true, and this run has shuffle false");
        other = resumed;
        other.seed = 7;
        refusedWith(other, "so resume with seed 42");
    }

    void hogwildThreadsResumeWithTheirMomentum() {
        train(QStringList(kRun) << "--mode"
                                << "threads"
                                << "--workers"
                                << "2"
                                << "--epochs"
                                << "2"
                                << "--out" << dir("hogwild"));
        const auto state = tensorsOf(dir("hogwild/optimizer.safetensors"));
        QCOMPARE(int(state.size()), 8); // each worker its own optimizer, as mnist_hogwild
        const auto& w0 = state.at("worker.0.state.0.momentum_buffer");
        const auto& w1 = state.at("worker.1.state.0.momentum_buffer");
        QVERIFY(w0 != std::vector<float>(w0.size(), 0.0f));
        QVERIFY(w0 != w1);
        train({"--resume", dir("hogwild"), "--epochs", "4", "--out", dir("hogwild2"), "--quiet"});
        QFile summary(dir("hogwild2/summary.json"));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(summary.readAll()).object();
        QCOMPARE(doc["state"].toString(), QString("finished"));
        // One Hogwild thread is serial: its resume is bit for bit too.
        train(QStringList(kRun) << "--mode"
                                << "threads"
                                << "--workers"
                                << "1"
                                << "--epochs"
                                << "4"
                                << "--out" << dir("one4"));
        train(QStringList(kRun) << "--mode"
                                << "threads"
                                << "--workers"
                                << "1"
                                << "--epochs"
                                << "2"
                                << "--out" << dir("one2"));
        train({"--resume", dir("one2"), "--epochs", "4", "--out", dir("one2+2"), "--quiet"});
        QVERIFY(bytesOf(dir("one4/weights.safetensors")) ==
                bytesOf(dir("one2+2/weights.safetensors")));
    }

    // The state is PyTorch's: torch.optim.SGD loads the buffers and
    // param_groups as written and, from the same weights over the same rows
    // in file order, ends where the resumed run ends (the MLP's step is the
    // same as nn.Linear's, within float rounding). The control without the
    // buffers must land far away, or the check would show nothing.
    void pytorchContinuesFromTheState() {
        if (!pythonCan("torch"))
            QSKIP("/usr/bin/python3 cannot import torch (apt-get install python3-torch)");
        const QString rows = QString::fromUtf8(kSourceDir) + "/tests/data/cnn-parity";
        train({"--model",
               "mlp:784-16-10",
               "--dataset",
               "idx:" + rows,
               "--test-fraction",
               "0",
               "--no-shuffle",
               "--mode",
               "serial",
               "--batch",
               "16",
               "--lr",
               "0.05",
               "--momentum",
               "0.9",
               "--epochs",
               "2",
               "--quiet",
               "--out",
               dir("torch-first")});
        train({"--resume", dir("torch-first"), "--epochs", "4", "--quiet", "--out",
               dir("torch-resumed")});
        const PyResult py =
            runPython(kTorchContinues, {dir("torch-first"), dir("torch-resumed"), rows, "4", "16"});
        QVERIFY2(py.code == 0, py.err.constData());
        const QList<QByteArray> gaps = py.out.trimmed().split(' ');
        QCOMPARE(gaps.size(), 2);
        const double withMomentum = gaps[0].toDouble(), without = gaps[1].toDouble();
        QVERIFY2(withMomentum < 1e-5, py.out.constData());
        QVERIFY2(without > 1e-3, py.out.constData());
    }

    void whatCannotBeResumedIsRefusedByName() {
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "2"
                                << "--out" << dir("base"));
        const QString base = dir("base");
        refused({"--resume", dir("nowhere")},
                "--resume: \"" + dir("nowhere") + "\" does not exist");
        refused({"--resume", base + "/summary.json"}, "is a file, not a directory");
        refused({"--resume="}, "--resume: an empty path; name a directory");
        refused({"--resume", base, "--epochs", "2"},
                "ends after 2 epochs, and this run asks for 2 in all");
        refused({"--resume", base, "--epochs", "4", "--workers", "3", "--mode", "threads"},
                "holds the state of 1 worker, and this run has 3; resume with --workers 1");
        refused({"--resume", base, "--epochs", "4", "--momentum", "0"},
                "holds momentum buffers, and this run has --momentum 0");
        refused({"--resume", base, "--epochs", "4", "--model", "mlp:20-8-4"},
                "resume: weights file");
        refused({"--resume", base, "--epochs", "4", "--mode", "processes"},
                "resume applies to mode serial, threads or threads-locked only");
        refused({"--resume", base, "--epochs", "4", "--init", base + "/weights.safetensors"},
                "init and resume both name the weights");
        // At the end of an epoch the data stream may change: nothing is skipped.
        train({"--resume", base, "--epochs", "3", "--batch", "64", "--quiet"});
        // A folder without the optimizer's state (a run of another mode, or an old one).
        std::filesystem::copy(base.toStdString(), dir("noopt").toStdString());
        std::filesystem::remove(dir("noopt/optimizer.safetensors").toStdString());
        refused({"--resume", dir("noopt"), "--epochs", "4"},
                "resume: " + dir("noopt") + ": not a whole run: optimizer.safetensors is missing");
        // Without its manifest (a run written before manifests), each file is judged itself.
        std::filesystem::remove(dir("noopt/manifest.json").toStdString());
        refused({"--resume", dir("noopt"), "--epochs", "4"}, "holds no optimizer.safetensors");
        // A state whose positions are not numbers.
        writeSafetensors(dir("noopt/optimizer.safetensors").toStdString(), {},
                         {{"format", "hogwild-lab optimizer state 1"},
                          {"model", "mlp:20-16-4"},
                          {"workers", "[{\"epochs_done\": -1}]"}});
        refused({"--resume", dir("noopt"), "--epochs", "4", "--momentum", "0"},
                "has no whole number \"epochs_done\"");
        // Another program's safetensors file in its place.
        writeSafetensors(dir("noopt/optimizer.safetensors").toStdString(), {}, {});
        refused({"--resume", dir("noopt"), "--epochs", "4"},
                "is not an optimizer state hogwild-lab wrote");
    }

    // A run stopped at its target, resumed: the target is met before any
    // step and the run says so; a harder target trains on, its time to
    // target counted from where it resumed and its samples the earlier
    // run's too.
    void aRunResumedPastItsTargetSaysSo() {
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "12"
                                << "--target-accuracy"
                                << "75"
                                << "--out" << dir("target"));
        const QJsonObject first = readJsonObject(dir("target/summary.json"));
        QVERIFY(first["target"].toObject()["reached"].toBool());
        const int epochs = first["final"].toObject()["epochs_completed"].toInt();
        QVERIFY2(epochs < 12, qPrintable(QString::number(epochs)));
        // metrics.csv: a target row right after the evaluation that reached it.
        const QStringList rows = QString::fromUtf8(bytesOf(dir("target/metrics.csv"))).split('\n');
        const qsizetype at =
            rows.indexOf(QRegularExpression("^-1,\\d+,\\d+,\\d+,[^,]+,[^,]+,target,.*"));
        QVERIFY2(at > 1 && rows.filter(",target,").size() == 1, qPrintable(rows.join('\n')));
        QCOMPARE(rows[at - 1].section(',', 6, 6), QStringLiteral("eval"));
        QCOMPARE(rows[at].section(',', 1, 1).toInt(), epochs);
        QCOMPARE(rows[at].section(',', 4, 4), rows[at - 1].section(',', 4, 4)); // its test loss
        QCOMPARE(rows[at].section(',', 8, 8), rows[at - 1].section(',', 8, 8)); // and accuracy
        refused({"--resume", dir("target"), "--epochs", "12"},
                "target-accuracy: the weights of the resumed run already reach test accuracy "
                "75%");
        const Result r = runCli({"--resume", dir("target"), "--epochs", QString::number(epochs + 2),
                                 "--target-accuracy", "99.9", "--out", dir("target2")});
        QVERIFY2(r.code == 0 && r.out.contains("summary: target: test accuracy 99.9% not reached"),
                 qPrintable(r.describe()));
    }

    // Stopped at its target at a gate inside an epoch (--eval-every 7),
    // resumed with a harder one: it goes on from that step of that epoch,
    // its next evaluation 7 steps on, and trains its epochs to their end.
    void aRunStoppedInsideAnEpochResumesThere() {
        train(QStringList(kRun) << "--mode"
                                << "serial"
                                << "--epochs"
                                << "12"
                                << "--eval-every"
                                << "7"
                                << "--target-accuracy"
                                << "75"
                                << "--out" << dir("inside"));
        const QJsonObject target = readJsonObject(dir("inside/summary.json"))["target"].toObject();
        QVERIFY2(target["during_epoch"].toBool(), qPrintable(QJsonDocument(target).toJson()));
        const int epoch = target["epochs"].toInt();
        const int steps = target["steps"].toInt();
        const Result r =
            runCli({"--resume", dir("inside"), "--epochs", QString::number(epoch), "--eval-every",
                    "7", "--target-accuracy", "99.9", "--out", dir("inside2")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QJsonObject final = readJsonObject(dir("inside2/summary.json"))["final"].toObject();
        QCOMPARE(final["epochs_completed"].toInt(), epoch);
        // metrics.csv goes on from the first run's: its next evaluation after the target's.
        const QStringList evals =
            QString::fromUtf8(bytesOf(dir("inside2/metrics.csv"))).split('\n').filter(",eval,");
        const auto next = std::find_if(evals.begin(), evals.end(), [&](const QString& row) {
            return row.section(',', 2, 2).toInt() > steps;
        });
        QVERIFY2(next != evals.end(), qPrintable(evals.join('\n')));
        QCOMPARE(next->section(',', 2, 2).toInt(), steps + 7);
        QCOMPARE(next->section(',', 1, 1).toInt(), epoch);
        QCOMPARE(evals.back().section(',', 1, 1).toInt(), epoch);
    }
};

QTEST_GUILESS_MAIN(TestResume)
#include "tst_resume.moc"
