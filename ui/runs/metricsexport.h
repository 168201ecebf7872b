#pragma once
// Exporting a run's metrics CSV from the window. A long run's log takes
// seconds to write, so the export shows a window-modal progress dialog (only
// when it lasts over half a second) with Cancel; a cancelled export leaves no
// file. The dialog's event processing keeps the run being drained into the
// log meanwhile, which MetricsLog::forEach allows; the modality keeps the
// user from starting another run (which would replace the log). GUI thread
// only.
#include "io/metricslog.h"

#include <QString>

class QWidget;

namespace hwl::ui {

enum class ExportOutcome { Written, Cancelled, Failed };

/// Writes `log` as CSV to `path`. `dialogParent` null: no dialog. On Failed,
/// `error` says why.
ExportOutcome exportMetricsCsv(const MetricsLog& log, const QString& path, QWidget* dialogParent,
                               QString& error);

} // namespace hwl::ui
