// Stand-in for Unreal's TextureResource.h (see README.md).
#pragma once
#include "StandinRender.h"
