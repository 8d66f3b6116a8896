// Stand-in for Unreal's RHI.h (see README.md).
#pragma once
#include "StandinRender.h"
