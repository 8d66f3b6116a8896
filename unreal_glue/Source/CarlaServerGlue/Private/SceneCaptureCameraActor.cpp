#include "SceneCaptureCameraActor.h"

#include "CarlaGlueUtils.h"
#include "CarlaServerActor.h"

#include "Components/SceneCaptureComponent2D.h"
#include "Engine/TextureRenderTarget2D.h"
#include "RHICommandList.h"
#include "RenderingThread.h"
#include "TextureResource.h"

ASceneCaptureCameraActor::ASceneCaptureCameraActor()
{
	PrimaryActorTick.bCanEverTick = true;
	PrimaryActorTick.TickGroup = TG_PostPhysics;
	CaptureComponent = CreateDefaultSubobject<USceneCaptureComponent2D>(TEXT("SceneCapture"));
	CaptureComponent->bCaptureEveryFrame = false; // captured explicitly in Tick
	CaptureComponent->bCaptureOnMovement = false;
	CaptureComponent->CaptureSource = ESceneCaptureSource::SCS_FinalColorLDR;
	RootComponent = CaptureComponent;
}

void ASceneCaptureCameraActor::BeginPlay()
{
	Super::BeginPlay();
	RenderTarget = NewObject<UTextureRenderTarget2D>(this);
	RenderTarget->InitCustomFormat(static_cast<uint32>(ImageSizeX), static_cast<uint32>(ImageSizeY), PF_B8G8R8A8, false); // BGRA, as the library sends
	CaptureComponent->TextureTarget = RenderTarget;
	CaptureComponent->FOVAngle = FOV;
	if (ServerActor == nullptr)
	{
		ServerActor = ACarlaServerActor::Find(GetWorld());
	}
	if (ServerActor == nullptr)
	{
		return;
	}
	SensorId = ServerActor->CreateSensor("sensor.camera.rgb",
		{{TEXT("image_size_x"), FString::FromInt(ImageSizeX)}, {TEXT("image_size_y"), FString::FromInt(ImageSizeY)},
			{TEXT("fov"), FString::SanitizeFloat(FOV)}});
	if (SensorId != 0 && LegacySensorId != 0)
	{
		carla_sensor_mirror_to_legacy(ServerActor->GetServer(), SensorId, static_cast<uint32>(LegacySensorId));
	}
}

void ASceneCaptureCameraActor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (ServerActor != nullptr)
	{
		ServerActor->DestroySensor(SensorId);
	}
	SensorId = 0;
	Super::EndPlay(EndPlayReason);
}

void ASceneCaptureCameraActor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	const CarlaServerPtr Server = ServerActor != nullptr ? ServerActor->GetServer() : nullptr;
	if (Server == nullptr || SensorId == 0)
	{
		return;
	}
	// Game thread: render this frame into the target and note when and where.
	CaptureComponent->CaptureScene();
	const carla_capture_context Context = CarlaGlue::CaptureContext(*this);
	FTextureRenderTargetResource* Resource = RenderTarget->GameThread_GetRenderTargetResource();
	const uint32 Width = static_cast<uint32>(RenderTarget->SizeX);
	const uint32 Height = static_cast<uint32>(RenderTarget->SizeY);
	const uint32 Id = SensorId;

	// Render thread, after the capture: read the target straight into the
	// library's pooled buffer, then send it (both protocols if mirrored).
	ENQUEUE_RENDER_COMMAND(CarlaCameraReadback)(
		[Server, Id, Context, Resource, Width, Height](FRHICommandListImmediate& RHICmdList)
		{
			CarlaImagePtr Image = nullptr;
			void* Pixels = nullptr;
			uint32 Size = 0;
			if (carla_sensor_acquire_image(Server, Id, &Image, &Pixels, &Size) != CarlaGlue::Success)
			{
				return;
			}
			const uint32 RowBytes = Width * 4;
			if (Size != RowBytes * Height)
			{
				carla_image_release(Image);
				return;
			}
			auto Texture = Resource->GetRenderTargetTexture();
			uint32 Stride = 0;
			const uint8* Source = static_cast<const uint8*>(RHICmdList.LockTexture2D(Texture, 0, RLM_ReadOnly, Stride, false));
			for (uint32 Row = 0; Row < Height; ++Row)
			{
				FMemory::Memcpy(static_cast<uint8*>(Pixels) + Row * RowBytes, Source + Row * Stride, RowBytes);
			}
			RHICmdList.UnlockTexture2D(Texture, 0, false);
			carla_sensor_commit_image(Server, Image, &Context);
		});
}
