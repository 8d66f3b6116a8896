// Stand-in for Unreal's Misc/Paths.h (see README.md).
#pragma once
#include "../StandinCore.h"
