// A camera: the scene (or a post-process material's view of it: depth,
// semantic segmentation) captured on the game thread, copied back from the
// GPU asynchronously (FRHIGPUTextureReadback: no texture lock, no flush)
// and, once ready, copied into the library's pooled buffer and sent from
// there with the frame it shows (`sensor.camera.rgb` / `.depth` /
// `.semantic_segmentation`, optionally mirrored to a 0.8 scene-description id).
#pragma once

#include "CoreMinimal.h"
#include "CarlaSensor.h"
#include "SceneCaptureCameraActor.generated.h"

class UMaterialInterface;
class USceneCaptureComponent2D;
class UTextureRenderTarget2D;
struct FColor;

/** What the camera outputs (the 0.8 settings' PostProcessing). */
UENUM(BlueprintType)
enum class ECarlaCameraOutput : uint8
{
	SceneFinal,
	Depth,
	SemanticSegmentation
};

UCLASS()
class CARLASERVERGLUE_API ASceneCaptureCameraActor : public ACarlaSensor
{
	GENERATED_BODY()

public:
	ASceneCaptureCameraActor();

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 ImageSizeX = 800;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	int32 ImageSizeY = 600;

	/** Horizontal field of view, degrees. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	float FOV = 90.0f;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	ECarlaCameraOutput Output = ECarlaCameraOutput::SceneFinal;

	/** The post-process material that draws Depth or SemanticSegmentation
	 *  (nullptr: the server actor's material for that output). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "CARLA")
	UMaterialInterface* PostProcessMaterial = nullptr;

	virtual void ApplyAttributes(const CarlaGlue::FAttributes& Attributes) override;
	virtual uint32 GetLegacyType() const override;
	virtual void Tick(float DeltaSeconds) override;

protected:
	virtual const char* GetBlueprintId() const override;
	virtual void GetSensorAttributes(TMap<FString, FString>& Attributes) const override;
	virtual void OnSensorReady() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;

private:
	UPROPERTY()
	USceneCaptureComponent2D* CaptureComponent = nullptr;

	UPROPERTY()
	UTextureRenderTarget2D* RenderTarget = nullptr;

	/** The captures on their way back from the GPU (render thread only;
	 *  made in OnSensorReady, freed after EndPlay's flush). */
	struct FCameraReadbacks* Readbacks = nullptr;

	/** Game thread: the last tick captured (false: nobody listened). */
	bool bCapturedLastTick = false;
};
