// Stand-in for Unreal's Templates/Function.h (see README.md).
#pragma once
#include "../StandinParallel.h"
