#include "window/helpmenu.h"

#include "strategy/catalog.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

namespace hwl::ui {

QString HelpMenu::text(const QString& topic) {
    if (topic == QLatin1String("shortcuts"))
        return tr("<h3>Keyboard shortcuts</h3><table>"
                  "<tr><td>Ctrl+R</td><td>Start</td></tr>"
                  "<tr><td>Ctrl+P</td><td>Pause / Resume</td></tr>"
                  "<tr><td>Ctrl+E</td><td>One step while paused</td></tr>"
                  "<tr><td>Ctrl+T</td><td>Stop</td></tr>"
                  "<tr><td>Alt+1 ... Alt+9</td><td>The first nine presets, in menu order</td></tr>"
                  "<tr><td>Alt+0</td><td>The shared-counter toy</td></tr>"
                  "<tr><td>Ctrl+Shift+R</td><td>The race stepper</td></tr>"
                  "<tr><td>Ctrl+O / Ctrl+S</td><td>Open / save an experiment</td></tr>"
                  "<tr><td>Ctrl+1 / 2 / 3 / 4</td><td>The Workers, Timeline, Events and Runs "
                  "tabs</td></tr>"
                  "<tr><td>On a chart</td><td>drag: zoom into a rectangle; wheel or + / -: "
                  "zoom; double-click or 0: the whole run; right click: zoom out; hover: "
                  "the point's step, time and value</td></tr>"
                  "<tr><td>F1</td><td>The modes and pitfalls</td></tr>"
                  "<tr><td>F5</td><td>Presentation, for a projector (on / off)</td></tr></table>");
    if (topic == QLatin1String("modes")) {
        QString html = tr("<h3>The modes</h3><ul>");
        for (const StrategyTraits* t : allStrategies())
            html +=
                QStringLiteral("<li><b>%1</b>: %2%3</li>")
                    .arg(QString::fromStdString(t->label).toHtmlEscaped(),
                         QString::fromStdString(t->help).toHtmlEscaped(),
                         t->unavailable.empty()
                             ? QString()
                             : QStringLiteral(" <i>(%1)</i>")
                                   .arg(QString::fromStdString(t->unavailable).toHtmlEscaped()));
        return html +
               tr("</ul><h3>The pitfalls, and where to see them</h3><ul>"
                  "<li><b>Parameters not shared</b> (untick Share parameters): each process "
                  "trains a private copy and the test accuracy never moves.</li>"
                  "<li><b>CUDA before fork</b>: a forked child cannot use its parent's CUDA "
                  "context; fork is refused, spawn and forkserver work.</li>"
                  "<li><b>Lost updates</b> (Count lost updates): lock-free writes of the same "
                  "parameters overlap and one replaces the other; the lock loses none.</li>"
                  "<li><b>fork from a process with threads</b>: the child gets only the "
                  "forking thread; forkserver avoids it.</li></ul>"
                  "<p>Each preset says what to look at, beside the charts.</p>");
    }
    return tr("<h3>Hogwild Lab %1</h3><p>A workbench for parallel SGD: serial, Hogwild over "
              "threads and processes, locked, data-parallel (threads, processes, MPI; CUDA "
              "where built), with live loss, divergence and lost updates from shared "
              "memory, and weights for PyTorch and NumPy.</p><p>Built with Qt %2.</p>"
              "<p>Free software under the MIT License (the LICENSE file; Debian calls it "
              "Expat): use, copy, change and share it, keeping the copyright notice.</p>")
        .arg(QStringLiteral(HWL_VERSION), QString::fromLatin1(qVersion()));
}

HelpMenu::HelpMenu(QMenuBar* bar, QWidget* window) : QObject(window) {
    QMenu* help = bar->addMenu(tr("&Help"));
    const struct {
        QString label, topic;
        QKeySequence keys;
    } entries[] = {{tr("&Modes and pitfalls"), "modes", QKeySequence::HelpContents},
                   {tr("&Keyboard shortcuts"), "shortcuts", {}},
                   {tr("&About Hogwild Lab"), "about", {}}};
    for (const auto& e : entries)
        help->addAction(e.label, e.keys, this, [window, e] {
            QMessageBox box(window);
            // The menu's text without its mnemonic marker ("&Modes ...").
            box.setWindowTitle(QString(e.label).remove(QLatin1Char('&')));
            box.setTextFormat(Qt::RichText);
            box.setText(text(e.topic));
            box.exec();
        });
}

} // namespace hwl::ui
