#include "teaching/presets.h"

namespace hwl::ui {

QList<Preset> presets() {
    QList<Preset> list;
    for (const hwl::Preset& p : hwl::presets())
        list.push_back({QString::fromStdString(p.id), QString::fromStdString(p.name),
                        QString::fromStdString(p.explanation), p.config, p.pace, p.compare});
    return list;
}

} // namespace hwl::ui
