// Stand-in for Unreal's Misc/App.h (see README.md).
#pragma once
#include "../StandinCore.h"
