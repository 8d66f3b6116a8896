// Stand-in for Unreal's RHIDefinitions.h (see README.md).
#pragma once
#include "StandinRender.h"
