// Stand-in for Unreal's UObject/Object.h (see README.md).
#pragma once
#include "../StandinEngine.h"
