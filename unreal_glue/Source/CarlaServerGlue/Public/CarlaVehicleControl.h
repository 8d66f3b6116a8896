// What the server actor drives: implement it on a vehicle (in C++ as
// ApplyCarlaControl_Implementation, or in a Blueprint) to receive the 0.8
// client's control every tick and the 0.9 clients' apply_control.
#pragma once

#include "CoreMinimal.h"
#include "UObject/Interface.h"
#include "CarlaVehicleControl.generated.h"

UINTERFACE(BlueprintType, MinimalAPI)
class UCarlaVehicleControl : public UInterface
{
	GENERATED_BODY()
};

class CARLASERVERGLUE_API ICarlaVehicleControl
{
	GENERATED_BODY()

public:
	/** A client's control (all zero when the 0.8 client sent none this
	 *  tick, and at the start of an episode). Game thread. */
	UFUNCTION(BlueprintNativeEvent, BlueprintCallable, Category = "CARLA")
	void ApplyCarlaControl(float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse);
};
