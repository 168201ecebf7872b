#pragma once
// The kept runs tst_runstable builds its tables and charts from: runs of
// known fields and figures, a sweep of them, repeats that differ only in
// their seed; and the cells of a table as text.
#include "runs/runlibrary.h"

#include "config/experimentconfig.h"
#include "io/metricslog.h"
#include "telemetry/sample.h"

#include <QAbstractItemModel>
#include <QLineSeries>
#include <QList>
#include <QPointF>
#include <QStringList>

namespace hwl::test {

using hwl::ui::RunLibrary;
using hwl::ui::SavedRun;

/// Two workers, 200 steps each, evaluations at 40% then 70% then 60%.
inline MetricsLog smallLog() {
    MetricsLog log;
    for (std::uint64_t step = 1; step <= 200; ++step)
        for (int w = 0; w < 2; ++w) {
            Sample s;
            s.kind = Sample::Step;
            s.worker = w;
            s.step = step;
            s.samples = step * 32;
            s.time = double(step) / 1000.0;
            s.loss = 1.0f;
            log.append(s);
        }
    for (const float accuracy : {0.4f, 0.7f, 0.6f}) {
        Sample e;
        e.kind = Sample::Eval;
        e.worker = -1;
        e.step = 400;
        e.loss = 0.5f;
        e.accuracy = accuracy;
        log.append(e);
    }
    return log;
}

inline ExperimentConfig config(const std::string& mode, int workers) {
    ExperimentConfig c;
    c.model = "mlp:20-16-4";
    c.dataset = "teacher:2000x20:4:16";
    c.mode = mode;
    c.workers = workers;
    return c;
}

/// A kept run of `mode` with `workers` workers and known figures.
inline SavedRun run(const std::string& mode, int workers, double samplesPerSecond) {
    SavedRun r = RunLibrary::fromLog(smallLog());
    const ExperimentConfig c = config(mode, workers);
    r.name = QStringLiteral("%1 x%2").arg(QString::fromStdString(mode)).arg(workers);
    r.model = QString::fromStdString(c.model);
    r.dataset = QString::fromStdString(c.dataset);
    r.fields = RunLibrary::fieldsOf(c);
    r.samplesPerSecond = samplesPerSecond;
    r.trainSeconds = 2.5;
    r.startupSeconds = {0.010, 0.030};
    return r;
}

/// threads and threads-locked at 1, 2 and 4 workers; samples/s chosen so
/// that their text sorts otherwise than their numbers.
inline QList<SavedRun> sweepRuns() {
    return {run("threads", 1, 9000),         run("threads", 4, 150000),
            run("threads", 2, 30000),        run("threads-locked", 1, 8000),
            run("threads-locked", 2, 12000), run("threads-locked", 4, 100000)};
}

/// A run of `mode` x`workers` made with `seed`; named "... seed=N" when `seedInName`.
inline SavedRun repeat(const std::string& mode, int workers, double samplesPerSecond, int seed,
                       bool seedInName = true) {
    SavedRun r = run(mode, workers, samplesPerSecond);
    r.fields.insert("seed", QString::number(seed));
    if (seedInName)
        r.name += QStringLiteral(" seed=%1").arg(seed);
    return r;
}

/// threads x1 and x4 once, threads x2 three times (30k, 50k, 70k samples/s:
/// mean 50k, sd 20k; comm share known in two), threads-locked x2 twice (12k,
/// 16k: sd 2,828), each with its own seed.
inline QList<SavedRun> repeatRuns() {
    QList<SavedRun> runs{repeat("threads", 1, 9000, 1),
                         repeat("threads", 2, 30000, 1),
                         repeat("threads", 2, 50000, 2),
                         repeat("threads", 2, 70000, 3),
                         repeat("threads-locked", 2, 12000, 1, false),
                         repeat("threads-locked", 2, 16000, 2, false),
                         repeat("threads", 4, 150000, 1)};
    runs[1].commShare = 0.2;
    runs[2].commShare = 0.4;
    return runs;
}

inline QStringList headers(const QAbstractItemModel* m) {
    QStringList out;
    for (int c = 0; c < m->columnCount(); ++c)
        out << m->headerData(c, Qt::Horizontal).toString();
    return out;
}

inline QStringList column(const QAbstractItemModel* m, int c) {
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, c).data().toString();
    return out;
}

inline QList<QPointF> points(const QLineSeries* s) {
    return s->points();
}

} // namespace hwl::test
