#pragma once
// File > Open recent: the files last opened or saved, newest first, kept in
// QSettings (absolute paths) and shown in a menu that is made anew each time
// it opens, so that a file moved or deleted since shows as missing. GUI
// thread only.
#include <QObject>
#include <QStringList>

class QMenu;

namespace hwl::ui {

class RecentFiles : public QObject {
    Q_OBJECT

public:
    static constexpr int kMaxFiles = 10;

    /// Fills `menu` (owned by the caller) with the list, now and at each
    /// opening.
    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    /// The files, newest first: at most kMaxFiles absolute paths.
    QStringList files() const;
    /// `path` becomes the newest (once: an older entry of it goes).
    void add(const QString& path);
    /// Empties the list (the menu's Clear the list).
    void clear();
    QMenu* menu() const { return menu_; }

Q_SIGNALS:
    /// The user chose `path` in the menu.
    void openRequested(const QString& path);

private:
    void rebuildMenu();
    QMenu* menu_;
};

} // namespace hwl::ui
