// Stand-in for Unreal's Engine/EngineTypes.h (see README.md).
#pragma once
#include "../StandinEngine.h"
