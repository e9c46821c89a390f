#pragma once

// CAF programs include caf/caf_main.hpp or caf/exec_main.hpp for CAF_MAIN;
// after the rename both name troupe/exec_main.hpp, which defines TROUPE_MAIN.

#include "troupe/exec_main.hpp"
