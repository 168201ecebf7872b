#include "window/presentationmode.h"

#include "charts/trainingchart.h"

#include "window/chartgrid.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>

#include <algorithm>

namespace hwl::ui {

namespace {
/// The tab strip's height beyond the tab bar's (the frame).
constexpr int kStripMargin = 4;
} // namespace

PresentationMode::PresentationMode(const Layout& layout, QToolBar* toolbar)
    : QObject(layout.window), layout_(layout) {
    action_ = new QAction(tr("&Presentation"), this);
    action_->setObjectName("presentationAction");
    action_->setCheckable(true);
    action_->setShortcut(Qt::Key_F5);
    action_->setToolTip(
        tr("For a projector: the charts get the room and larger text; the experiment and the "
           "explanation fold into the toolbar's buttons, the tabs below to their titles (F5)"));
    connect(action_, &QAction::triggered, this, [this](bool on) { setOn(on); });
    layout_.window->addAction(action_); // F5 works with the menu bar closed, too

    QAction* first = toolbar->actions().value(0);
    drawer_ = new QAction(tr("Experiment"), toolbar);
    drawer_->setToolTip(tr("Show or hide the experiment beside the charts"));
    explanation_ = new QAction(tr("Explanation"), toolbar);
    explanation_->setToolTip(tr("Show or hide the explanation beside the charts"));
    for (QAction* a : {drawer_, explanation_}) {
        a->setCheckable(true);
        a->setVisible(false); // presentation's only
        toolbar->insertAction(first, a);
    }
    connect(drawer_, &QAction::toggled, this, [this](bool on) {
        if (on_)
            layout_.form->setVisible(on);
    });
    connect(explanation_, &QAction::toggled, this, [this](bool on) {
        if (on_)
            layout_.explanation->setVisible(on);
    });
    connect(layout_.tabs, &QTabWidget::tabBarClicked, this, [this](int i) {
        if (on_)
            setTabsFolded(!layout_.tabs->property("collapsed").toBool() &&
                          i == layout_.tabs->currentIndex());
    });
}

void PresentationMode::setOn(bool on, bool remember) {
    action_->setChecked(on);
    if (on == on_)
        return;
    if (on) {
        normalState_ = layout_.window->saveState();
        normalMain_ = layout_.main->saveState();
        normalCentre_ = layout_.centre->saveState();
    }
    on_ = on;
    for (QAction* a : {drawer_, explanation_}) {
        a->setChecked(false);
        a->setVisible(on);
    }
    layout_.form->setVisible(!on);
    layout_.explanation->setVisible(!on);
    setTabsFolded(on);
    if (!on) {
        layout_.window->restoreState(normalState_);
        layout_.main->restoreState(normalMain_);
        layout_.centre->restoreState(normalCentre_);
    }
    if (remember)
        QSettings().setValue(kSettingsKey, on);
    layout_.grid->setPresentation(on);
    Q_EMIT toggled(on);
}

void PresentationMode::scaleFont(QWidget* widget, bool on) {
    if (!widget)
        return;
    if (!widget->property("hwlBaseFont").isValid())
        widget->setProperty("hwlBaseFont", widget->font());
    QFont font = widget->property("hwlBaseFont").value<QFont>();
    if (on)
        font.setPointSizeF(font.pointSizeF() * TrainingChart::kPresentationFontScale);
    widget->setFont(font);
}

QByteArray PresentationMode::normalWindowState() const {
    return on_ ? normalState_ : layout_.window->saveState();
}

QByteArray PresentationMode::normalMainState() const {
    return on_ ? normalMain_ : layout_.main->saveState();
}

void PresentationMode::openTabs() {
    if (on_)
        setTabsFolded(false);
}

void PresentationMode::setTabsFolded(bool folded) {
    QTabWidget* tabs = layout_.tabs;
    tabs->setProperty("collapsed", folded);
    tabs->setMaximumHeight(folded ? tabs->tabBar()->sizeHint().height() + kStripMargin
                                  : QWIDGETSIZE_MAX);
    if (!folded && on_) {
        const QList<int> sizes = layout_.centre->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        layout_.centre->setSizes({std::max(0, total - kOpenTabsHeight), kOpenTabsHeight});
    }
}

} // namespace hwl::ui
