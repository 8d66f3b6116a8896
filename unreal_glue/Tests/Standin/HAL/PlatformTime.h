// Stand-in for Unreal's HAL/PlatformTime.h (see README.md).
#pragma once
#include "../StandinCore.h"
