#include "window/recentfiles.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace hwl::ui {

namespace {
/// QSettings key of the recent files. Its name is from when it held only
/// experiments; kept so that the lists people have carry over.
const QString kRecentKey = QStringLiteral("recentExperiments");
} // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
    // Anew at each opening: a file deleted since shows as missing.
    connect(menu_, &QMenu::aboutToShow, this, &RecentFiles::rebuildMenu);
    rebuildMenu();
}

QStringList RecentFiles::files() const {
    return QSettings().value(kRecentKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    QStringList recent = files();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxFiles)
        recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
    rebuildMenu();
}

void RecentFiles::clear() {
    QSettings().setValue(kRecentKey, QStringList());
    rebuildMenu();
}

void RecentFiles::rebuildMenu() {
    menu_->clear();
    const QStringList recent = files();
    // A file moved or deleted since stays listed, disabled, until Clear or
    // until newer files push it out: its name still says what it was.
    for (const QString& path : recent) {
        const bool there = QFileInfo::exists(path);
        QAction* action = menu_->addAction(there ? path : tr("%1 (missing)").arg(path), this,
                                           [this, path] { Q_EMIT openRequested(path); });
        action->setEnabled(there);
    }
    menu_->addSeparator();
    menu_->addAction(tr("&Clear the list"), this, &RecentFiles::clear);
    menu_->setEnabled(!recent.isEmpty());
}

} // namespace hwl::ui
