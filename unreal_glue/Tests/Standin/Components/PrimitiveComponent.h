// Stand-in for Unreal's Components/PrimitiveComponent.h (see README.md).
#pragma once
#include "../StandinEngine.h"
