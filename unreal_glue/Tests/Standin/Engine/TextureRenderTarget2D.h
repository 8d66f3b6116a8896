// Stand-in for Unreal's Engine/TextureRenderTarget2D.h (see README.md).
#pragma once
#include "../StandinRender.h"
