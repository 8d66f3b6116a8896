// Stand-in for Unreal's HAL/PlatformProcess.h (see README.md).
#pragma once
#include "../StandinCore.h"
