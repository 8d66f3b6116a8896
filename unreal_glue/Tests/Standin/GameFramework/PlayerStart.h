// Stand-in for Unreal's GameFramework/PlayerStart.h (see README.md).
#pragma once
#include "../StandinEngine.h"
