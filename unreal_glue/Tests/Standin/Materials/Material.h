// Stand-in for Unreal's Materials/Material.h (see README.md).
#pragma once
#include "../StandinRender.h"
