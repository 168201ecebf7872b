#include "widgets/fieldnote.h"

#include <QApplication>
#include <QEvent>

#include <algorithm>

namespace hwl::ui {

FieldNote::FieldNote(QWidget* overlay) : QLabel(overlay) {
    setObjectName("fieldNote");
    setProperty("hwlRole", QStringLiteral("error")); // the form's error red
    setProperty("hwlBalloon", true);                 // framed, on the tooltip's ground
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setAttribute(Qt::WA_TransparentForMouseEvents); // a click lands on the field below
    setAutoFillBackground(true); // opaque: never drawn over the field below's text
    setBackgroundRole(QPalette::Base);
    setFocusPolicy(Qt::NoFocus);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    setFont(small);
    hide();
    // The focus moving anywhere: into the field's scope, or out of it.
    connect(qApp, &QApplication::focusChanged, this, &FieldNote::follow);
}

void FieldNote::setAnchor(QWidget* editor, QWidget* scope) {
    scope_ = scope ? scope : editor;
    if (anchor_ != editor) {
        if (anchor_)
            anchor_->removeEventFilter(this);
        anchor_ = editor;
        if (anchor_)
            anchor_->installEventFilter(this);
    }
    follow();
}

void FieldNote::setMessage(const QString& message) {
    if (text() == message)
        return;
    setText(message);
    follow();
}

bool FieldNote::wanted() const {
    if (text().isEmpty() || !anchor_ || !parentWidget() || !anchor_->isVisibleTo(parentWidget()))
        return false;
    const QWidget* focus = QApplication::focusWidget();
    const bool focused = focus && scope_ && (focus == scope_ || scope_->isAncestorOf(focus));
    return focused || anchor_->underMouse();
}

bool FieldNote::eventFilter(QObject* watched, QEvent* event) {
    if (watched == anchor_) {
        switch (event->type()) {
        case QEvent::Enter:
        case QEvent::Leave:
        case QEvent::Move:
        case QEvent::Resize:
        case QEvent::Show:
        case QEvent::Hide:
            follow();
            break;
        default:
            break;
        }
    }
    return false;
}

void FieldNote::follow() {
    if (!wanted()) {
        hide();
        return;
    }
    QWidget* overlay = parentWidget();
    const QPoint below = anchor_->mapTo(overlay, QPoint(0, anchor_->height() + 1));
    const int room = overlay->width() - below.x() - 4;
    const int width = std::max(std::min(room, std::max(anchor_->width(), 260)), 80);
    ensurePolished(); // the style sheet's frame and padding are in the height
    setGeometry(below.x(), below.y(), width, heightForWidth(width) + 2);
    raise();
    show();
}

} // namespace hwl::ui
