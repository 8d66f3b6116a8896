// Stand-in for Unreal's ContentStreaming.h (see README.md).
#pragma once
#include "StandinRender.h"
