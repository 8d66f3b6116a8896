// Stand-in for Unreal's Modules/ModuleManager.h (see README.md).
#pragma once
#include "../StandinModules.h"
