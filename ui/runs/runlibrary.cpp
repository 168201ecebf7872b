#include "runs/runlibrary.h"

#include "io/metricslog.h"
#include "telemetry/sample.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <array>
#include <cmath>

namespace hwl::ui {

namespace {

constexpr int kFileVersion = 1;
/// Largest runs.json read back: kMaxRuns runs of five curves of
/// kCurvePoints points, written compact, are about 120 MB (a run opened
/// from a sweep's folder, of 40-odd logged points, about 3 KB).
constexpr qint64 kMaxLibraryBytes = qint64(256) << 20;

// Dark2 and Set1 (ColorBrewer), then greys: none is a Tableau 10 worker colour.
constexpr std::array<QRgb, 12> kRunPalette = {
    0x1b9e77, 0xd95f02, 0x7570b3, 0xe7298a, 0x66a61e, 0xe6ab02,
    0xa6761d, 0x377eb8, 0xe41a1c, 0x4daf4a, 0x984ea3, 0x666666,
};

QJsonArray curveToJson(const QList<ChartSample>& curve) {
    QJsonArray out;
    for (const ChartSample& c : curve)
        out.append(QJsonArray{c.step, c.samples, c.time, c.value});
    return out;
}

QList<ChartSample> curveFromJson(const QJsonValue& v) {
    QList<ChartSample> out;
    const QJsonArray points = v.toArray();
    for (qsizetype i = 0; i < points.size() && i < RunLibrary::kCurvePoints * 2; ++i) {
        const QJsonArray p = points[i].toArray();
        if (p.size() == 4)
            out.append({p[0].toDouble(), p[1].toDouble(), p[2].toDouble(), p[3].toDouble()});
    }
    return out;
}

/// Per worker start-up seconds; a worker count is at most 2^16.
constexpr qsizetype kMaxWorkers = qsizetype(1) << 16;

QJsonArray numbersToJson(const QList<double>& numbers) {
    QJsonArray out;
    for (const double x : numbers)
        out.append(x);
    return out;
}

QList<double> numbersFromJson(const QJsonValue& v) {
    QList<double> out;
    const QJsonArray numbers = v.toArray();
    for (qsizetype i = 0; i < numbers.size() && i < kMaxWorkers; ++i)
        out.append(numbers[i].toDouble(-1));
    return out;
}

QJsonObject fieldsToJson(const QMap<QString, QString>& fields) {
    QJsonObject out;
    for (auto it = fields.begin(); it != fields.end(); ++it)
        out.insert(it.key(), it.value());
    return out;
}

/// At most 200 fields of 2000 characters (there are about 25).
QMap<QString, QString> fieldsFromJson(const QJsonValue& v) {
    QMap<QString, QString> out;
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end() && out.size() < 200; ++it)
        if (it.value().isString())
            out.insert(it.key().left(200), it.value().toString().left(2000));
    return out;
}

/// A figure that may be unknown (-1): written only when known.
void putFigure(QJsonObject& o, const char* key, double x) {
    if (x >= 0 && std::isfinite(x))
        o.insert(QLatin1String(key), x);
}

// Keys added after version 1 (model, dataset, userTicked, throughput,
// divergence, startupSeconds, fields, finalTestLoss, trainSeconds, commShare,
// lostUpdates, result, resultReason, target, targetSeconds, targetSamples) are optional: a list
// written before them loads, its figures unknown.
QJsonObject runToJson(const SavedRun& r) {
    QJsonObject o = {
        {"name", r.name},
        {"color", r.color.name()},
        {"visible", r.visible},
        {"userTicked", r.userTicked},
        {"description", r.description},
        {"model", r.model},
        {"dataset", r.dataset},
        {"finished", r.finished.toString(Qt::ISODate)},
        {"workers", r.workers},
        {"samplesPerSecond", r.samplesPerSecond},
        {"testAccuracy", r.testAccuracy},
        {"trainLoss", curveToJson(r.trainLoss)},
        {"testLoss", curveToJson(r.testLoss)},
        {"accuracy", curveToJson(r.accuracy)},
        {"throughput", curveToJson(r.throughput)},
        {"divergence", curveToJson(r.divergence)},
        {"startupSeconds", numbersToJson(r.startupSeconds)},
        {"fields", fieldsToJson(r.fields)},
    };
    putFigure(o, "finalTestLoss", r.finalTestLoss);
    putFigure(o, "trainSeconds", r.trainSeconds);
    putFigure(o, "commShare", r.commShare);
    putFigure(o, "lostUpdates", double(r.lostUpdates));
    putFigure(o, "targetSeconds", r.targetSeconds);
    putFigure(o, "targetSamples", r.targetSamples);
    if (!r.target.isEmpty())
        o.insert(QStringLiteral("target"), r.target);
    if (!r.result.isEmpty())
        o.insert(QStringLiteral("result"), r.result);
    if (!r.resultReason.isEmpty())
        o.insert(QStringLiteral("resultReason"), r.resultReason);
    return o;
}

SavedRun runFromJson(const QJsonObject& o) {
    SavedRun r;
    r.name = o.value("name").toString().left(200);
    r.color = QColor(o.value("color").toString());
    r.visible = o.value("visible").toBool(false);
    r.userTicked = r.visible && o.value("userTicked").toBool(false);
    r.description = o.value("description").toString().left(2000);
    r.model = o.value("model").toString().left(2000);
    r.dataset = o.value("dataset").toString().left(2000);
    r.finished = QDateTime::fromString(o.value("finished").toString(), Qt::ISODate);
    r.workers = std::clamp(o.value("workers").toInt(), 0, 1 << 16);
    r.samplesPerSecond = o.value("samplesPerSecond").toDouble();
    r.testAccuracy = o.value("testAccuracy").toDouble(-1);
    r.trainLoss = curveFromJson(o.value("trainLoss"));
    r.testLoss = curveFromJson(o.value("testLoss"));
    r.accuracy = curveFromJson(o.value("accuracy"));
    r.throughput = curveFromJson(o.value("throughput"));
    r.divergence = curveFromJson(o.value("divergence"));
    r.startupSeconds = numbersFromJson(o.value("startupSeconds"));
    r.fields = fieldsFromJson(o.value("fields"));
    r.finalTestLoss = o.value("finalTestLoss").toDouble(-1);
    r.trainSeconds = o.value("trainSeconds").toDouble(-1);
    r.commShare = o.value("commShare").toDouble(-1);
    r.lostUpdates = qint64(o.value("lostUpdates").toDouble(-1));
    r.result = o.value("result").toString().left(40);
    r.target = o.value("target").toString().left(40);
    r.targetSeconds = o.value("targetSeconds").toDouble(-1);
    r.targetSamples = o.value("targetSamples").toDouble(-1);
    r.resultReason = o.value("resultReason").toString().left(2000);
    return r;
}

} // namespace

