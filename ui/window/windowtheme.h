#pragma once
// The window's theme: light or dark, following the system's palette unless
// the View menu chose one (kept in QSettings); a chosen one is a Fusion
// palette for the whole application. GUI thread only.
#include <QObject>

class QMenu;
class QWidget;

namespace hwl::ui {

class WindowTheme : public QObject {
    Q_OBJECT

public:
    /// Follows the system's light / dark switches as `window` sees them.
    explicit WindowTheme(QWidget* window);

    /// The View menu's three choices (follow the system, light, dark), the
    /// one kept in QSettings ticked and applied.
    void addChoices(QMenu* view);
    /// Dark or light and, when `forced`, a dark or light Fusion palette for
    /// the whole application; else the system's palette, which decides.
    void set(bool dark, bool forced);
    bool dark() const { return dark_; }

Q_SIGNALS:
    /// The charts and the form take their colours from it.
    void changed(bool dark);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void apply(bool dark);
    bool dark_ = false;
    bool forced_ = false;
};

} // namespace hwl::ui
