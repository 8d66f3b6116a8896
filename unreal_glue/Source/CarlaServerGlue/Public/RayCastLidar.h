// Ray-cast lidar (`sensor.lidar.ray_cast`) or semantic lidar
// (`sensor.lidar.ray_cast_semantic`): the library plans this tick's rays,
// the engine traces them, the library turns all hits into one message.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "carla/carla_server.h"
#include "RayCastLidar.generated.h"

class ACarlaServerActor;

UCLASS()
class CARLASERVERGLUE_API ARayCastLidar : public AActor
{
	GENERATED_BODY()

public:
	ARayCastLidar();

	/** Semantic lidar (object ids and tags) instead of the ray-cast lidar. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	bool bSemantic = false;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 Channels = 32;

	/** Metres. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	float Range = 10.0f;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 PointsPerSecond = 56000;

	/** Hz. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	float RotationFrequency = 10.0f;

	/** Degrees above (upper) and below (lower, negative) the horizon. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	float UpperFov = 10.0f;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	float LowerFov = -30.0f;

	/** The server to stream to (nullptr: the level's first ACarlaServerActor). */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	ACarlaServerActor* ServerActor = nullptr;

	/** The 0.9 stream id (0 before BeginPlay or if creation failed). */
	uint32 GetSensorId() const { return SensorId; }

	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

private:
	uint32 SensorId = 0;
	TArray<carla_lidar_hit> Hits; // reused: no allocation once the ray count was seen
};
