// Stand-in for Unreal's RHICommandList.h (see README.md).
#pragma once
#include "StandinRender.h"
