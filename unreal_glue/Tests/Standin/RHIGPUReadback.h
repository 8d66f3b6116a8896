// Stand-in for Unreal's RHIGPUReadback.h (see README.md).
#pragma once
#include "StandinRender.h"
