// Stand-in for Unreal's Runtime/Launch/Resources/Version.h (see README.md).
#pragma once
#include "../../../StandinCore.h"
