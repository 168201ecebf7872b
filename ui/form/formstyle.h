#pragma once
// The form's style helpers live in widgets/formstyle.h (the sweep dialog in
// runs/ shares them). This name stays for the parallelism fields, which
// include it by their room's path.
#include "widgets/formstyle.h"