// ---- CurveBuilder -------------------------------------------------------------

void CurveBuilder::Bin::merge(const Bin& o) {
    n += o.n;
    step += o.step;
    samples += o.samples;
    time += o.time;
    loss += o.loss;
    divergence += o.divergence;
    divergenceN += o.divergenceN;
    addedSamples += o.addedSamples;
    addedSeconds += o.addedSeconds;
}

void CurveBuilder::halveBins() {
    for (std::size_t i = 0; i < bins_.size(); i += 2) {
        Bin b = bins_[i];
        if (i + 1 < bins_.size())
            b.merge(bins_[i + 1]);
        bins_[i / 2] = b;
    }
    bins_.resize((bins_.size() + 1) / 2);
    width_ *= 2;
}

void CurveBuilder::add(const Sample& s) {
    if (s.kind == Sample::Eval) {
        if (evals_.size() >= 2 * RunLibrary::kCurvePoints) { // keep every other one
            for (qsizetype i = 0; i < evals_.size() / 2; ++i)
                evals_[i] = evals_[2 * i + 1];
            evals_.resize(evals_.size() / 2);
        }
        evals_.append(s);
        return;
    }
    if (s.kind != Sample::Step || !std::isfinite(s.loss) || s.worker < 0)
        return;
    maxWorker_ = std::max(maxWorker_, int(s.worker));
    ++stepSamples_;
    // The throughput since this worker's previous sample (none for its first).
    if (std::size_t(s.worker) >= last_.size())
        last_.resize(std::size_t(s.worker) + 1);
    Last& last = last_[std::size_t(s.worker)];
    Bin sample{1, double(s.step), double(s.samples), s.time, s.loss};
    if (std::isfinite(s.divergence)) { // a diverged run's infinite staleness is no mean
        sample.divergence = s.divergence;
        sample.divergenceN = 1;
    }
    if (last.samples >= 0 && s.time > last.time && double(s.samples) >= last.samples) {
        sample.addedSamples = double(s.samples) - last.samples;
        sample.addedSeconds = s.time - last.time;
    }
    last = {double(s.samples), s.time};
    std::uint64_t index = s.step / width_;
    while (index >= std::uint64_t(2 * RunLibrary::kCurvePoints)) {
        halveBins();
        index = s.step / width_;
    }
    if (index >= bins_.size())
        bins_.resize(std::size_t(index) + 1);
    bins_[std::size_t(index)].merge(sample);
}

