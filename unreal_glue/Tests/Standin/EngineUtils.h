// Stand-in for Unreal's EngineUtils.h (see README.md).
#pragma once
#include "StandinEngine.h"
