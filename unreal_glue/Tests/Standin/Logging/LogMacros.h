// Stand-in for Unreal's Logging/LogMacros.h (see README.md).
#pragma once
#include "../StandinCore.h"
