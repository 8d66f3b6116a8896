// Stand-in for Unreal's PhysicsEngine/PhysicsSettings.h (see README.md).
#pragma once
#include "../StandinEngine.h"
