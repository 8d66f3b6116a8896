// Stand-in for Unreal's GameFramework/Pawn.h (see README.md).
#pragma once
#include "../StandinEngine.h"
