// hogwild-lab: the app's entry point. Until the desktop window lands it runs
// the headless engine for every invocation (--headless is accepted).
#include "headless.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    return hwl::runHeadless(std::vector<std::string>(argv + 1, argv + argc));
}
