// RunLibrary's reader of curves made elsewhere, opened as runs to overlay
// (dashed, as every kept run) next to this program's: TensorBoard's scalar
// CSV export and the CSV a PyTorch script writes. docs/file-formats.md
// ("Baselines") describes both; what is not one of them is refused by line.
#include "runs/runlibrary.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {
constexpr qint64 kMaxLine = 4096;
constexpr int kMaxRows = 1000000;

/// The curve of a SavedRun a column (or a TensorBoard tag) names, or null.
QList<ChartSample>* curveNamed(SavedRun& run, QString name) {
    name = name.toLower();
    const bool test = name.contains("test") || name.contains("val");
    if (name.contains("acc"))
        return &run.accuracy;
    if (name.contains("loss"))
        return test ? &run.testLoss : &run.trainLoss;
    if (name.contains("samples_per_s") || name.contains("throughput"))
        return &run.throughput;
    if (name.contains("divergence"))
        return &run.divergence;
    return nullptr;
}

/// At most RunLibrary::kCurvePoints points, evenly picked, the last kept.
void thin(QList<ChartSample>& curve) {
    const qsizetype n = curve.size(), keep = RunLibrary::kCurvePoints;
    if (n <= keep)
        return;
    QList<ChartSample> thinned;
    for (qsizetype i = 0; i < keep; ++i)
        thinned.append(curve[i * (n - 1) / (keep - 1)]);
    curve = thinned;
}

/// Accuracy in percent, as the charts draw it: fractions (every value in
/// [0, 1]) are scaled.
void asPercent(QList<ChartSample>& accuracy) {
    if (std::all_of(accuracy.begin(), accuracy.end(),
                    [](const ChartSample& c) { return c.value >= 0 && c.value <= 1; }))
        for (ChartSample& c : accuracy)
            c.value *= 100;
}

double number(const QByteArray& text, bool& ok) {
    const double v = text.trimmed().toDouble(&ok);
    ok = ok && std::isfinite(v);
    return v;
}

struct Columns {
    int step = -1, samples = -1, time = -1, wall = -1;
    QList<QPair<int, QList<ChartSample>*>> curves;
};

/// The columns of a header: TensorBoard's "Wall time,Step,Value" (the
/// curve named by the file), or a script's step[,samples][,time],curves...
bool readHeader(const QByteArray& line, const QFileInfo& info, SavedRun& run, Columns& c,
                QString& why) {
    const QList<QByteArray> names = line.trimmed().split(',');
    if (line.trimmed() == "Wall time,Step,Value") {
        c.wall = 0;
        c.step = 1;
        QList<ChartSample>* curve = curveNamed(run, info.completeBaseName());
        if (!curve) {
            why = QObject::tr("a TensorBoard scalar export, but its name does not say which chart "
                              "it belongs on: put loss, test_loss, accuracy, samples_per_s or "
                              "divergence in the file name");
            return false;
        }
        c.curves.append({2, curve});
        return true;
    }
    QStringList ignored;
    for (int i = 0; i < names.size(); ++i) {
        const QString name = QString::fromUtf8(names[i].trimmed()).toLower();
        if (name == "step")
            c.step = i;
        else if (name == "samples")
            c.samples = i;
        else if (name == "time")
            c.time = i;
        else if (QList<ChartSample>* curve = curveNamed(run, name))
            c.curves.append({i, curve});
        else
            ignored << name;
    }
    if (c.step < 0 || c.curves.isEmpty()) {
        why = QObject::tr("it is neither a Hogwild Lab metrics.csv, nor a TensorBoard scalar "
                          "export (\"Wall time,Step,Value\"), nor a script's CSV with a step "
                          "column and a loss or accuracy column");
        return false;
    }
    if (!ignored.isEmpty())
        run.description = QObject::tr("columns not drawn: %1").arg(ignored.join(", "));
    return true;
}
} // namespace

SavedRun RunLibrary::fromBaselineCsv(QFile& file, const QByteArray& header, QString* error) {
    const QFileInfo info(file.fileName());
    const QString shown = info.filePath();
    SavedRun run;
    Columns c;
    QString why;
    if (!readHeader(header, info, run, c, why)) {
        if (error)
            *error = QObject::tr("%1: %2").arg(shown, why);
        return {};
    }
    double firstWall = -1;
    qint64 line = 1;
    for (int rows = 0; !file.atEnd(); ++rows) {
        const QByteArray row = file.readLine(kMaxLine);
        ++line;
        if (row.trimmed().isEmpty())
            continue;
        const QList<QByteArray> f = row.trimmed().split(',');
        bool ok = rows < kMaxRows && (row.endsWith('\n') || file.atEnd());
        ChartSample at;
        const auto column = [&](int i) { return ok && i < f.size() ? number(f[i], ok) : 0.0; };
        at.step = column(c.step);
        at.samples = c.samples >= 0 ? column(c.samples) : at.step;
        at.time = c.time >= 0 ? column(c.time) : 0;
        if (c.wall >= 0) {
            const double wall = column(c.wall);
            firstWall = firstWall < 0 ? wall : firstWall;
            at.time = wall - firstWall;
        }
        for (const auto& [index, curve] : c.curves) {
            if (index >= f.size() || f[index].trimmed().isEmpty())
                continue; // a script logs some columns only now and then
            at.value = column(index);
            curve->append(at);
        }
        if (!ok) {
            if (error)
                *error = QObject::tr("%1, line %2: %3")
                             .arg(shown)
                             .arg(line)
                             .arg(rows >= kMaxRows ? QObject::tr("more than %1 rows").arg(kMaxRows)
                                                   : QObject::tr("a value is not a number, or "
                                                                 "the line is too long"));
            return {};
        }
    }
    for (QList<ChartSample>* curve :
         {&run.trainLoss, &run.testLoss, &run.accuracy, &run.throughput, &run.divergence})
        thin(*curve);
    asPercent(run.accuracy);
    if (!run.accuracy.isEmpty())
        run.testAccuracy = run.accuracy.back().value / 100;
    if (!run.testLoss.isEmpty())
        run.finalTestLoss = run.testLoss.back().value;
    run.workers = 1;
    run.name = info.completeBaseName();
    run.finished = info.lastModified();
    const QString kind =
        c.wall >= 0 ? QObject::tr("TensorBoard scalars") : QObject::tr("a script's CSV");
    run.description =
        run.description.isEmpty()
            ? QObject::tr("baseline: %1 from %2").arg(kind, shown)
            : QObject::tr("baseline: %1 from %2 (%3)").arg(kind, shown, run.description);
    return run;
}

} // namespace hwl::ui
