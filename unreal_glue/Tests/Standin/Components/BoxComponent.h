// Stand-in for Unreal's Components/BoxComponent.h (see README.md).
#pragma once
#include "../StandinEngine.h"
