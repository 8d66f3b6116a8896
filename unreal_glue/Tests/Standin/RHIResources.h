// Stand-in for Unreal's RHIResources.h (see README.md).
#pragma once
#include "StandinRender.h"