void CurveBuilder::finish(SavedRun& run) const {
    run.trainLoss.clear();
    run.divergence.clear();
    run.throughput.clear();
    // The throughput over windows of at least 1/kThroughputPoints of the
    // workers' time, each placed at its end: over one bin's milliseconds a
    // rate is mostly noise, and a jagged band drawn over the live chart's
    // rates (each over its refresh) reads as another, faster run.
    double busySeconds = 0;
    for (const Bin& b : bins_)
        busySeconds += b.n > 0 ? b.addedSeconds : 0;
    const double window = busySeconds / RunLibrary::kThroughputPoints;
    double windowSamples = 0, windowSeconds = 0;
    for (const Bin& b : bins_) {
        if (b.n <= 0)
            continue;
        const ChartSample at{b.step / b.n, b.samples / b.n, b.time / b.n, 0};
        run.trainLoss.append({at.step, at.samples, at.time, b.loss / b.n});
        if (b.divergenceN > 0)
            run.divergence.append({at.step, at.samples, at.time, b.divergence / b.divergenceN});
        // Samples added by all workers over the seconds all of them took: the
        // rate of one worker, as the live chart draws them.
        windowSamples += b.addedSamples;
        windowSeconds += b.addedSeconds;
        if (windowSeconds > 0 && (windowSeconds >= window || &b == &bins_.back())) {
            run.throughput.append({at.step, at.samples, at.time, windowSamples / windowSeconds});
            windowSamples = windowSeconds = 0;
        }
    }
    run.workers = maxWorker_ + 1;
    const double perWorker = std::max(1, run.workers);
    run.testLoss.clear();
    run.accuracy.clear();
    for (const Sample& e : evals_) {
        const ChartSample at{double(e.step) / perWorker, double(e.samples) / perWorker, e.time, 0};
        run.testLoss.append({at.step, at.samples, at.time, double(e.loss)});
        run.accuracy.append({at.step, at.samples, at.time, 100.0 * double(e.accuracy)});
    }
    run.testAccuracy = evals_.isEmpty() ? -1 : double(evals_.back().accuracy);
    run.finalTestLoss =
        evals_.isEmpty() || !std::isfinite(evals_.back().loss) ? -1 : double(evals_.back().loss);
}

// ---- SavedRun -----------------------------------------------------------------

double SavedRun::bestTestAccuracy() const {
    double best = -1;
    for (const ChartSample& c : accuracy)
        if (std::isfinite(c.value))
            best = std::max(best, c.value / 100.0);
    return best;
}

double SavedRun::startup() const {
    double last = -1;
    for (const double s : startupSeconds)
        last = std::max(last, s);
    return last;
}

// ---- RunLibrary ---------------------------------------------------------------

RunLibrary::RunLibrary(QString file, QObject* parent) : QObject(parent), file_(std::move(file)) {}

QColor RunLibrary::runColor(int index) {
    const int n = int(kRunPalette.size());
    return QColor(kRunPalette[std::size_t(((index % n) + n) % n)]);
}

QColor RunLibrary::freeColor() const {
    for (int i = 0; i < int(kRunPalette.size()); ++i) {
        const QColor c = runColor(i);
        if (std::none_of(runs_.begin(), runs_.end(),
                         [&](const SavedRun& r) { return r.color == c; }))
            return c;
    }
    return runColor(int(runs_.size()));
}

