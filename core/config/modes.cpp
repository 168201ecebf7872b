#include "config/modes.h"

#include <stdexcept>

namespace hwl {

namespace {
ModeCatalog installed; // constant-initialised: filled before main(), read after
} // namespace

void installModeCatalog(const ModeCatalog& catalog) {
    installed = catalog;
}

const ModeCatalog& modeCatalog() {
    if (!installed.names || !installed.helpLines || !installed.validate)
        throw std::logic_error("no mode catalog: run/modecatalog.cpp was not linked");
    return installed;
}

} // namespace hwl
