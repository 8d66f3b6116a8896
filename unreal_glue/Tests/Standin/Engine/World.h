// Stand-in for Unreal's Engine/World.h (see README.md).
#pragma once
#include "../StandinEngine.h"
