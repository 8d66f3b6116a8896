#include "SceneCaptureCameraActor.h"

#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"

#include "Components/SceneCaptureComponent2D.h"
#include "ContentStreaming.h"
#include "Engine/TextureRenderTarget2D.h"
#include "Materials/MaterialInterface.h"
#include "ProfilingDebugging/CpuProfilerTrace.h"
#include "RHICommandList.h"
#include "RHIGPUReadback.h"
#include "Runtime/Launch/Resources/Version.h"
#include "HAL/PlatformProcess.h"
#include "HAL/PlatformTime.h"
#include "RenderingThread.h"
#include "TextureResource.h"

/** A camera's captures in flight: up to Slots copies queued on the GPU
 *  with the frame each shows, handed to the library in capture order once
 *  ready (FRHIGPUTextureReadback: no RHI flush, no wait for the GPU unless
 *  the frame is synchronous). Render thread only. */
struct FCameraReadbacks
{
	static constexpr int32 Slots = 3;
	struct FSlot
	{
		TUniquePtr<FRHIGPUTextureReadback> Readback;
		carla_capture_context Capture = {};
		bool bInFlight = false;
	};
	FSlot Ring[Slots];
	int32 NextCopy = 0;     // where the next capture goes
	int32 NextDelivery = 0; // the oldest in flight
	CarlaServerPtr Server = nullptr;
	uint32 SensorId = 0;
	int32 Width = 0;
	int32 Height = 0;
	uint32 Dropped = 0;

	FCameraReadbacks(CarlaServerPtr InServer, uint32 InSensorId, int32 InWidth, int32 InHeight)
		: Server(InServer), SensorId(InSensorId), Width(InWidth), Height(InHeight)
	{
		for (FSlot& Slot : Ring)
		{
			Slot.Readback = MakeUnique<FRHIGPUTextureReadback>(FName(TEXT("CarlaCameraReadback")));
		}
	}

	/** Forgets the copies still in flight: taken before nobody listened,
	 *  they are older than what a subscriber that came back asked for. */
	void Discard()
	{
		for (FSlot& Slot : Ring)
		{
			Slot.bInFlight = false;
		}
		NextDelivery = NextCopy;
	}

	/** Queues the GPU copy of this frame's capture (dropped if every slot
	 *  still waits for the GPU: the render thread never waits here). */
	void Copy(FRHICommandListImmediate& RHICmdList, FRHITexture* Texture, const carla_capture_context& Capture)
	{
		FSlot& Slot = Ring[NextCopy];
		if (Texture == nullptr || Slot.bInFlight)
		{
			++Dropped;
			return;
		}
		Slot.Readback->EnqueueCopy(RHICmdList, Texture);
		Slot.Capture = Capture;
		Slot.bInFlight = true;
		NextCopy = (NextCopy + 1) % Slots;
	}

	/** Hands over, oldest first, every capture the GPU finished; with
	 *  bWait, all of them (a synchronous frame), waiting at most 2 s each. */
	void Deliver(FRHICommandListImmediate& RHICmdList, bool bWait)
	{
		while (Ring[NextDelivery].bInFlight)
		{
			FSlot& Slot = Ring[NextDelivery];
			if (!Slot.Readback->IsReady())
			{
				if (!bWait)
				{
					return; // a later frame's Deliver hands it over
				}
				const double Deadline = FPlatformTime::Seconds() + 2.0;
				while (!Slot.Readback->IsReady() && FPlatformTime::Seconds() < Deadline)
				{
					FPlatformProcess::Sleep(0.0001f);
				}
			}
			if (Slot.Readback->IsReady())
			{
				Send(RHICmdList, Slot);
			}
			else
			{
				++Dropped; // the GPU never finished: the frame goes without it
			}
			Slot.bInFlight = false;
			NextDelivery = (NextDelivery + 1) % Slots;
		}
	}

	/** One copy of the staging rows into the library's pooled buffer, then
	 *  the send (queued for each subscriber, never waiting on one). */
	void Send(FRHICommandListImmediate& RHICmdList, FSlot& Slot)
	{
		int32 PitchPixels = 0;
#if ENGINE_MAJOR_VERSION >= 5
		(void)RHICmdList;
		const uint8* Rows = static_cast<const uint8*>(Slot.Readback->Lock(PitchPixels));
#else
		void* Locked = nullptr;
		Slot.Readback->LockTexture(RHICmdList, Locked, PitchPixels);
		const uint8* Rows = static_cast<const uint8*>(Locked);
#endif
		CarlaImagePtr Image = nullptr;
		void* Buffer = nullptr;
		uint32 Size = 0;
		const uint32 RowBytes = static_cast<uint32>(Width) * 4u; // FColor: BGRA in memory
		const uint32 Bytes = RowBytes * static_cast<uint32>(Height);
		if (Rows != nullptr && PitchPixels >= Width && carla_sensor_acquire_image(Server, SensorId, &Image, &Buffer, &Size) == CarlaGlue::Success)
		{
			if (Size == Bytes && Buffer != nullptr)
			{
				for (int32 Y = 0; Y < Height; ++Y)
				{
					FMemory::Memcpy(static_cast<uint8*>(Buffer) + static_cast<SIZE_T>(Y) * RowBytes,
						Rows + static_cast<SIZE_T>(Y) * static_cast<SIZE_T>(PitchPixels) * 4u, RowBytes);
				}
				carla_sensor_commit_image(Server, Image, &Slot.Capture);
			}
			else
			{
				carla_image_release(Image);
			}
		}
		Slot.Readback->Unlock();
	}
};

