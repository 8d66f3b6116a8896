// Stand-in for Unreal's Engine/Scene.h (see README.md).
#pragma once
#include "../StandinRender.h"
