#pragma once
// The window's file dialogs, each starting in the folder the last one chose
// (kept in the settings across restarts; the home folder before any), not
// in the folder the program was started from. GUI thread only.
#include <QString>

class QWidget;

namespace hwl::ui::filedialogs {

/// The folder the next dialog starts in.
QString lastFolder();
/// Remembers the folder of `path` (a folder itself, or a file's folder).
void remember(const QString& path);

/// QFileDialog's, starting in lastFolder() (a save dialog with `name`
/// filled in) and remembering the choice; empty when cancelled.
QString openFile(QWidget* parent, const QString& title, const QString& filter);
QString saveFile(QWidget* parent, const QString& title, const QString& name, const QString& filter,
                 QString* selectedFilter = nullptr);
QString folder(QWidget* parent, const QString& title);

} // namespace hwl::ui::filedialogs