ASceneCaptureCameraActor::ASceneCaptureCameraActor()
{
	CaptureComponent = CreateDefaultSubobject<USceneCaptureComponent2D>(TEXT("SceneCapture"));
	CaptureComponent->bCaptureEveryFrame = false; // captured in Tick, when wanted
	CaptureComponent->bCaptureOnMovement = false;
	CaptureComponent->CaptureSource = ESceneCaptureSource::SCS_FinalColorLDR;
	// Manual captures keep their view state (TAA and exposure history).
	CaptureComponent->bAlwaysPersistRenderingState = true;
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
	// BGRA, as the library sends. Depth and tags are data: stored linear
	// (no gamma), and no pass after their material touches them.
	const bool bData = Output != ECarlaCameraOutput::SceneFinal;
	RenderTarget = NewObject<UTextureRenderTarget2D>(this);
	RenderTarget->InitCustomFormat(static_cast<uint32>(ImageSizeX), static_cast<uint32>(ImageSizeY), PF_B8G8R8A8, bData);
	CaptureComponent->TextureTarget = RenderTarget;
	CaptureComponent->FOVAngle = FOV;
	delete Readbacks; // a sensor made again (a new 0.8 episode)
	Readbacks = new FCameraReadbacks(GetServer(), SensorId, ImageSizeX, ImageSizeY);
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
		FEngineShowFlags& Flags = CaptureComponent->ShowFlags;
		Flags.SetTonemapper(false);
		Flags.SetEyeAdaptation(false);
		Flags.SetAntiAliasing(false);
		Flags.SetTemporalAA(false);
		Flags.SetBloom(false);
		Flags.SetMotionBlur(false);
		Flags.SetColorGrading(false);
		Flags.SetLensFlares(false);
		Flags.SetDepthOfField(false);
		Flags.SetVignette(false);
		Flags.SetGrain(false);
		Flags.SetAmbientOcclusion(false);
	}
}

void ASceneCaptureCameraActor::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	// The render thread may still use Readbacks for this actor.
	FlushRenderingCommands();
	delete Readbacks;
	Readbacks = nullptr;
	Super::EndPlay(EndPlayReason);
}

void ASceneCaptureCameraActor::Tick(float DeltaSeconds)
{
	Super::Tick(DeltaSeconds);
	if (RenderTarget == nullptr || Readbacks == nullptr || !IsWanted())
	{
		bCapturedLastTick = false;
		return; // nobody listens: no capture, no read-back
	}
	const bool bResumed = !bCapturedLastTick;
	bCapturedLastTick = true;
	TRACE_CPUPROFILER_EVENT_SCOPE(CarlaCameraCapture);
	// Game thread: tell texture streaming where this view is (else distant
	// mips only), render this frame into the target, note when and where.
	const float ScreenSize = static_cast<float>(ImageSizeX);
	IStreamingManager::Get().AddViewInformation(CaptureComponent->GetComponentLocation(), ScreenSize,
		ScreenSize / FMath::Tan(FMath::DegreesToRadians(FOV * 0.5f)));
	CaptureComponent->CaptureScene();
	FTextureRenderTargetResource* Resource = RenderTarget->GameThread_GetRenderTargetResource();
	if (Resource == nullptr)
	{
		return;
	}
	FCameraReadbacks* Pending = Readbacks;
	const carla_capture_context Capture = Context();
	// Synchronous frames hand their image over before the frame ends (the
	// client's tick is answered with it); otherwise images go when the GPU
	// has them, a frame or more later, each with its own frame.
	const bool bWait = ServerActor != nullptr && ServerActor->IsFrameSynchronous();
	ENQUEUE_RENDER_COMMAND(CarlaCameraReadback)(
		[Pending, Resource, Capture, bWait, bResumed](FRHICommandListImmediate& RHICmdList)
		{
			TRACE_CPUPROFILER_EVENT_SCOPE(CarlaCameraReadback);
			if (bResumed)
			{
				Pending->Discard();
			}
			Pending->Copy(RHICmdList, Resource->GetRenderTargetTexture(), Capture);
			Pending->Deliver(RHICmdList, bWait);
		});
}
