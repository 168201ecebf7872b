// TensorBoard event files (io/tfrecord.h, io/tensorboardlog.h): CRC-32C
// against its published check values, a record's framing byte by byte, the
// log's events parsed back with the project's own messages (the tags, steps
// and values a run's samples give, the HParams, the session's end), and
// what goes wrong: a folder that is a file, an empty path, a disk that
// fills mid-run (the log stops and says why; the run is not its concern).
// The logdir (io/tensorboardlogdir.h): a folder per run, named by time, mode
// and workers; the experiment (what a sweep varies) and the custom_scalars
// layout in its root. tests/tensorboard/check-events reads real runs' files
// with Python: one run, two into one logdir, a sweep's.
#include "io/tensorboard.pb.h"
#include "io/tensorboardlog.h"
#include "io/tensorboardlogdir.h"
#include "io/tfrecord.h"
#include "testutil.h"
#include "util/errors.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sys/resource.h>

using namespace hwl;

namespace {
std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint64_t le(const std::string& bytes, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = (v << 8) | std::uint8_t(bytes[at + std::size_t(i)]);
    return v;
}

/// Every record of an event file, each frame's CRCs checked.
std::vector<tb::Event> readEvents(const std::string& path) {
    const std::string blob = readAll(path);
    std::vector<tb::Event> events;
    std::size_t at = 0;
    while (at < blob.size()) {
        if (blob.size() - at < 16)
            throw std::runtime_error("stray bytes at the end");
        const std::uint64_t length = le(blob, at, 8);
        if (le(blob, at + 8, 4) != maskedCrc(crc32c(blob.data() + at, 8)))
            throw std::runtime_error("a length's CRC is wrong");
        if (length > blob.size() - at - 16)
            throw std::runtime_error("a record is truncated");
        const std::string data = blob.substr(at + 12, length);
        if (le(blob, at + 12 + length, 4) != maskedCrc(crc32c(data.data(), data.size())))
            throw std::runtime_error("a record's CRC is wrong");
        tb::Event e;
        if (!e.ParseFromString(data))
            throw std::runtime_error("a record is not an Event");
        events.push_back(e);
        at += 16 + length;
    }
    return events;
}

/// The summaries of `events` by tag (each tag's last), scalars apart.
struct Read {
    std::map<std::string, std::vector<std::pair<std::int64_t, float>>> scalars;
    std::map<std::string, tb::Summary::Value> plugins;
    std::map<std::string, tb::HParamsPluginData> hparams;
};
Read readSummaries(const std::vector<tb::Event>& events) {
    Read read;
    for (std::size_t i = 1; i < events.size(); ++i)
        for (const auto& v : events[i].summary().value()) {
            if (!v.has_metadata()) {
                read.scalars[v.tag()].emplace_back(events[i].step(), v.simple_value());
                continue;
            }
            read.plugins[v.tag()] = v;
            if (v.metadata().plugin_data().plugin_name() == "hparams" &&
                !read.hparams[v.tag()].ParseFromString(v.metadata().plugin_data().content()))
                throw std::runtime_error("an hparams summary does not parse");
        }
    return read;
}

/// The folders in `dir`.
QStringList runFolders(const QString& dir) {
    return QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

std::string onlyEventFile(const QString& dir) {
    const QStringList files = QDir(dir).entryList({"events.out.tfevents.*"}, QDir::Files);
    return files.size() == 1 ? (dir + "/" + files[0]).toStdString() : std::string();
}

Sample sample(Sample::Kind kind, int worker, int epoch, std::uint64_t step, float loss) {
    Sample s;
    s.kind = kind;
    s.worker = worker;
    s.epoch = std::uint32_t(epoch);
    s.step = step;
    s.samples = step * 10;
    s.time = 0.5 * double(step + 1);
    s.loss = loss;
    return s;
}
} // namespace

class TestTensorBoard : public QObject {
    Q_OBJECT

private slots:
    // RFC 3720's check values and the customary "123456789" one.
    void crc32cHasItsCheckValues() {
        QCOMPARE(crc32c("123456789", 9), 0xE3069283u);
        const std::string zeros(32, '\0'), ones(32, '\xff');
        QCOMPARE(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
        QCOMPARE(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
        std::string ascending(32, '\0');
        for (int i = 0; i < 32; ++i)
            ascending[std::size_t(i)] = char(i);
        QCOMPARE(crc32c(ascending.data(), ascending.size()), 0x46DD794Eu);
        // In pieces as in one go.
        QCOMPARE(crc32c("6789", 4, crc32c("12345", 5)), 0xE3069283u);
    }

    void aRecordIsFramedAsTensorFlowFramesIt() {
        const std::string data = "hello";
        const std::string r = tfRecord(data);
        QCOMPARE(r.size(), data.size() + 16);
        QCOMPARE(le(r, 0, 8), std::uint64_t(5));
        QCOMPARE(le(r, 8, 4), std::uint64_t(maskedCrc(crc32c(r.data(), 8))));
        QCOMPARE(r.substr(12, 5), data);
        QCOMPARE(le(r, 17, 4), std::uint64_t(maskedCrc(crc32c("hello", 5))));
        // The mask: rotate right by 15, add TensorFlow's constant.
        QCOMPARE(maskedCrc(0), 0xa282ead8u);
        QCOMPARE(maskedCrc(0x00008000u), 0x00000001u + 0xa282ead8u);
    }

    // With --eval-every several evaluations fall in one epoch: the test
    // scalars are drawn against each worker's steps (an evaluation counts
    // every worker's), as the training loss is, not the epoch.
    void evaluationsInsideEpochsAreDrawnAgainstSteps() {
        QTemporaryDir dir;
        ExperimentConfig c;
        c.workers = 2;
        c.evalEvery = 10;
        QString folder;
        {
            TensorBoardLog log((dir.path() + "/runs").toStdString(), c);
            folder = QString::fromStdString(log.runFolder());
            for (const std::uint64_t steps : {20u, 40u}) { // both in epoch 1
                Sample eval = sample(Sample::Eval, -1, 1, steps, 1.0f / float(steps));
                eval.accuracy = 0.5f;
                log.append(eval);
            }
            log.finish(RunSummary{});
        }
        auto scalars = readSummaries(readEvents(onlyEventFile(folder))).scalars;
        using Points = std::vector<std::pair<std::int64_t, float>>;
        QCOMPARE(scalars["test/loss"], (Points{{10, 0.05f}, {20, 0.025f}}));
        QCOMPARE(scalars["test/accuracy"], (Points{{10, 0.5f}, {20, 0.5f}}));
    }

    // The samples of a small run become the scalars the header names, with
    // their steps, and the HParams carry the experiment and its end.
    void samplesBecomeScalarsAndHParams() {
        QTemporaryDir dir;
        ExperimentConfig c;
        c.workers = 2;
        c.lrSchedule = "cosine";
        c.out = "/somewhere";
        const QString logdir = dir.path() + "/runs";
        QString folder;
        {
            TensorBoardLog log(logdir.toStdString(), c);
            folder = QString::fromStdString(log.runFolder());
            QCOMPARE(QFileInfo(folder).absolutePath(), QFileInfo(logdir).absoluteFilePath());
            Sample s = sample(Sample::Step, 1, 1, 7, 2.5f);
            s.lr = 0.05f;
            s.divergence = 0.25f;
            log.append(s);
            log.append(sample(Sample::EpochEnd, 1, 1, 20, 1.5f));
            Sample eval = sample(Sample::Eval, -1, 1, 40, 0.75f);
            eval.accuracy = 0.875f;
            log.append(eval);
            RunSummary summary;
            summary.state = RunState::Finished;
            summary.epochsCompleted = 1;
            summary.evaluated = true;
            summary.testAccuracy = 0.875;
            summary.samplesPerSecond = 1234;
            summary.lostUpdates = {3, 4};
            log.finish(summary);
            QVERIFY(log.error().empty());
            log.append(s); // after the end: nothing more
        }
        const std::string file = onlyEventFile(folder);
        QVERIFY2(!file.empty(), "one event file in the folder");
        const std::vector<tb::Event> events = readEvents(file);
        QCOMPARE(events.front().file_version(), std::string("brain.Event:2"));
        Read read = readSummaries(events);
        auto& scalars = read.scalars;
        auto& plugins = read.hparams;
        using Points = std::vector<std::pair<std::int64_t, float>>;
        QCOMPARE(scalars["loss/train/worker_1"], (Points{{7, 2.5f}}));
        QCOMPARE(scalars["divergence/worker_1"], (Points{{7, 0.25f}}));
        QCOMPARE(scalars["lr/worker_1"], (Points{{7, 0.05f}}));
        QCOMPARE(scalars["loss/epoch/worker_1"], (Points{{1, 1.5f}}));
        // 200 samples in the 10.5 s from the run's start to the epoch's end.
        QCOMPARE(scalars["samples_per_second/worker_1"], (Points{{1, float(200 / 10.5)}}));
        QCOMPARE(scalars["test/accuracy"], (Points{{1, 0.875f}}));
        QCOMPARE(scalars["test/loss"], (Points{{1, 0.75f}}));
        QCOMPARE(scalars["lost_updates/worker_0"], (Points{{0, 3.0f}}));
        QCOMPARE(scalars["lost_updates/worker_1"], (Points{{20, 4.0f}}));
        QCOMPARE(scalars["final/samples_per_s"], (Points{{1, 1234.0f}}));
        QCOMPARE(scalars["final/test_accuracy"], (Points{{1, 0.875f}}));
        QCOMPARE(scalars["final/lost_updates"], (Points{{1, 7.0f}}));
        QCOMPARE(scalars.count("final/comm_share"), std::size_t(0)); // not data-parallel

        const auto& start = plugins["_hparams_/session_start_info"].session_start_info();
        QCOMPARE(start.hparams().at("workers").number_value(), 2.0);
        QCOMPARE(start.hparams().at("lr-schedule").string_value(), std::string("cosine"));
        QCOMPARE(start.hparams().at("shuffle").bool_value(), true);
        QCOMPARE(start.hparams().at("seed").string_value(), std::string("42"));
        QCOMPARE(start.hparams().count("out"), std::size_t(0));
        QCOMPARE(start.hparams().count("tensorboard"), std::size_t(0));
        QCOMPARE(start.model_uri(), std::string("/somewhere"));
        // As TensorBoard's own: a null tensor (an empty float vector) as the value.
        const tb::TensorProto& null = read.plugins["_hparams_/session_start_info"].tensor();
        QCOMPARE(null.dtype(), tb::DT_FLOAT);
        QCOMPARE(null.tensor_shape().dim_size(), 1);
        QCOMPARE(null.tensor_shape().dim(0).size(), std::int64_t(0));
        // The experiment is the logdir's, not the run's.
        QCOMPARE(plugins.count("_hparams_/experiment"), std::size_t(0));
        Read root =
            readSummaries(readEvents((logdir + "/" + kTensorBoardExperimentFile).toStdString()));
        const auto& experiment = root.hparams["_hparams_/experiment"].experiment();
        QCOMPARE(experiment.hparam_infos_size(), int(start.hparams().size()));
        for (const auto& h : experiment.hparam_infos()) {
            QVERIFY2(start.hparams().count(h.name()), h.name().c_str());
            QVERIFY(!h.differs()); // one run
        }
        QVERIFY(experiment.metric_infos_size() >= 8);
        QVERIFY(root.plugins.count("custom_scalars__config__"));
        QCOMPARE(plugins["_hparams_/session_end_info"].session_end_info().status(),
                 tb::STATUS_SUCCESS);
    }

    void aStoppedRunEndsUnknownAndAFailedOneAFailure() {
        for (const auto& [state, status] : {std::pair{RunState::Stopped, tb::STATUS_UNKNOWN},
                                            std::pair{RunState::Failed, tb::STATUS_FAILURE}}) {
            QTemporaryDir dir;
            TensorBoardLog log(dir.path().toStdString(), ExperimentConfig{});
            RunSummary summary;
            summary.state = state;
            log.finish(summary);
            tb::HParamsPluginData end;
            const auto events = readEvents(log.file());
            QVERIFY(end.ParseFromString(
                events.back().summary().value(0).metadata().plugin_data().content()));
            QCOMPARE(end.session_end_info().status(), status);
        }
    }

    void aFolderThatCannotBeIsRefusedByName() {
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/plain").toStdString();
        std::ofstream(file) << "x";
        try {
            TensorBoardLog log(file, ExperimentConfig{});
            QFAIL("a file as the folder was accepted");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()),
                     "tensorboard: \"" + file + "\" exists and is not a directory");
        }
        try {
            TensorBoardLog log(file + "/below", ExperimentConfig{});
            QFAIL("a folder below a file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("tensorboard: cannot create directory") == 0,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, TensorBoardLog("", ExperimentConfig{}));
    }

    // A file size limit stands in for a full disk: the writes fail, the log
    // says why and writes nothing more; nothing throws.
    void aFullDiskStopsTheLogNotTheCaller() {
        QTemporaryDir dir;
        TensorBoardLog log(dir.path().toStdString(), ExperimentConfig{});
        rlimit old{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = old;
        small.rlim_cur = 16384;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        for (int i = 0; i < 5000; ++i) {
            log.append(sample(Sample::Step, 0, 1, std::uint64_t(i), 1.0f));
            if (i % 100 == 0)
                log.flush();
        }
        log.finish(RunSummary{});
        setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, oldHandler);
        QCOMPARE(log.error(), std::string(std::strerror(EFBIG)));
    }
    // Issue 39: a logdir of runs. The run folder is named as PyTorch's
    // SummaryWriter names its runs (month, day, time) and after the mode
    // and the workers, in English whatever the locale.
    void aRunFolderIsNamedByTimeModeAndWorkers() {
        std::tm t{};
        t.tm_year = 2026 - 1900;
        t.tm_mon = 11;
        t.tm_mday = 6;
        t.tm_hour = 14;
        t.tm_min = 30;
        t.tm_sec = 5;
        t.tm_isdst = -1;
        ExperimentConfig c;
        c.mode = "threads";
        c.workers = 4;
        QCOMPARE(tensorBoardRunName(c, std::mktime(&t)), std::string("Dec06_14-30-05_threads-4w"));
        c.mode = "a/b c";
        QCOMPARE(tensorBoardRunName(c, std::mktime(&t)), std::string("Dec06_14-30-05_a_b_c-4w"));
    }

    // Two runs into one logdir, in the same second: two run folders, each
    // with its own event file and session; one experiment for the logdir.
    void twoRunsIntoOneLogdirMakeTwoRunFolders() {
        QTemporaryDir dir;
        ExperimentConfig a, b;
        a.workers = 2;
        b.workers = 2;
        b.lr = 0.25;
        const std::string logdir = dir.path().toStdString();
        std::string first, second;
        {
            TensorBoardLog one(logdir, a);
            TensorBoardLog two(logdir, b); // at once, before the first ends
            first = one.runFolder();
            second = two.runFolder();
            one.finish(RunSummary{});
            two.finish(RunSummary{});
        }
        QVERIFY(first != second);
        const QStringList folders = runFolders(dir.path());
        QCOMPARE(folders.size(), 2);
        const std::time_t now = std::time(nullptr);
        for (const QString& f : folders)
            QVERIFY2(QRegularExpression("^[A-Z][a-z]{2}\\d\\d_\\d\\d-\\d\\d-\\d\\d_" +
                                        QString::fromStdString(a.mode) + "-2w(-2)?$")
                         .match(f)
                         .hasMatch(),
                     qPrintable(f + " " + QString::fromStdString(tensorBoardRunName(a, now))));
        double lr[2] = {};
        for (int i = 0; i < 2; ++i) {
            const std::string file = onlyEventFile(dir.path() + "/" + folders[i]);
            QVERIFY2(!file.empty(), "one event file in each run folder");
            Read read = readSummaries(readEvents(file));
            lr[i] = read.hparams["_hparams_/session_start_info"]
                        .session_start_info()
                        .hparams()
                        .at("lr")
                        .number_value();
            QVERIFY(read.hparams.count("_hparams_/session_end_info"));
        }
        QCOMPARE((std::set<double>{lr[0], lr[1]}), (std::set<double>{a.lr, b.lr}));
        const QStringList files = QDir(dir.path()).entryList(QDir::Files);
        QCOMPARE(files, QStringList{kTensorBoardExperimentFile});
    }

    // A sweep's experiment, written before its runs: every field an hparam,
    // those the runs vary marked "differs" (TensorBoard lists them first);
    // written once, the logdir's runs finding it there.
    void aSweepsExperimentMarksWhatItVaries() {
        QTemporaryDir dir;
        std::vector<ExperimentConfig> runs(3);
        runs[1].lr = 0.5;
        runs[2].mode = "threads-locked";
        const std::string logdir = dir.path().toStdString() + "/sweep";
        QVERIFY(writeTensorBoardExperiment(logdir, runs));
        std::string note;
        QVERIFY(!writeTensorBoardExperiment(logdir, {ExperimentConfig{}}, "tensorboard", &note));
        QVERIFY(note.empty()); // there already, whole: kept without a word
        // One a crash cut short (its last record's CRC missing) is replaced, and said.
        const std::string file = logdir + "/" + kTensorBoardExperimentFile;
        const QByteArray whole = hwl::test::readBytes(file);
        QVERIFY(hwl::wholeRecords(whole.toStdString()));
        hwl::test::writeBytes(QString::fromStdString(file), whole.left(whole.size() - 2));
        QVERIFY(!hwl::wholeRecords(whole.left(whole.size() - 2).toStdString()));
        QVERIFY(writeTensorBoardExperiment(logdir, runs, "tensorboard", &note));
        QVERIFY2(note.find("replaced " + file + ", which was not a whole TensorBoard event file") !=
                     std::string::npos,
                 note.c_str());
        QCOMPARE(hwl::test::readBytes(file).size(), whole.size());
        { TensorBoardLog run(logdir, runs[1]); }
        Read root = readSummaries(readEvents(logdir + "/" + kTensorBoardExperimentFile));
        const auto& experiment = root.hparams["_hparams_/experiment"].experiment();
        QStringList differing;
        for (const auto& h : experiment.hparam_infos())
            if (h.differs())
                differing << QString::fromStdString(h.name());
        differing.sort();
        QCOMPARE(differing, (QStringList{"lr", "mode"}));
        QStringList metrics;
        for (const auto& m : experiment.metric_infos())
            metrics << QString::fromStdString(m.name().tag());
        QVERIFY2(metrics.contains("final/test_accuracy") && metrics.contains("final/samples_per_s"),
                 qPrintable(metrics.join(", ")));
        QCOMPARE(runFolders(dir.path() + "/sweep").size(), 1);
    }

    // The custom_scalars layout (a string tensor holding a Layout, tag
    // custom_scalars__config__): one chart per figure whose regular
    // expression takes every worker's tag and no other.
    void theLayoutPutsTheWorkersOfAFigureOnOneChart() {
        QTemporaryDir dir;
        QVERIFY(writeTensorBoardExperiment(dir.path().toStdString(), {ExperimentConfig{}}));
        Read root = readSummaries(
            readEvents((dir.path() + "/" + kTensorBoardExperimentFile).toStdString()));
        const tb::Summary::Value& v = root.plugins["custom_scalars__config__"];
        QCOMPARE(v.metadata().plugin_data().plugin_name(), std::string("custom_scalars"));
        QCOMPARE(v.tensor().dtype(), tb::DT_STRING);
        QCOMPARE(v.tensor().tensor_shape().dim_size(), 0); // a scalar
        QCOMPARE(v.tensor().string_val_size(), 1);
        tb::Layout layout;
        QVERIFY(layout.ParseFromString(v.tensor().string_val(0)));
        QCOMPARE(layout.category_size(), 1);
        std::map<std::string, std::string> regexOf;
        for (const tb::Chart& chart : layout.category(0).chart()) {
            QCOMPARE(chart.multiline().tag_size(), 1);
            regexOf[chart.title()] = chart.multiline().tag(0);
        }
        const std::regex loss(regexOf.at("training loss, every worker"));
        for (const char* tag : {"loss/train/worker_0", "loss/train/worker_17"})
            QVERIFY2(std::regex_search(tag, loss), tag);
        for (const char* tag : {"loss/epoch/worker_0", "test/loss", "loss/train/worker_x"})
            QVERIFY2(!std::regex_search(tag, loss), tag);
        const std::regex divergence(regexOf.at("divergence, every worker"));
        QVERIFY(std::regex_search("divergence/worker_3", divergence));
        QVERIFY(!std::regex_search("divergence/replicas", divergence));
        QVERIFY(regexOf.count("epoch loss, every worker"));
        QVERIFY(regexOf.count("samples per second, every worker"));
    }
};

QTEST_APPLESS_MAIN(TestTensorBoard)
#include "tst_tensorboard.moc"
