// Stand-in for Unreal's UObject/Class.h (see README.md).
#pragma once
#include "../StandinEngine.h"
