// The tutorial's safe-distance sensor: a box around its owner (sized by the
// library from the owner's bounds and the margins); every tick the actors
// overlapping it go to the 0.9 stream `sensor.other.safe_distance`.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "SafeDistanceSensor.generated.h"

class ACarlaServerActor;
class UBoxComponent;

UCLASS()
class CARLASERVERGLUE_API ASafeDistanceSensor : public AActor
{
	GENERATED_BODY()

public:
	ASafeDistanceSensor();

	/** Margins around the owner's bounding box, metres. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	float SafeDistanceFront = 1.0f;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	float SafeDistanceBack = 0.5f;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	float SafeDistanceLateral = 0.5f;

	/** The server to stream to (nullptr: the level's first ACarlaServerActor). */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	ACarlaServerActor* ServerActor = nullptr;

	/** The 0.9 stream id (0 before BeginPlay or if creation failed). */
	uint32 GetSensorId() const { return SensorId; }

	virtual void Tick(float DeltaSeconds) override;

protected:
	/** Needs its owner (SetOwner) attached before play begins. */
	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

private:
	UPROPERTY()
	UBoxComponent* Box = nullptr;

	uint32 SensorId = 0;
	TSet<AActor*> Overlapping; // reused every tick
	TArray<uint32> ActorIds;
};
