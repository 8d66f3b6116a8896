#include "SceneCaptureCameraActor.h"

#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"

#include "Components/SceneCaptureComponent2D.h"
#include "Engine/TextureRenderTarget2D.h"
#include "Materials/MaterialInterface.h"
#include "ProfilingDebugging/CpuProfilerTrace.h"
#include "RHICommandList.h"
#include "RenderingThread.h"
#include "TextureResource.h"

ASceneCaptureCameraActor::ASceneCaptureCameraActor()
{
	CaptureComponent = CreateDefaultSubobject<USceneCaptureComponent2D>(TEXT("SceneCapture"));
	CaptureComponent->bCaptureEveryFrame = false; // captured in Tick, when wanted
	CaptureComponent->bCaptureOnMovement = false;
	CaptureComponent->CaptureSource = ESceneCaptureSource::SCS_FinalColorLDR;
	RootComponent = CaptureComponent;
}

void ASceneCaptureCameraActor::ApplyAttributes(const CarlaGlue::FAttributes& Attributes)
{
	// The library validated them when the client spawned the sensor.
	ImageSizeX = static_cast<int32>(Attributes.Number("image_size_x", ImageSizeX));
	ImageSizeY = static_cast<int32>(Attributes.Number("image_size_y", ImageSizeY));
	FOV = static_cast<float>(Attributes.Number("fov", FOV));
}

uint32 ASceneCaptureCameraActor::GetLegacyType() const
{
	return CARLA_SERVER_CAMERA;
}

const char* ASceneCaptureCameraActor::GetBlueprintId() const
{
	switch (Output)
	{
	case ECarlaCameraOutput::Depth: return "sensor.camera.depth";
	case ECarlaCameraOutput::SemanticSegmentation: return "sensor.camera.semantic_segmentation";
	default: return "sensor.camera.rgb";
	}
}

void ASceneCaptureCameraActor::GetSensorAttributes(TMap<FString, FString>& Attributes) const
{
	Attributes.Add(TEXT("image_size_x"), FString::FromInt(ImageSizeX));
	Attributes.Add(TEXT("image_size_y"), FString::FromInt(ImageSizeY));
	Attributes.Add(TEXT("fov"), FString::SanitizeFloat(FOV));
}

void ASceneCaptureCameraActor::OnSensorReady()
{
	if (ImageSizeX <= 0 || ImageSizeY <= 0)
	{
		UE_LOG(LogCarlaServerGlue, Error, TEXT("%s: image size %dx%d"), *GetName(), ImageSizeX, ImageSizeY);
		SensorId = 0;
		return;
	}
	RenderTarget = NewObject<UTextureRenderTarget2D>(this);
	RenderTarget->InitCustomFormat(static_cast<uint32>(ImageSizeX), static_cast<uint32>(ImageSizeY), PF_B8G8R8A8, false); // BGRA, as the library sends
	CaptureComponent->TextureTarget = RenderTarget;
	CaptureComponent->FOVAngle = FOV;
	if (Output != ECarlaCameraOutput::SceneFinal)
	{
		UMaterialInterface* Material = PostProcessMaterial != nullptr ? PostProcessMaterial : ServerActor->GetPostProcessMaterial(Output);
		if (Material == nullptr)
		{
			UE_LOG(LogCarlaServerGlue, Error, TEXT("%s: no post-process material for this output (set the server actor's DepthMaterial / SemanticSegmentationMaterial)"), *GetName());
			SensorId = 0;
			return;
		}
		CaptureComponent->PostProcessSettings.AddBlendable(Material, 1.0f);
		CaptureComponent->PostProcessBlendWeight = 1.0f;
	}
}

void ASceneCaptureCameraActor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	// The render thread may still read into Readback for this actor.
	FlushRenderingCommands();
	Super::EndPlay(EndPlayReason);
}

void ASceneCaptureCameraActor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	if (RenderTarget == nullptr || !IsWanted())
	{
		return; // nobody listens: no capture, no read-back
	}
	TRACE_CPUPROFILER_EVENT_SCOPE(CarlaCameraCapture);
	// Game thread: render this frame into the target and note when and where.
	CaptureComponent->CaptureScene();
	const carla_capture_context Capture = Context();
	FTextureRenderTargetResource* Resource = RenderTarget->GameThread_GetRenderTargetResource();
	if (Resource == nullptr)
	{
		return;
	}
	const CarlaServerPtr Server = GetServer();
	const uint32 Id = SensorId;
	const int32 Width = RenderTarget->SizeX;
	const int32 Height = RenderTarget->SizeY;
	TArray<FColor>* Pixels = &Readback; // lives until EndPlay's flush

	// Render thread, after the capture: ReadSurfaceData (Vulkan forbids a
	// read lock), then one copy into the library's pooled buffer and the
	// send, which queues for each subscriber and never waits on one.
	ENQUEUE_RENDER_COMMAND(CarlaCameraReadback)(
		[Server, Id, Capture, Resource, Width, Height, Pixels](FRHICommandListImmediate& RHICmdList)
		{
			TRACE_CPUPROFILER_EVENT_SCOPE(CarlaCameraReadback);
			FRHITexture* Texture = Resource->GetRenderTargetTexture();
			if (Texture == nullptr)
			{
				return;
			}
			RHICmdList.ReadSurfaceData(Texture, FIntRect(0, 0, Width, Height), *Pixels, FReadSurfaceDataFlags(RCM_UNorm, CubeFace_MAX));
			const uint32 Bytes = static_cast<uint32>(Width) * static_cast<uint32>(Height) * 4u;
			if (static_cast<uint32>(Pixels->Num()) * 4u != Bytes)
			{
				return;
			}
			CarlaImagePtr Image = nullptr;
			void* Buffer = nullptr;
			uint32 Size = 0;
			if (carla_sensor_acquire_image(Server, Id, &Image, &Buffer, &Size) != CarlaGlue::Success)
			{
				return;
			}
			if (Size != Bytes || Buffer == nullptr)
			{
				carla_image_release(Image);
				return;
			}
			FMemory::Memcpy(Buffer, Pixels->GetData(), Bytes); // FColor is BGRA in memory
			carla_sensor_commit_image(Server, Image, &Capture);
		});
}
