#include "window/windowtheme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QEvent>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

namespace hwl::ui {

namespace {

/// Whether a palette is a dark one (light text on a dark window).
bool isDark(const QPalette& p) {
    return p.color(QPalette::Window).lightness() < p.color(QPalette::WindowText).lightness();
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(100, 170, 255));
    p.setColor(QPalette::Highlight, QColor(60, 120, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(130, 130, 130));
    return p;
}

const QPalette& systemPalette() {
    static const QPalette initial = QApplication::palette(); // before we force one
    return initial;
}

} // namespace

WindowTheme::WindowTheme(QWidget* window) : QObject(window) {
    (void)systemPalette(); // kept before a forced theme replaces it
    window->installEventFilter(this);
}

void WindowTheme::addChoices(QMenu* view) {
    auto* group = new QActionGroup(view);
    const struct {
        QString label, key;
    } themes[] = {{tr("Theme: follow the &system"), "system"},
                  {tr("Theme: &light"), "light"},
                  {tr("Theme: &dark"), "dark"}};
    const QString chosen = QSettings().value("view/theme", "system").toString();
    for (const auto& t : themes) {
        QAction* a = view->addAction(t.label);
        a->setCheckable(true);
        a->setChecked(t.key == chosen);
        a->setData(t.key);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, key = t.key] {
            QSettings().setValue("view/theme", key);
            set(key == QLatin1String("dark"), key != QLatin1String("system"));
        });
    }
    if (chosen != QLatin1String("system"))
        set(chosen == QLatin1String("dark"), true);
    else
        set(false, false);
}

void WindowTheme::set(bool dark, bool forced) {
    forced_ = forced;
    if (forced) {
        // Fusion draws every palette faithfully; the platform style may not.
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
    } else {
        QApplication::setPalette(systemPalette());
        dark = isDark(systemPalette());
    }
    apply(dark);
}

void WindowTheme::apply(bool dark) {
    dark_ = dark;
    Q_EMIT changed(dark);
}

bool WindowTheme::eventFilter(QObject* watched, QEvent* event) {
    // The system switched between light and dark (its palette changed).
    if (event->type() == QEvent::ApplicationPaletteChange && !forced_ &&
        isDark(QApplication::palette()) != dark_)
        apply(!dark_);
    return QObject::eventFilter(watched, event);
}

} // namespace hwl::ui
