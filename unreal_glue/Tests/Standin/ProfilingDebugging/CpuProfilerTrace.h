// Stand-in for Unreal's ProfilingDebugging/CpuProfilerTrace.h (see README.md).
#pragma once
#include "../StandinCore.h"
