#pragma once
// Presentation (View menu, F5, --presentation): the window laid out for a
// projector at 1280x720 or 1024x768. The form folds into a drawer (the
// toolbar's Experiment button), the explanation likewise, the bottom tabs to
// their tab bar (a click opens them, a click on the open tab folds them), and
// the charts get the room and larger fonts. Leaving restores the layout as it
// was; the choice is kept for the next start. GUI thread only.
#include <QByteArray>
#include <QObject>
#include <QString>

class QAction;
class QDockWidget;
class QMainWindow;
class QSplitter;
class QTabWidget;
class QToolBar;
class QWidget;

namespace hwl::ui {

class ChartGrid;

class PresentationMode : public QObject {
    Q_OBJECT

public:
    /// QSettings key: whether the window opens in presentation.
    static inline const QString kSettingsKey = QStringLiteral("view/presentation");
    /// The bottom tabs' height when a click opens them in presentation.
    static constexpr int kOpenTabsHeight = 200;

    /// What presentation folds, and what it gives the room to.
    struct Layout {
        QMainWindow* window = nullptr;
        QDockWidget* form = nullptr;
        QWidget* explanation = nullptr;
        QSplitter* main = nullptr;   ///< the centre beside the explanation
        QSplitter* centre = nullptr; ///< the charts over the bottom tabs
        QTabWidget* tabs = nullptr;
        ChartGrid* grid = nullptr;
    };
    /// Adds the drawers' buttons at the front of `toolbar` (shown in
    /// presentation only) and F5 to the window.
    PresentationMode(const Layout& layout, QToolBar* toolbar);

    void setOn(bool on, bool remember = true); ///< remember: in QSettings
    /// `widget`'s font (and so its children's) a quarter larger while `on`,
    /// as presentation's charts are; its own font again when off. For the
    /// verdict banner and the teaching dialogs, read from the back of a room.
    static void scaleFont(QWidget* widget, bool on);
    bool isOn() const { return on_; }
    QAction* action() const { return action_; } ///< View > Presentation, F5
    /// The layout to keep between sessions: the one presentation replaced
    /// while it is on.
    QByteArray normalWindowState() const;
    QByteArray normalMainState() const;
    /// Opens the folded tabs (a tab chosen from the View menu).
    void openTabs();

Q_SIGNALS:
    /// Presentation was turned on or off.
    void toggled(bool on);

private:
    void setTabsFolded(bool folded);

    Layout layout_;
    bool on_ = false;
    QAction* action_ = nullptr;
    QAction* drawer_ = nullptr;      ///< shows the form
    QAction* explanation_ = nullptr; ///< shows the explanation
    /// The layout presentation replaced, put back on leaving it.
    QByteArray normalState_, normalMain_, normalCentre_;
};

} // namespace hwl::ui
