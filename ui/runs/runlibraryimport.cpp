// RunLibrary's readers of what a run left behind: metrics.csv (written by
// --out and by Export metrics) and the --out folder around it. A file that
// is not one of ours is refused with the line and what is wrong, never
// half-read: a run is only made once the whole file parsed.
#include "runs/runlibrary.h"

#include "config/experimentconfig.h"
#include "config/fields.h"
#include "io/runfolders.h"
#include "io/runmanifest.h"
#include "io/runsummaryfile.h"
#include "strategy/catalog.h"
#include "telemetry/runsummary.h"
#include "telemetry/sample.h"
#include "util/errors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hwl::ui {

namespace {

constexpr char kHeader[] = "worker,epoch,step,samples,loss,time,kind,divergence,accuracy";
constexpr qint64 kMaxLine = 512; ///< a row we write is under 200 bytes

/// Parses one metrics.csv row into `s`; false with the reason in `why`. A
/// target row is one, and `skip` says to leave it out.
bool parseRow(const QByteArray& line, Sample& s, bool& skip, QString& why) {
    const QList<QByteArray> f = line.trimmed().split(',');
    if (f.size() != 9) {
        why = QObject::tr("%1 fields where a row has 9").arg(f.size());
        return false;
    }
    bool ok[8] = {};
    s.worker = f[0].toInt(&ok[0]);
    s.epoch = f[1].toUInt(&ok[1]);
    s.step = f[2].toULongLong(&ok[2]);
    s.samples = f[3].toULongLong(&ok[3]);
    s.loss = f[4].toFloat(&ok[4]);
    s.time = f[5].toDouble(&ok[5]);
    s.divergence = f[7].toFloat(&ok[6]);
    s.accuracy = f[8].toFloat(&ok[7]);
    static const char* const names[8] = {"worker", "epoch", "step",       "samples",
                                         "loss",   "time",  "divergence", "accuracy"};
    for (int i = 0; i < 8; ++i) {
        if (!ok[i]) {
            why = QObject::tr("the %1 \"%2\" is not a number").arg(names[i], f[i < 6 ? i : i + 1]);
            return false;
        }
    }
    if (f[6] == "step")
        s.kind = Sample::Step;
    else if (f[6] == "epoch")
        s.kind = Sample::EpochEnd;
    else if (f[6] == "eval")
        s.kind = Sample::Eval;
    else if (f[6] == "target") // where a target was reached: summary.json says it
        skip = true;
    else {
        why = QObject::tr("the kind \"%1\" is none of step, epoch, eval, target").arg(f[6]);
        return false;
    }
    if (!std::isfinite(s.time) || s.time < 0 || s.worker < -1 || s.worker >= (1 << 16)) {
        why = QObject::tr("a time or worker out of range");
        return false;
    }
    return true;
}

/// Largest summary.json or experiment.json read (a run's is a few kB).
constexpr qint64 kMaxJsonBytes = qint64(4) << 20;

QByteArray readSmallFile(const QString& path) {
    QFile f(path);
    if (f.size() > kMaxJsonBytes || !f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void setExperiment(const ExperimentConfig& c, SavedRun& run) {
    run.description = RunLibrary::describe(c);
    run.model = QString::fromStdString(c.model);
    run.dataset = QString::fromStdString(c.dataset);
    run.fields = RunLibrary::fieldsOf(c);
}

/// What experiment.json next to the metrics (else summary.json's
/// "experiment", the same object) says ran: the run's description, model,
/// dataset and fields; and summary.json's final figures. Left as they are
/// when the folder has neither.
void readFolderExperiment(const QString& dir, SavedRun& run) {
    const QString json = QDir(dir).filePath(QStringLiteral("experiment.json"));
    const QString summaryFile = QDir(dir).filePath(QStringLiteral("summary.json"));
    const QByteArray summary =
        QFileInfo(summaryFile).isFile() ? readSmallFile(summaryFile) : QByteArray();
    try {
        ExperimentConfig c = ExperimentConfig::defaults();
        if (QFileInfo(json).isFile()) {
            c.mergeJsonFile(json.toStdString());
            setExperiment(c, run);
        } else if (const QJsonObject e =
                       QJsonDocument::fromJson(summary).object().value("experiment").toObject();
                   !e.isEmpty()) {
            c.mergeJson(QJsonDocument(e).toJson().toStdString(), summaryFile.toStdString());
            setExperiment(c, run);
        }
    } catch (const std::exception&) {
        run.description = QObject::tr("(its experiment.json could not be read)");
    }
    if (summary.isEmpty())
        return;
    try {
        RunLibrary::applySummary(
            run, runSummaryFromJson(summary.toStdString(), summaryFile.toStdString()));
    } catch (const std::exception&) {
        // Not a summary.json: the figures the metrics give stand.
    }
}

/// Whether `file` was found as the metrics.csv of a folder that was opened.
bool inFolder(const QFileInfo& file, const QString& opened) {
    return QFileInfo(opened).isDir() && file.fileName() == QLatin1String("metrics.csv");
}

} // namespace

QString RunLibrary::describe(const ExperimentConfig& c) {
    QString text = QStringLiteral("%1 on %2, %3, %4 worker(s), lr %5, batch %6")
                       .arg(QString::fromStdString(c.model), QString::fromStdString(c.dataset),
                            QString::fromStdString(c.mode))
                       .arg(c.workers)
                       .arg(c.lr)
                       .arg(c.batch);
    // As the engine's describeMode(): the modes with replicas sync every N.
    if (const StrategyTraits* t = findStrategy(c);
        t && t->takes(StrategySetting::Replicas) && c.syncEvery > 1)
        text += QStringLiteral(", sync every %1").arg(c.syncEvery);
    if (!c.share)
        text += QStringLiteral(", not shared");
    return text;
}

QMap<QString, QString> RunLibrary::fieldsOf(const ExperimentConfig& c) {
    QMap<QString, QString> fields;
    for (const Field& f : experimentFields())
        if (!f.output)
            fields.insert(QString::fromLatin1(f.key), QString::fromStdString(f.valueText(c)));
    return fields;
}

void RunLibrary::applySummary(SavedRun& run, const RunSummary& s) {
    const auto known = [](double x) { return std::isfinite(x) && x >= 0; };
    run.result = QString::fromLatin1(resultName(s));
    run.resultReason = QString::fromStdString(s.outcomeReason);
    if (known(s.samplesPerSecond))
        run.samplesPerSecond = s.samplesPerSecond;
    if (s.evaluated && known(s.testAccuracy))
        run.testAccuracy = s.testAccuracy;
    if (s.evaluated && known(s.testLoss))
        run.finalTestLoss = s.testLoss;
    if (s.trainSeconds > 0)
        run.trainSeconds = s.trainSeconds;
    if (!s.startupSeconds.empty())
        run.startupSeconds = QList<double>(s.startupSeconds.begin(), s.startupSeconds.end());
    run.commShare = s.commShare(); // as a sweep's table: all workers' loops together
    if (!s.lostUpdates.empty())
        run.lostUpdates = qint64(s.totalLostUpdates());
    run.target = QString::fromLatin1(s.target.state());
    run.targetSeconds = s.target.reached ? s.target.trainSeconds : -1;
    run.targetSamples = s.target.reached ? double(s.target.samples) : -1;
}

SavedRun RunLibrary::fromPath(const QString& path, QString* error) {
    QString file = path;
    if (QFileInfo(path).isDir())
        file = QDir(path).filePath(QStringLiteral("metrics.csv"));
    const QFileInfo info(file);
    const QString shown = QDir::toNativeSeparators(file);
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return SavedRun{};
    };
    if (!info.isFile())
        return fail(QFileInfo(path).isDir()
                        ? tr("%1 holds no metrics.csv: open a folder written by --out, or a "
                             "metrics.csv")
                              .arg(QDir::toNativeSeparators(path))
                        : tr("%1 does not exist").arg(shown));
    if (info.size() > kMaxCsvBytes)
        return fail(tr("%1 is %2 MB, more than the %3 MB a run list opens")
                        .arg(shown)
                        .arg(info.size() >> 20)
                        .arg(kMaxCsvBytes >> 20));
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return fail(tr("%1 cannot be read: %2").arg(shown, f.errorString()));
    if (const QByteArray header = f.readLine(kMaxLine); header.trimmed() != kHeader) {
        if (inFolder(info, path))
            return fail(tr("%1 is not a Hogwild Lab metrics.csv: its first line should be \"%2\"")
                            .arg(shown, QString::fromLatin1(kHeader)));
        // A curve made elsewhere: TensorBoard's export, a script's CSV.
        return fromBaselineCsv(f, header, error);
    }
    CurveBuilder builder;
    for (qint64 line = 2; !f.atEnd(); ++line) {
        const QByteArray row = f.readLine(kMaxLine);
        if (row.trimmed().isEmpty())
            continue;
        Sample s;
        QString why;
        bool skip = false;
        if (!row.endsWith('\n') && !f.atEnd())
            why = tr("the line is longer than %1 bytes").arg(kMaxLine);
        if (!why.isEmpty() || !parseRow(row, s, skip, why))
            return fail(tr("%1, line %2: %3; it is not a metrics.csv as Hogwild Lab writes it")
                            .arg(shown)
                            .arg(line)
                            .arg(why));
        if (!skip)
            builder.add(s);
    }
    if (builder.stepSamples() == 0)
        return fail(tr("%1 holds no training steps: the run it came from took none").arg(shown));
    SavedRun run;
    builder.finish(run);
    run.finished = info.lastModified();
    const bool inFolder = info.fileName() == QLatin1String("metrics.csv");
    run.name = inFolder ? info.dir().dirName() : info.completeBaseName();
    readFolderExperiment(info.absolutePath(), run);
    if (run.description.isEmpty())
        run.description = tr("opened from %1").arg(shown);
    return run;
}

QList<SavedRun> RunLibrary::fromRunFolders(const QString& dir, QString* error, QStringList* leftOut,
                                           const Progress& progress) {
    const QString shown = QDir::toNativeSeparators(dir);
    const auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return QList<SavedRun>{};
    };
    std::vector<std::filesystem::path> found;
    try {
        found = findRunFolders(std::filesystem::path(dir.toStdString()));
    } catch (const InputError& e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (found.empty())
        return fail(tr("%1 holds no run: no summary.json in it or in its folders; open a "
                       "folder written by --out, a sweep's, or a metrics.csv")
                        .arg(shown));
    if (found.size() > std::size_t(kMaxRuns))
        return fail(tr("%1 holds %2 runs, more than the %3 the run list keeps: open one of "
                       "its folders")
                        .arg(shown)
                        .arg(found.size())
                        .arg(kMaxRuns));
    QList<SavedRun> runs;
    const int total = int(found.size());
    for (int i = 0; i < total; ++i) {
        if (progress && !progress(i, total))
            return fail(tr("Opening %1 was stopped: no run of it was added").arg(shown));
        const QString run = QString::fromStdString(found[std::size_t(i)].string());
        // Trusted as --compare trusts it: a folder that does not match its
        // manifest is left out, and says why.
        if (const FolderCheck check = checkRunFolder(found[std::size_t(i)], false);
            check.trust == FolderTrust::Broken || check.trust == FolderTrust::Interrupted) {
            if (leftOut)
                leftOut->append(QString::fromStdString(trustText(found[std::size_t(i)], check)));
            continue;
        }
        QString why;
        SavedRun r = fromPath(run, &why);
        if (r.name.isEmpty()) {
            if (leftOut)
                leftOut->append(why);
            continue;
        }
        // Named as --compare names it: by its path below `dir`.
        if (const QString below = QDir(dir).relativeFilePath(run); below != QLatin1String("."))
            r.name = below;
        runs.append(std::move(r));
    }
    if (progress)
        progress(total, total);
    if (runs.isEmpty())
        return fail(tr("No run of %1 could be read: %2")
                        .arg(shown, leftOut && !leftOut->isEmpty() ? leftOut->front() : QString()));
    return runs;
}

} // namespace hwl::ui
