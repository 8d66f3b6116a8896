// What the server actor drives: implement it on the player's vehicle (or its
// controller) to receive the 0.8 client's control every tick.
#pragma once

#include "CoreMinimal.h"
#include "UObject/Interface.h"
#include "CarlaVehicleControl.generated.h"

UINTERFACE(MinimalAPI)
class UCarlaVehicleControl : public UInterface
{
	GENERATED_BODY()
};

class CARLASERVERGLUE_API ICarlaVehicleControl
{
	GENERATED_BODY()

public:
	/** The client's control (all zero when none arrived this tick). Game thread. */
	virtual void ApplyCarlaControl(float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse) = 0;
};
