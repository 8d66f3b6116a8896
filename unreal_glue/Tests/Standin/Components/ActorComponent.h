// Stand-in for Unreal's Components/ActorComponent.h (see README.md).
#pragma once
#include "../StandinEngine.h"
