// Stand-in for Unreal's Interfaces/IPluginManager.h (see README.md).
#pragma once
#include "../StandinModules.h"
