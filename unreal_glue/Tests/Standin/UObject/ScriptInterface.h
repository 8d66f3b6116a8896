// Stand-in for Unreal's UObject/ScriptInterface.h (see README.md).
#pragma once
#include "../StandinEngine.h"
