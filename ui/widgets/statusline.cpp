#include "widgets/statusline.h"

#include <QTimer>

namespace hwl::ui {

StatusLine::StatusLine(const QString& status, QWidget* parent)
    : QLabel(status, parent), status_(status) {
    setObjectName("statusLine");
    setTextFormat(Qt::PlainText);
    setMinimumWidth(0); // a long text is cut by the bar, never widens the window
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    noteTimer_ = new QTimer(this);
    noteTimer_->setSingleShot(true);
    connect(noteTimer_, &QTimer::timeout, this, [this] {
        setText(status_);
        setToolTip({});
    });
}

void StatusLine::setStatus(const QString& status) {
    status_ = status;
    if (!noteTimer_->isActive())
        setText(status);
}

void StatusLine::showNote(const QString& note, int ms) {
    setText(note);
    setToolTip(note); // whole, where the bar is too short for it
    noteTimer_->start(ms);
}

QString StatusLine::note() const {
    return noteTimer_->isActive() ? text() : QString();
}

} // namespace hwl::ui
