#pragma once
// The engine's teaching presets (config/presets.h) as the window shows them.
// GUI thread only (plain data; no widgets).
#include "config/presets.h"

#include <QList>
#include <QString>

namespace hwl::ui {

struct Preset {
    QString id;
    QString name;
    QString explanation;
    hwl::ExperimentConfig config;
    quint32 pace = 0; ///< steps per second per worker to watch it at (0: full speed)
    /// A comparison's runs, made one after another by Start (see hwl::Preset).
    std::vector<hwl::PresetRun> compare;
};

/// The presets, in menu order. Built on each call (checks Fashion-MNIST).
QList<Preset> presets();

} // namespace hwl::ui
