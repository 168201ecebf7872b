#include "runs/metricsexport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProgressDialog>

#include <memory>

namespace hwl::ui {

namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("hwl::ui::MetricsExport", text);
}
} // namespace

ExportOutcome exportMetricsCsv(const MetricsLog& log, const QString& path, QWidget* dialogParent,
                               QString& error) {
    std::unique_ptr<QProgressDialog> dialog;
    QElapsedTimer sinceUpdate;
    MetricsLog::Progress progress;
    if (dialogParent)
        progress = [&](std::size_t done, std::size_t total) {
            if (!dialog) {
                dialog = std::make_unique<QProgressDialog>(
                    tr("Exporting metrics to %1 …").arg(QFileInfo(path).fileName()), tr("Cancel"),
                    0, 1000, dialogParent);
                dialog->setWindowTitle(tr("Export metrics"));
                dialog->setWindowModality(Qt::WindowModal);
                dialog->setMinimumDuration(500);
                sinceUpdate.start();
            } else if (sinceUpdate.elapsed() < 50) {
                return true;
            }
            sinceUpdate.restart();
            dialog->setValue(int(1000.0 * double(done) / double(std::max<std::size_t>(total, 1))));
            return !dialog->wasCanceled();
        };
    try {
        log.writeCsv(path.toStdString(), progress);
    } catch (const MetricsLog::ExportCancelled&) {
        return ExportOutcome::Cancelled;
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
        return ExportOutcome::Failed;
    }
    return ExportOutcome::Written;
}

} // namespace hwl::ui
