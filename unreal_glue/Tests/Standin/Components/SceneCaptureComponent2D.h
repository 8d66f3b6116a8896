// Stand-in for Unreal's Components/SceneCaptureComponent2D.h (see README.md).
#pragma once
#include "../StandinRender.h"