QString RunLibrary::load() {
    runs_.clear();
    QFile f(file_);
    if (!f.exists())
        return {};
    QString why;
    if (f.size() > kMaxLibraryBytes)
        why = tr("it is %1 MB, more than a run list ever holds").arg(f.size() >> 20);
    else if (!f.open(QIODevice::ReadOnly))
        why = f.errorString();
    QJsonDocument doc;
    if (why.isEmpty()) {
        QJsonParseError err{};
        doc = QJsonDocument::fromJson(f.readAll(), &err);
        if (err.error != QJsonParseError::NoError)
            why = tr("%1 at byte %2").arg(err.errorString()).arg(err.offset);
        else if (doc.object().value("version").toInt() != kFileVersion)
            why = tr("it is not a version %1 run list").arg(kFileVersion);
    }
    f.close();
    if (!why.isEmpty()) {
        const QString aside = file_ + QStringLiteral(".bad");
        QFile::remove(aside);
        QFile::rename(file_, aside);
        emit changed();
        return tr("The saved run list %1 could not be read (%2); it was set aside as %3 and "
                  "the list starts empty")
            .arg(QDir::toNativeSeparators(file_), why, QDir::toNativeSeparators(aside));
    }
    for (const QJsonValue& v : doc.object().value("runs").toArray()) {
        if (runs_.size() >= kMaxRuns)
            break;
        SavedRun r = runFromJson(v.toObject());
        if (!r.color.isValid())
            r.color = freeColor();
        if (r.name.isEmpty())
            r.name = tr("run %1").arg(runs_.size() + 1);
        runs_.append(r);
    }
    emit changed();
    return {};
}

QString RunLibrary::save() const {
    QJsonArray runs;
    for (const SavedRun& r : runs_)
        runs.append(runToJson(r));
    const QByteArray bytes = QJsonDocument(QJsonObject{{"version", kFileVersion}, {"runs", runs}})
                                 .toJson(QJsonDocument::Compact);
    QDir().mkpath(QFileInfo(file_).absolutePath());
    QSaveFile f(file_); // a temporary, renamed over the old file: never half-written
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return tr("The run list could not be saved to %1: %2; the runs stay listed until the "
                  "window closes")
            .arg(QDir::toNativeSeparators(file_), f.errorString());
    return {};
}

QString RunLibrary::add(SavedRun run) {
    return addAll({std::move(run)});
}

QString RunLibrary::addAll(QList<SavedRun> runs) {
    if (runs.isEmpty())
        return {};
    for (SavedRun& run : runs) {
        if (runs_.size() >= kMaxRuns)
            runs_.removeFirst();
        if (!run.color.isValid())
            run.color = freeColor();
        runs_.append(std::move(run));
    }
    emit changed();
    return save();
}

QString RunLibrary::remove(int index) {
    if (index < 0 || index >= size())
        return {};
    runs_.removeAt(index);
    emit changed();
    return save();
}

QString RunLibrary::rename(int index, const QString& name) {
    const QString trimmed = name.trimmed().left(200);
    if (index < 0 || index >= size() || trimmed.isEmpty() || runs_[index].name == trimmed)
        return {};
    runs_[index].name = trimmed;
    emit changed();
    return save();
}

QString RunLibrary::setVisible(int index, bool visible, bool byUser) {
    if (index < 0 || index >= size() || runs_[index].visible == visible)
        return {};
    runs_[index].visible = visible;
    runs_[index].userTicked = visible && byUser;
    emit changed();
    return save();
}

QString RunLibrary::untickAll(bool keepUserTicked) {
    bool any = false;
    for (SavedRun& r : runs_) {
        if (!r.visible || (keepUserTicked && r.userTicked))
            continue;
        any = true;
        r.visible = r.userTicked = false;
    }
    if (!any)
        return {};
    emit changed();
    return save();
}

QString RunLibrary::clear() {
    runs_.clear();
    emit changed();
    return save();
}

SavedRun RunLibrary::fromLog(const MetricsLog& log) {
    CurveBuilder builder;
    log.forEach([&](const Sample& s) { builder.add(s); });
    SavedRun run;
    run.finished = QDateTime::currentDateTime();
    builder.finish(run);
    return run;
}

} // namespace hwl::ui
