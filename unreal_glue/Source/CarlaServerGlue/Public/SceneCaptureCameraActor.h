// An RGB camera: captures on the game thread, hands the pixels to the library
// on the render thread through the zero-copy acquire/commit path (0.9 stream
// `sensor.camera.rgb`, optionally mirrored to a 0.8 scene-description id).
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"
#include "SceneCaptureCameraActor.generated.h"

class ACarlaServerActor;
class USceneCaptureComponent2D;
class UTextureRenderTarget2D;

UCLASS()
class CARLASERVERGLUE_API ASceneCaptureCameraActor : public AActor
{
	GENERATED_BODY()

public:
	ASceneCaptureCameraActor();

	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 ImageSizeX = 800;

	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 ImageSizeY = 600;

	/** Horizontal field of view, degrees. */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	float FOV = 90.0f;

	/** Id of this camera in the 0.8 scene description (0: 0.9 stream only). */
	UPROPERTY(EditAnywhere, Category = "CARLA")
	int32 LegacySensorId = 0;

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
	UPROPERTY()
	USceneCaptureComponent2D* CaptureComponent = nullptr;

	UPROPERTY()
	UTextureRenderTarget2D* RenderTarget = nullptr;

	uint32 SensorId = 0;
};
