// The tutorial's safe-distance sensor (`sensor.other.safe_distance`): an
// oriented box around the vehicle it is attached to (sized by the library
// from the vehicle's own bounds and the margins); every tick the vehicles
// and walkers overlapping it go to the 0.9 stream, by the ids clients know.
#pragma once

#include "CoreMinimal.h"
#include "CarlaSensor.h"
#include "SafeDistanceSensor.generated.h"

class UBoxComponent;

UCLASS()
class CARLASERVERGLUE_API ASafeDistanceSensor : public ACarlaSensor
{
	GENERATED_BODY()

public:
	ASafeDistanceSensor();

	/** Margins around the vehicle's bounding box, metres. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float SafeDistanceFront = 1.0f;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float SafeDistanceBack = 0.5f;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float SafeDistanceLateral = 0.5f;

	/** The vehicle it guards: the owner if set, else the actor it is
	 *  attached to (as the tutorial's sensor, spawned attached to the car). */
	UFUNCTION(BlueprintCallable, Category = "CARLA")
	AActor* GetGuarded() const;

	virtual void ApplyAttributes(const CarlaGlue::FAttributes& Attributes) override;
	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual const char* GetBlueprintId() const override { return "sensor.other.safe_distance"; }
	virtual void GetSensorAttributes(TMap<FString, FString>& Attributes) const override;

private:
	/** Sizes the box for Guarded (once per guarded actor). */
	bool SizeBox(AActor& Guarded);

	UPROPERTY()
	UBoxComponent* Box = nullptr;

	AActor* SizedFor = nullptr;
	FVector BoxCentre = FVector::ZeroVector; // in the guarded actor's frame, cm
	TSet<AActor*> Overlapping; // reused every tick
	TArray<uint32> ActorIds;
};
