// POOLGRAD_VERBOSE=1 prints every operator run (problem, implementation, declines, time) to stderr.
#pragma once

namespace poolgrad {
bool verboseEnabled();
}
