// Stand-in for Unreal's Components/SceneComponent.h (see README.md).
#pragma once
#include "../StandinEngine.h"
