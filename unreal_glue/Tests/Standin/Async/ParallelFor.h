// Stand-in for Unreal's Async/ParallelFor.h (see README.md).
#pragma once
#include "../StandinParallel.h"
