// Ray-cast lidar (`sensor.lidar.ray_cast`) or semantic lidar
// (`sensor.lidar.ray_cast_semantic`): the library plans this tick's rays,
// the engine traces them in parallel (ParallelFor, as CARLA 0.9 does), the
// library turns all hits into one message (and, for a 0.8 sensor, the 0.8
// lidar record).
#pragma once

#include "CoreMinimal.h"
#include "CarlaSensor.h"
#include "RayCastLidar.generated.h"

UCLASS()
class CARLASERVERGLUE_API ARayCastLidar : public ACarlaSensor
{
	GENERATED_BODY()

public:
	ARayCastLidar();

	/** Semantic lidar (object ids and tags) instead of the ray-cast lidar. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	bool bSemantic = false;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 Channels = 32;

	/** Metres. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float Range = 10.0f;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 PointsPerSecond = 56000;

	/** Hz. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float RotationFrequency = 10.0f;

	/** Degrees above (upper) and below (lower, negative) the horizon. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float UpperFov = 10.0f;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float LowerFov = -30.0f;

	virtual void ApplyAttributes(const CarlaGlue::FAttributes& Attributes) override;
	virtual uint32 GetLegacyType() const override;
	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual const char* GetBlueprintId() const override;
	virtual void GetSensorAttributes(TMap<FString, FString>& Attributes) const override;

private:
	// Reused every tick: no allocation once the ray count was seen.
	TArray<carla_lidar_hit> Hits;
	TArray<const UPrimitiveComponent*> HitComponents;
	/** The project's "SensorTrace" channel (ECC_MAX until looked up). */
	ECollisionChannel TraceChannel = ECC_MAX;
};
