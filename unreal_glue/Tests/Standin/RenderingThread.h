// Stand-in for Unreal's RenderingThread.h (see README.md).
#pragma once
#include "StandinRender.h"
