// Stand-in for Unreal's UObject/ObjectMacros.h (see README.md).
#pragma once
#include "../StandinEngine.h"
