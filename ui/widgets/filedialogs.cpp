#include "widgets/filedialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace hwl::ui::filedialogs {

namespace {
const QString kKey = QStringLiteral("dialogs/lastFolder");

QString chosen(const QString& path) {
    if (!path.isEmpty())
        remember(path);
    return path;
}
} // namespace

QString lastFolder() {
    const QString dir = QSettings().value(kKey).toString();
    return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

void remember(const QString& path) {
    const QFileInfo info(path);
    QSettings().setValue(kKey, info.isDir() ? info.absoluteFilePath() : info.absolutePath());
}

QString openFile(QWidget* parent, const QString& title, const QString& filter) {
    return chosen(QFileDialog::getOpenFileName(parent, title, lastFolder(), filter));
}

QString saveFile(QWidget* parent, const QString& title, const QString& name, const QString& filter,
                 QString* selectedFilter) {
    return chosen(QFileDialog::getSaveFileName(parent, title, QDir(lastFolder()).filePath(name),
                                               filter, selectedFilter));
}

QString folder(QWidget* parent, const QString& title) {
    return chosen(QFileDialog::getExistingDirectory(parent, title, lastFolder()));
}

} // namespace hwl::ui::filedialogs
