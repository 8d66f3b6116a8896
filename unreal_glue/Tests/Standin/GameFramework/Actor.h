// Stand-in for Unreal's GameFramework/Actor.h (see README.md).
#pragma once
#include "../StandinEngine.h"
