// Stand-in for Unreal's UObject/Interface.h (see README.md).
#pragma once
#include "../StandinEngine.h"
