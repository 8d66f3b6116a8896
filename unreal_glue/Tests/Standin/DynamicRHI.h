// Stand-in for Unreal's DynamicRHI.h (see README.md).
#pragma once
#include "StandinRender.h"
