// Stand-in for Unreal's CoreGlobals.h (see README.md).
#pragma once
#include "StandinCore.h"
