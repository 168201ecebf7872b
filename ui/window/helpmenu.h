#pragma once
// The Help menu: the modes and pitfalls (F1), the keyboard shortcuts, About,
// each in a message box over the window. GUI thread only.
#include <QObject>
#include <QString>

class QMenuBar;
class QWidget;

namespace hwl::ui {

class HelpMenu : public QObject {
    Q_OBJECT

public:
    /// Adds the Help menu to `bar`; its boxes open over `window`.
    HelpMenu(QMenuBar* bar, QWidget* window);

    /// The texts (HTML): "modes" (every mode the catalog lists, and the
    /// pitfalls), "shortcuts", anything else: About.
    static QString text(const QString& topic);
};

} // namespace hwl::ui
