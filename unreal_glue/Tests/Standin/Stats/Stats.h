// Stand-in for Unreal's Stats/Stats.h (see README.md).
#pragma once
#include "../StandinCore.h"
