// Stand-in for Unreal's Materials/MaterialInterface.h (see README.md).
#pragma once
#include "../StandinRender.h"
