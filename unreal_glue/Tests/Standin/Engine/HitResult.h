// Stand-in for Unreal's Engine/HitResult.h (see README.md).
#pragma once
#include "../StandinEngine.h"
