// Stand-in for Unreal's CoreMinimal.h (see README.md).
#pragma once
#include "StandinCore.h"
