#include "charts/chartsizedialog.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace hwl::ui {

std::optional<QSize> askChartSize(QWidget* parent, QSize initial) {
    QDialog dialog(parent);
    dialog.setWindowTitle(QDialog::tr("Chart size"));
    auto* layout = new QFormLayout(&dialog);
    auto* presets = new QComboBox(&dialog);
    const QSize sizes[] = {{1280, 720}, {1600, 900}, {1920, 1080}, {3840, 2160}, {800, 600}};
    presets->addItem(QDialog::tr("Custom"));
    for (const QSize& s : sizes)
        presets->addItem(QStringLiteral("%1 x %2").arg(s.width()).arg(s.height()), s);
    auto* width = new QSpinBox(&dialog);
    auto* height = new QSpinBox(&dialog);
    for (QSpinBox* box : {width, height}) {
        box->setRange(100, 16000);
        box->setSuffix(QDialog::tr(" px"));
    }
    width->setMinimum(100);
    height->setMinimum(60);
    width->setValue(initial.width());
    height->setValue(initial.height());
    QObject::connect(presets, &QComboBox::activated, &dialog, [=](int index) {
        const QSize s = presets->itemData(index).toSize();
        if (s.isValid()) {
            width->setValue(s.width());
            height->setValue(s.height());
        }
    });
    layout->addRow(QDialog::tr("Preset"), presets);
    layout->addRow(QDialog::tr("Width"), width);
    layout->addRow(QDialog::tr("Height"), height);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return QSize(width->value(), height->value());
}

} // namespace hwl::ui
