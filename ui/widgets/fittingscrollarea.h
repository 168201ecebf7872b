#pragma once
// FittingScrollArea: a vertical scroll area at least as wide as its widget's
// widest rows need, beside the scrollbar, whatever rows the widget shows now
// (the experiment form: a mode's rows, Advanced open). Nothing is ever cut
// at the right or scrolled sideways (issue 49: choosing processes made the
// form wider than its drawer). GUI thread only.
#include <QScrollArea>

namespace hwl::ui {

class FittingScrollArea : public QScrollArea {
    Q_OBJECT

public:
    /// `least`: the narrowest it ever is.
    explicit FittingScrollArea(QWidget* widget, int least, QWidget* parent = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitWidth();
    int least_;
};

} // namespace hwl::ui
