// Stand-in for Unreal's HAL/IConsoleManager.h (see README.md).
#pragma once
#include "../StandinRender.h"
